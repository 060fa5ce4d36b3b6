// On Node, the program's worker threads are made without descriptor tracking. wasmscale's host
// files are shared by every thread (host.js): a descriptor one thread opens, another may close.
// A Node worker tracks the descriptors it opens (trackUnmanagedFds, on by default) and closes
// them again when it ends, which then closes descriptors that are no longer its own (closed by
// another thread, their numbers perhaps reused for other files); Node also warns when a number it
// tracks comes back, and has been seen to abort at exit. Runs before the glue makes its threads:
// both the module's Worker (3.1.6's glue takes it after this) and the global one (later
// releases' glue has taken it already) become the untracked kind.
if (typeof process == 'object' && process.versions && process.versions.node) {
  (function() {
    var threads = require('worker_threads');
    if (threads.Worker.wasmscaleUntracked) return;
    var NodeWorker = threads.Worker;
    var Untracked = function(url, options) {
      return new NodeWorker(url, Object.assign({}, options, {trackUnmanagedFds: false}));
    };
    Untracked.prototype = NodeWorker.prototype;
    Untracked.wasmscaleUntracked = true;
    threads.Worker = Untracked;
    if (typeof global != 'undefined' && global.Worker === NodeWorker) global.Worker = Untracked;
  })();
}
