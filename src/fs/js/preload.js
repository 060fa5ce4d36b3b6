// Preloaded files (wasmscale-cc --preload-file): loads the package the driver wrote beside the
// program, and writes its directories and files into wasmscale's file system before main.
// Module.wasmscalePreload ({package, size, directories, files: [[path, start, end]]}) comes
// from a --pre-js the driver generates ahead of this one.
//
// The package is read in preRun (Node: from disk, synchronously; a browser: fetched, with a
// run dependency holding main back until it arrives) and written in onRuntimeInitialized,
// the first moment the Wasm file system can run (after the runtime's constructors, before
// main, which with -sPROXY_TO_PTHREAD is still to start on its pthread). Only the main
// thread does this: workers load the same script but never run preRun.
(function() {
  var description = Module['wasmscalePreload'];
  if (!description) return;
  var bytes = null;

  function fail(what) {
    var message = 'wasmscale: --preload-file package ' + description['package'] + ': ' + what;
    if (typeof abort === 'function') abort(message);
    throw new Error(message);
  }

  function received(buffer) {
    bytes = new Uint8Array(buffer);
    if (bytes.length !== description['size']) {
      fail('expected ' + description['size'] + ' bytes, got ' + bytes.length + ' (rebuild the program?)');
    }
  }

  function load() {
    var url = locateFile(description['package']);
    if (ENVIRONMENT_IS_NODE) {
      try {
        received(require('fs').readFileSync(url));
      } catch (e) {
        fail(e.message);
      }
      return;
    }
    addRunDependency('wasmscale-preload');
    fetch(url, { credentials: 'same-origin' }).then(function(response) {
      if (!response.ok) throw new Error('HTTP ' + response.status + ' for ' + url);
      return response.arrayBuffer();
    }).then(function(buffer) {
      received(buffer);
      removeRunDependency('wasmscale-preload');
    }, function(e) {
      fail(e.message);
    });
  }

  function populate() {
    var fs = Module['wasmscaleFS'];
    function makeDirs(path) {  // mkdir -p
      var parts = path.split('/'), at = '';
      for (var i = 1; i < parts.length; i++) {
        at += '/' + parts[i];
        try { fs.mkdir(at); } catch (e) { if (e.code !== 'EEXIST') fail(e.message); }
      }
    }
    description['directories'].forEach(makeDirs);
    description['files'].forEach(function(file) {
      makeDirs(file[0].slice(0, file[0].lastIndexOf('/')));
      try {
        fs.writeFile(file[0], bytes.subarray(file[1], file[2]));
      } catch (e) {
        fail(e.message);
      }
    });
    bytes = null;  // the files now hold the data
  }

  // Set up in preRun, after every --pre-js and the page's own Module settings are in place.
  Module['preRun'] = [].concat(Module['preRun'] || [], function() {
    load();
    var user = Module['onRuntimeInitialized'];
    Module['onRuntimeInitialized'] = function() {
      populate();
      if (user) user.apply(this, arguments);
    };
  });
})();
