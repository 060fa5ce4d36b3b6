// The host side of tests/fs/js_api.c: Module.wasmscaleFS before main, and again from the main
// thread while main's pthread waits (Module.checkOutputs). Failures are printed and counted.
var hostFailures = 0;
function hostExpect(condition, what) {
  if (!condition) {
    console.log('js-api host: ' + what);
    hostFailures++;
  }
}
function hostExpectError(code, what, action) {
  try {
    action();
    hostExpect(false, what + ': no error, expected ' + code);
  } catch (e) {
    hostExpect(e.code === code && typeof e.errno === 'number' && e.message.indexOf(code) === 0,
               what + ': got ' + e.code + ' (' + e.message + '), expected ' + code);
  }
}

Module.onRuntimeInitialized = function() {
  var fs = Module.wasmscaleFS;
  hostExpect(Module.FS === FS && FS !== fs && typeof FS.ErrnoError === 'function', "Module.FS is Emscripten's FS API");
  fs.mkdir('/input');
  fs.writeFile('/input/greeting.txt', 'h\u00e9llo from the host\n');
  var data = new Uint8Array(200000);
  for (var i = 0; i < data.length; i++) data[i] = (i * 7 + 3) & 255;
  fs.writeFile('/input/data.bin', data);
  fs.writeFile('/input/old.txt', new Uint8Array([1, 2, 3]).buffer);
  fs.rename('/input/old.txt', '/input/renamed.txt');
  hostExpect(fs.readFile('/input/greeting.txt', 'utf8') === 'h\u00e9llo from the host\n', 'readFile utf8');
  var back = fs.readFile('/input/data.bin');
  hostExpect(back instanceof Uint8Array && back.length === data.length && back.every(function(b, i) { return b === data[i]; }),
             'readFile returns the bytes written');
  var stat = fs.stat('/input/data.bin');
  hostExpect(stat.size === 200000 && stat.isFile() && !stat.isDirectory() && (stat.mode & 511) === 420,
             'stat of a file: size, type, mode 0644 (0666 less the umask)');
  hostExpect(stat.mtime instanceof Date && Math.abs(stat.mtime - Date.now()) < 60000, 'stat gives a recent mtime');
  hostExpect(fs.stat('/input').isDirectory(), 'stat of a directory');
  hostExpect(JSON.stringify(fs.readdir('/input').sort()) ===
             JSON.stringify(['.', '..', 'data.bin', 'greeting.txt', 'renamed.txt']), 'readdir lists the names');
  fs.mkdir('/input/empty');
  fs.rmdir('/input/empty');
  hostExpectError('EEXIST', 'mkdir of an existing directory', function() { fs.mkdir('/input'); });
  hostExpectError('ENOENT', 'readFile of a missing file', function() { fs.readFile('/input/missing'); });
  hostExpectError('ENOENT', 'stat of a missing file', function() { fs.stat('/nowhere/x'); });
  hostExpectError('ENOTDIR', 'readdir of a file', function() { fs.readdir('/input/data.bin'); });
  hostExpectError('ENOTEMPTY', 'rmdir of a full directory', function() { fs.rmdir('/input'); });
  hostExpectError('EISDIR', 'unlink of a directory', function() { fs.unlink('/input'); });
  hostExpectError('EISDIR', 'writeFile onto a directory', function() { fs.writeFile('/input', 'x'); });
  hostExpectError('ENOENT', 'rename of a missing file', function() { fs.rename('/input/missing', '/input/x'); });
  // Numbers C cannot take as integers are refused, not converted (NaN would trap in Wasm).
  hostExpectError('EINVAL', 'utimes with a NaN time', function() { fs.utimes('/input/data.bin', NaN, 0); });
  hostExpectError('EINVAL', 'truncate to an infinite length', function() { fs.truncate('/input/data.bin', Infinity); });
  // A NUL inside a path would cut it short in C and name another file: refused, as by Node's fs.
  hostExpectError('EINVAL', 'readFile of a path holding a NUL', function() { fs.readFile('/input/greeting.txt\0/../x'); });
  hostExpectError('EINVAL', 'writeFile to a path holding a NUL', function() { fs.writeFile('/input/new.txt\0x', 'x'); });
  hostExpectError('EINVAL', 'rename to a path holding a NUL', function() { fs.rename('/input/data.bin', '/input/y\0'); });
  // mount, sync, unmount: a memory file system mounted over an empty directory and taken away.
  fs.mkdir('/scratch');
  fs.mount('/scratch', 'memory');
  fs.writeFile('/scratch/kept.txt', 'in the mounted file system');
  hostExpect(fs.stat('/scratch').dev !== fs.stat('/input').dev, 'a mount has its own st_dev');
  fs.sync('/scratch/kept.txt');
  fs.sync();
  hostExpectError('EXDEV', 'rename across mounts', function() { fs.rename('/scratch/kept.txt', '/input/kept.txt'); });
  hostExpectError('EBUSY', 'mounting over a mount', function() { fs.mount('/scratch', 'memory'); });
  hostExpectError('ENOTEMPTY', 'mounting over a directory with files', function() { fs.mount('/input', 'memory'); });
  hostExpectError('ENODEV', 'an unknown backend type', function() { fs.mount('/input/x', 'nfs'); });
  try {
    fs.mount('/scratch/host', 'host', '.');
    hostExpect(false, 'the host backend mounted in a program that does not link it');
  } catch (e) {
    hostExpect(e.code === 'ENODEV' && /--backend=host/.test(e.message), 'an unlinked backend is named: ' + e.message);
  }
  hostExpectError('EINVAL', 'unmount of a plain directory', function() { fs.unmount('/input'); });
  fs.unmount('/scratch');
  hostExpect(JSON.stringify(fs.readdir('/scratch')) === '[".",".."]', 'the directory under the mount is empty again');
  hostExpectError('ENOENT', 'sync of a missing file', function() { fs.sync('/scratch/kept.txt'); });
  fs.rmdir('/scratch');
  console.log('js-api host: before main: ' + (hostFailures === 0 ? 'ok' : hostFailures + ' failed'));
};

Module.checkOutputs = function(threads) {
  var fs = Module.wasmscaleFS, before = hostFailures;
  var names = fs.readdir('/output').filter(function(name) { return name[0] !== '.'; }).sort();
  hostExpect(names.length === threads, 'readdir /output: ' + names.join(' '));
  for (var t = 0; t < threads; t++) {
    hostExpect(fs.readFile('/output/t' + t + '.txt', { encoding: 'utf8' }) === 'thread ' + t + ' done\n',
               'the output of thread ' + t);
  }
  fs.unlink('/output/t0.txt');
  console.log('js-api host: outputs: ' + (hostFailures === before ? 'ok' : (hostFailures - before) + ' failed'));
  return hostFailures;
};
