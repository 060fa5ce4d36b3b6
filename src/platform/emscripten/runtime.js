// The Emscripten runtime helpers that wasmscale's JS libraries call (UTF8ToString,
// stringToUTF8, lengthBytesUTF8, addRunDependency, removeRunDependency, addOnPreRun, addOnExit)
// across releases: up to 3.1 they are part of every program's glue; later releases make them
// library symbols, which a library function must name in its __deps to get.
// wasmscaleRuntime(names) gives the __deps entries the release compiling the program needs:
// '$NAME' for each helper it has as a library symbol, nothing for the others. The driver loads
// this before wasmscale's other JS libraries, which use it in their __deps (a library sees the
// symbols of the libraries loaded before it).
var wasmscaleRuntime = function(names) {
  return names.filter(function(name) { return LibraryManager.library['$' + name] !== undefined; })
              .map(function(name) { return '$' + name; });
};
