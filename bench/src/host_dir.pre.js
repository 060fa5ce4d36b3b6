// For the fs benchmark's host-file configurations (bench/runner/matrix.mjs, file systems
// 'host' and 'nodefs', Node only): /tmp, where the workload keeps its files, becomes the host
// directory the runner names in WASMSCALE_BENCH_HOST_DIR, through wasmscale's host backend or
// through Emscripten's NODEFS. Either way the files are real host files.
Module['preRun'] = [].concat(Module['preRun'] || [], function() {
  var dir = process.env['WASMSCALE_BENCH_HOST_DIR'];
  if (!dir) throw new Error('host_dir.pre.js: WASMSCALE_BENCH_HOST_DIR is not set');
  if (Module['wasmscaleFS']) {
    var user = Module['onRuntimeInitialized'];
    Module['onRuntimeInitialized'] = function() {  // the Wasm file system runs from here on
      Module['wasmscaleFS'].mount('/tmp', 'host', dir);
      if (user) user.apply(this, arguments);
    };
  } else {
    FS.mount(NODEFS, { root: dir }, '/tmp');
  }
});
