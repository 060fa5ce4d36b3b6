// For the fs benchmark's host-file configurations (bench/runner/matrix.mjs, file systems
// 'host', 'nodefs' and 'wasmfsnode', Node only): /tmp, where the workload keeps its files,
// becomes the host directory the runner names in WASMSCALE_BENCH_HOST_DIR, through wasmscale's
// host backend, Emscripten's NODEFS or WasmFS's Node backend. Either way the files are real
// host files. The Wasm file systems are mounted once the runtime is up (their state is made by
// the program's constructors); the JS FS before that.
Module['preRun'] = [].concat(Module['preRun'] || [], function() {
  var dir = process.env['WASMSCALE_BENCH_HOST_DIR'];
  if (!dir) throw new Error('host_dir.pre.js: WASMSCALE_BENCH_HOST_DIR is not set');
  var mountWasm = Module['wasmscaleFS'] ? function() { Module['wasmscaleFS'].mount('/tmp', 'host', dir); }
                : typeof _wasmfs_create_node_backend != 'undefined' ? function() { FS.mount(NODEFS, { root: dir }, '/tmp'); }
                : null;
  if (!mountWasm) {
    FS.mount(NODEFS, { root: dir }, '/tmp');
    return;
  }
  var user = Module['onRuntimeInitialized'];
  Module['onRuntimeInitialized'] = function() {
    mountWasm();
    if (user) user.apply(this, arguments);
  };
});
