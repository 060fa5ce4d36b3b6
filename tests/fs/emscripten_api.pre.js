// One script for Emscripten's FS API, run against a program built with Emscripten's JS file
// system and with wasmscale's (tests/fs.test.mjs compares the two outputs line by line). It
// mounts a host directory (WS_HOST_DIR) and writes files in preRun, as Emscripten programs do,
// then makes every call in onRuntimeInitialized, printing "name: value" per result. Values
// that differ by design are left out: the modes of files made without one (Emscripten's JS
// file system ignores the umask), readlink of relative targets (3.1.6 resolved them), the
// atime utime sets (3.1.6's JS file system keeps one time for both), '.' and '..' in a NODEFS
// directory (3.1.6 lists neither), st_dev and inodes.
function show(name, value) { console.log(name + ': ' + JSON.stringify(value)); }
function errnoOf(action) {
  try {
    action();
    return 'no error';
  } catch (e) {
    return [e.errno, e instanceof FS.ErrnoError];
  }
}

Module.preRun = [function() {
  FS.mkdir('/work');
  FS.writeFile('/work/pre.txt', 'written in preRun');
  FS.mkdir('/host');
  FS.mount(NODEFS, { root: process.env.WS_HOST_DIR }, '/host');
  FS.createPath('/', 'pkg/data', true, true);
  FS.createDataFile('/pkg/data', 'packed.txt', 'packed by createDataFile', true, false);
  FS.createLazyFile('/pkg/data', 'lazy.txt', process.env.WS_HOST_DIR + '/lazy-source.txt', true, false);
}];

Module.onRuntimeInitialized = function() {
  show('preRun file', FS.readFile('/work/pre.txt', { encoding: 'utf8' }));
  show('createDataFile', [FS.readFile('/pkg/data/packed.txt', { encoding: 'utf8' }),
                          FS.stat('/pkg/data/packed.txt').mode & 511]);

  // Read before anything asks its size (readFile, stat): Emscripten's JS file system on Node
  // knows a lazy file's size only once a read has loaded it, and fails before.
  var lazyStream = FS.open('/pkg/data/lazy.txt', 'r'), part = new Uint8Array(30);
  var partLength = FS.read(lazyStream, part, 0, 30, 48387 * 31);  // line 48387, in the second MiB
  FS.close(lazyStream);
  var lazy = FS.readFile('/pkg/data/lazy.txt', { encoding: 'utf8' });
  show('createLazyFile', [lazy.length, lazy.slice(0, 30), partLength, new TextDecoder().decode(part),
                          FS.stat('/pkg/data/lazy.txt').size, FS.stat('/pkg/data/lazy.txt').mode & 511]);

  var bytes = new Uint8Array(3000);
  for (var i = 0; i < bytes.length; i++) bytes[i] = (i * 13) & 255;
  FS.writeFile('/work/bytes.bin', bytes);
  var back = FS.readFile('/work/bytes.bin');
  show('binary round trip', [back instanceof Uint8Array, back.length, back.every(function(b, i) { return b === bytes[i]; })]);
  FS.writeFile('/work/log.txt', 'one,');
  FS.writeFile('/work/log.txt', 'two', { flags: 'a' });
  show('writeFile with flags a', FS.readFile('/work/log.txt', { encoding: 'utf8' }));

  FS.mkdirTree('/tree/a/b/c');
  FS.writeFile('/tree/a/b/file.txt', 'x');
  show('mkdirTree and readdir', FS.readdir('/tree/a/b').sort());
  show('mkdirTree over existing', errnoOf(function() { FS.mkdirTree('/tree/a/b'); }));

  var stat = FS.stat('/work/bytes.bin');
  show('stat', [stat.size, FS.isFile(stat.mode), FS.isDir(stat.mode), FS.isDir(FS.stat('/tree').mode),
                stat.mtime instanceof Date, stat.nlink]);

  FS.symlink('/work/pre.txt', '/work/link');
  show('readlink', FS.readlink('/work/link'));
  show('lstat of a link', [FS.isLink(FS.lstat('/work/link').mode), FS.isLink(FS.stat('/work/link').mode),
                           FS.isLink(FS.stat('/work/link', true).mode)]);
  show('read through a link', FS.readFile('/work/link', { encoding: 'utf8' }));

  FS.chmod('/work/log.txt', 384);
  show('chmod', FS.stat('/work/log.txt').mode & 511);
  FS.utime('/work/log.txt', 1000000, 2000000);
  show('utime', FS.stat('/work/log.txt').mtime.getTime());
  FS.truncate('/work/log.txt', 3);
  show('truncate', FS.readFile('/work/log.txt', { encoding: 'utf8' }));

  FS.rename('/work/log.txt', '/work/moved.txt');
  show('rename', [FS.readdir('/work').sort(), FS.readFile('/work/moved.txt', { encoding: 'utf8' })]);
  FS.unlink('/work/moved.txt');
  FS.mkdir('/work/empty');
  FS.rmdir('/work/empty');
  show('unlink and rmdir', FS.readdir('/work').sort());

  show('ENOENT', errnoOf(function() { FS.readFile('/work/missing'); }));
  show('EEXIST', errnoOf(function() { FS.mkdir('/work'); }));
  show('ENOTEMPTY', errnoOf(function() { FS.rmdir('/tree'); }));
  show('ENOTDIR', errnoOf(function() { FS.readdir('/work/pre.txt'); }));
  show('EISDIR', errnoOf(function() { FS.unlink('/tree'); }));

  function analyzed(path, dontResolve) {
    var found = FS.analyzePath(path, dontResolve);
    return [found.isRoot, found.exists, found.error, found.name, found.path, found.parentExists, found.parentPath];
  }
  show('analyzePath of a file', analyzed('/work/pre.txt'));
  show('analyzePath of a missing file', analyzed('/work/none.txt'));
  show('analyzePath in a missing directory', analyzed('/nowhere/none.txt'));
  show('analyzePath through a link', analyzed('/work/link'));
  show('analyzePath of the link itself', analyzed('/work/link', true));
  FS.mkdir('/work/deeper');
  FS.symlink('../pre.txt', '/work/deeper/relative');
  show('analyzePath through a relative link', analyzed('/work/deeper/relative'));
  FS.unlink('/work/deeper/relative');
  FS.rmdir('/work/deeper');
  show('analyzePath of the root', analyzed('/'));

  var stream = FS.open('/work/stream.bin', 'w+');
  show('write', FS.write(stream, new Uint8Array([1, 2, 3, 4, 5, 6]), 1, 4));
  show('position after write', stream.position);
  show('llseek', [FS.llseek(stream, 1, 0), FS.llseek(stream, 1, 1), FS.llseek(stream, 0, 2)]);
  var into = new Uint8Array(8);
  FS.llseek(stream, 0, 0);
  show('read', [FS.read(stream, into, 2, 8 - 2), Array.from(into)]);
  show('pread', [FS.read(stream, into, 0, 2, 1), Array.from(into.subarray(0, 2)), stream.position]);
  show('pwrite', [FS.write(stream, new Uint8Array([9, 9]), 0, 2, 0), stream.position]);
  FS.close(stream);
  show('after the stream', Array.from(FS.readFile('/work/stream.bin')));
  show('open of a missing file', errnoOf(function() { FS.open('/work/none', 'r'); }));
  show('exclusive create', errnoOf(function() { FS.open('/work/stream.bin', 64 | 128 | 1); }));  // O_CREAT|O_EXCL|O_WRONLY

  show('cwd', FS.cwd());
  FS.chdir('/work');
  show('chdir', [FS.cwd(), FS.readFile('pre.txt', { encoding: 'utf8' })]);
  FS.chdir('/');

  FS.writeFile('/host/from-script.txt', 'written through NODEFS');
  show('host file seen by Node', require('fs').readFileSync(process.env.WS_HOST_DIR + '/from-script.txt', 'utf8'));
  show('host directory', FS.readdir('/host').filter(function(name) { return name[0] !== '.'; }).sort());

  FS.mkdir('/mem');
  FS.mount(MEMFS, {}, '/mem');
  FS.writeFile('/mem/in-memory.txt', 'memfs');
  show('MEMFS mount', FS.readdir('/mem').sort());
  FS.unmount('/mem');
  show('after unmount', FS.readdir('/mem').sort());

  FS.syncfs(false, function(error) { show('syncfs callback', error); });
  show('syncfs returned', true);
};
