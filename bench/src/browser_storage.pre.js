// For the fs benchmark's browser-storage configurations (bench/runner/matrix.mjs, file systems
// 'opfs', 'idbfs' and 'wasmfsopfs', Chromium only): /tmp, where the workload keeps its files,
// becomes persistent storage of the page's origin: a directory of OPFS through wasmscale's
// OPFS backend, the OPFS root through WasmFS's OPFS backend, or Emscripten's IDBFS. IDBFS keeps
// the files in memory and copies them to IndexedDB only when FS.syncfs is called, which the
// workload never does: its times leave that step out, while every OPFS write reaches the
// origin's storage. The Wasm file systems are mounted once the runtime is up.
Module['preRun'] = [].concat(Module['preRun'] || [], function() {
  var mountWasm = Module['wasmscaleFS'] ? function() { Module['wasmscaleFS'].mount('/tmp', 'opfs', 'wasmscale-bench'); }
                : typeof _wasmfs_create_opfs_backend != 'undefined' ? function() { FS.mount(OPFS, {}, '/tmp'); }
                : null;
  if (!mountWasm) {
    FS.mount(IDBFS, {}, '/tmp');
    return;
  }
  var user = Module['onRuntimeInitialized'];
  Module['onRuntimeInitialized'] = function() {
    mountWasm();
    if (user) user.apply(this, arguments);
  };
});
