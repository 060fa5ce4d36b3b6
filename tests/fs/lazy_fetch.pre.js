// The lazy files of tests/fs/lazy_fetch.c, made in preRun with Emscripten's
// FS.createLazyFile, as Emscripten programs make them: /lazy.bin from the source with ranges,
// /whole.bin from a server that ignores them (the browser; on Node both are the same path:
// WS_LAZY_SOURCE). Once the runtime has started, the main thread reads 16 bytes of /lazy.bin
// (in a browser, a synchronous request on the page's own thread) and prints them.
var lazySource = typeof process === 'object' && process.env && process.env.WS_LAZY_SOURCE;
Module.preRun = [function() {
  FS.createLazyFile('/', 'lazy.bin', lazySource || '/programs/lazy-source.bin', true, false);
  FS.createLazyFile('/', 'whole.bin', lazySource || '/programs/lazy-source.bin?whole', true, true);
}];
Module.onRuntimeInitialized = function() {
  var stream = FS.open('/lazy.bin', 'r'), bytes = new Uint8Array(16);
  var got = FS.read(stream, bytes, 0, 16, 1500000);
  FS.close(stream);
  console.log('lazy_fetch: the main thread read ' + got + ' bytes at 1500000: ' + Array.from(bytes).join(','));
};
