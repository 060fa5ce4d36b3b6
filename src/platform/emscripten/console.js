// wasmscale's console, for the file system's /dev/stdout, /dev/stderr and /dev/stdin. Called
// by whichever thread writes, with no proxying to the main thread: on Node a synchronous
// fs.writeSync on the process's own descriptor (works from worker_threads, survives exit),
// in a browser the console of the calling worker or page.
mergeInto(LibraryManager.library, {
  // Before the runtime aborts (abort(), running out of memory), the program's unfinished lines
  // go out (console.c's ws_console_abort_flush): the glue's abort is wrapped once, at start-up.
  _wasmscale_console_write__postset:
    '(function() {' +
    '  var stop = abort;' +
    '  abort = function(what) {' +
    '    var flush = Module["_ws_console_abort_flush"] ||' +
    '                (typeof wasmExports != "undefined" && wasmExports ? wasmExports["ws_console_abort_flush"] : null) ||' +
    '                (Module["asm"] ? Module["asm"]["ws_console_abort_flush"] : null);' +
    '    try { if (flush) flush(); } catch (e) {}' +
    '    return stop(what);' +
    '  };' +
    '})();',
  // The program's own Module.print / Module.printErr take its lines, as with emcc. Set by a
  // pre-js they are every thread's, and set on the page's Module the main thread's: both are
  // read at start-up, before 3.1.6 (with ASSERTIONS) puts aborting stubs in their place. Later
  // releases give a worker a proxy of the page's handler after start-up, which is looked for at
  // each write; 3.1.6 gives its workers none, so their lines go to the console below.
  $wasmscaleConsole: {
    user: {},
    own: function(name) {
      var own = Object.getOwnPropertyDescriptor(Module, name);
      return own && typeof own.value == 'function' ? own.value : null;
    },
    handler: function(name) {
      if (!(name in wasmscaleConsole.user)) wasmscaleConsole.user[name] = wasmscaleConsole.own(name);  // at start-up
      if (wasmscaleConsole.user[name]) return wasmscaleConsole.user[name];
      // Since then a 3.1.6 stub may stand there, or a later release's proxy (3.1.6 has no wasmExports).
      return typeof wasmExports != 'undefined' ? wasmscaleConsole.own(name) : null;
    },
  },
  $wasmscaleConsole__postset: 'wasmscaleConsole.handler("print"); wasmscaleConsole.handler("printErr");',
  // Every program with wasmscale's file system links the console, so the console brings the run
  // dependencies that its FS API (emscripten_fs.js: createPreloadedFile, and emcc's file
  // packager through Module) holds main back with until files have arrived.
  _wasmscale_console_write__deps: ['$wasmscaleConsole'].concat(wasmscaleRuntime(['addRunDependency', 'removeRunDependency'])),
  _wasmscale_console_write__sig: 'viii',
  _wasmscale_console_write: function(stream, data, length) {
    // A copy: Node and TextDecoder do not accept views of shared memory.
    var bytes = HEAPU8.slice(data, data + length);
    var handler = wasmscaleConsole.handler(stream === 2 ? 'printErr' : 'print');
    if (!handler && ENVIRONMENT_IS_NODE) {
      var fs = require('fs');
      for (var done = 0; done < bytes.length;) {
        try {
          done += fs.writeSync(stream, bytes, done, bytes.length - done);
        } catch (e) {
          if (e.code !== 'EAGAIN') return;  // a closed console: output has nowhere to go
        }
      }
      return;
    }
    var text = new TextDecoder().decode(bytes);
    if (text.endsWith('\n')) text = text.slice(0, -1);
    if (!handler) handler = stream === 2 ? console.error : console.log;
    var lines = text.split('\n');
    for (var i = 0; i < lines.length; i++) handler(lines[i]);
  },

  _wasmscale_console_read__sig: 'iii',
  _wasmscale_console_read: function(data, length) {
    if (!ENVIRONMENT_IS_NODE) return 0;  // a page has no stdin: end of file
    var buffer = Buffer.alloc(length);
    for (;;) {
      try {
        var got = require('fs').readSync(0, buffer, 0, length, null);
        HEAPU8.set(buffer.subarray(0, got), data);
        return got;
      } catch (e) {
        if (e.code === 'EOF') return 0;
        if (e.code !== 'EAGAIN') return -{{{ cDefine('EIO') }}};
      }
    }
  },
});
