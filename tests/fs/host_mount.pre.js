// For tests/fs/host.c run as "premounted": the host directory (its first argument) is mounted
// at /data from JavaScript before main, through Module.wasmscaleFS.mount, and synced after.
Module.onRuntimeInitialized = function() {
  var fs = Module.wasmscaleFS;
  fs.mkdir('/data');
  fs.mount('/data', 'host', process.argv[2]);
  fs.writeFile('/data/from-js.txt', 'written through the JS API\n');
  fs.sync('/data/from-js.txt');
  fs.unlink('/data/from-js.txt');
};
