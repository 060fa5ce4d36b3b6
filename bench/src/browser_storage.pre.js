// For the fs benchmark's browser-storage configurations (bench/runner/matrix.mjs, file systems
// 'opfs' and 'idbfs', Chromium only): /tmp, where the workload keeps its files, becomes
// persistent storage of the page's origin: a directory of OPFS through wasmscale's OPFS
// backend, or Emscripten's IDBFS. IDBFS keeps the files in memory and copies them to
// IndexedDB only when FS.syncfs is called, which the workload never does: its times leave
// that step out, while every OPFS write reaches the origin's storage.
Module['preRun'] = [].concat(Module['preRun'] || [], function() {
  if (Module['wasmscaleFS']) {
    var user = Module['onRuntimeInitialized'];
    Module['onRuntimeInitialized'] = function() {  // the Wasm file system runs from here on
      Module['wasmscaleFS'].mount('/tmp', 'opfs', 'wasmscale-bench');
      if (user) user.apply(this, arguments);
    };
  } else {
    FS.mount(IDBFS, {}, '/tmp');
  }
});
