// The page's side of the OPFS backend: starts the I/O worker before the program runs and hands
// it the request queue (opfs.c and platform.h have the protocol; opfs_worker.js is the
// worker's program). Linked only into programs that mount OPFS (wasmscale-cc --backend=opfs).
mergeInto(LibraryManager.library, {
  $wasmscaleOpfs__deps: ['$wasmscaleOpfsWorker'].concat(wasmscaleRuntime(['addRunDependency', 'removeRunDependency', 'addOnPreRun', 'addOnExit'])),
  $wasmscaleOpfs: {
    worker: null,
    // preRun, on the page's main thread: the program's start waits (a run dependency) until the
    // worker has the memory and the OPFS root, because once main() runs, a thread waiting for
    // an answer may be the main thread itself, spinning, and a worker cannot start then.
    start: function() {
      if (typeof ENVIRONMENT_IS_PTHREAD != 'undefined' && ENVIRONMENT_IS_PTHREAD) return;
      if (typeof navigator == 'undefined' || !navigator.storage || !navigator.storage.getDirectory ||
          typeof Worker == 'undefined' || !(wasmMemory.buffer instanceof SharedArrayBuffer)) {
        return;  // Node, or no shared memory: OPFS calls answer ENODEV
      }
      addRunDependency('wasmscale-opfs');
      var source = '(' + wasmscaleOpfsWorker.toString() + ')();';
      var worker = new Worker(URL.createObjectURL(new Blob([source], {type: 'text/javascript'})));
      var settled = false;
      var done = function(problem) {
        if (settled) return;
        settled = true;
        if (problem) err('wasmscale: OPFS is not available here (' + problem + '); OPFS calls fail with ENODEV');
        else wasmscaleOpfs.worker = worker;
        removeRunDependency('wasmscale-opfs');
      };
      worker.onmessage = function(event) { done(event.data.error); };
      worker.onerror = function(event) { done(event.message || 'the I/O worker did not start'); };
      worker.postMessage({memory: wasmMemory});
    },
  },
  $wasmscaleOpfs__postset: 'addOnPreRun(function() { wasmscaleOpfs.start(); });',

  // From ws_prim_opfs_connect (main thread, before main): 1 if requests will be answered.
  _wasmscale_opfs_connect__deps: ['$wasmscaleOpfs'],
  _wasmscale_opfs_connect: function(queue) {
    var worker = wasmscaleOpfs.worker;
    if (!worker) return 0;
    worker.postMessage({queue: queue});
    addOnExit(function() { worker.terminate(); });  // after the C exit handlers closed every file
    return 1;
  },
});
