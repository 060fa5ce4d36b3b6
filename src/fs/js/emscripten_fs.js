// Emscripten's FS API over wasmscale's file system: Module.FS, and FS, MEMFS, NODEFS and OPFS
// for the program's own --pre-js and --post-js code, so code written for Emscripten's file
// system runs unchanged. Every call goes to Module.wasmscaleFS (api.js), that is straight
// into Wasm on the calling thread; this file adapts names, argument orders and errors:
//   writeFile(path, data[, {flags, mode}]), readFile(path[, {encoding: 'utf8'|'binary', flags}]),
//   mkdir, mkdirTree, readdir, stat(path[, dontFollow]), lstat, unlink, rmdir, rename,
//   symlink(target, path), readlink (the target as stored, as POSIX and Emscripten 4 give it),
//   chmod, utime(path, atimeMs, mtimeMs), truncate, analyzePath, cwd, chdir,
//   isFile/isDir/isLink(mode), open(path, flags[, mode]) -> stream, read/write(stream,
//   buffer, offset, length[, position]), llseek, close,
//   mount(type, options, mountpoint) with MEMFS, NODEFS ({root: host directory}; programs
//   linked with the host backend), OPFS ({root: OPFS directory}) or IDBFS (the OPFS directory
//   idbfs/MOUNTPOINT: browsers' persistent files; both need the OPFS backend), unmount,
//   syncfs([populate, ]callback), createPath, createDataFile, createPreloadedFile,
//   createLazyFile(parent, name, url, canRead, canWrite) (fetched on first read, from any
//   thread: wasmscaleFS.createLazy); and on
//   Module, the FS_* names and run dependencies emcc's file packager calls.
// A failure throws FS.ErrnoError with `errno` (the program's errno number) and `code`
// ('ENOENT'), as Emscripten's does. Before the runtime starts (preRun), calls that change
// files are queued until it does (below).
// Linked with --post-js after api.js by bin/wasmscale-cc --fs=wasmscale.
var FS, MEMFS, NODEFS, OPFS, IDBFS;
(function() {
  var ws = Module['wasmscaleFS'];
  // The program's open(2) flags (Emscripten's libc numbers them as Linux's generic ABI).
  var O_WRONLY = 1, O_RDWR = 2, O_CREAT = 64, O_EXCL = 128, O_TRUNC = 512, O_APPEND = 1024;
  var EEXIST = 20, ENOENT = 44, ELOOP = 32;  // the program's errno numbers for the errors made here
  var FLAGS = {
    'r': 0, 'r+': O_RDWR,
    'w': O_TRUNC | O_CREAT | O_WRONLY, 'wx': O_TRUNC | O_CREAT | O_WRONLY | O_EXCL,
    'w+': O_TRUNC | O_CREAT | O_RDWR, 'wx+': O_TRUNC | O_CREAT | O_RDWR | O_EXCL,
    'a': O_APPEND | O_CREAT | O_WRONLY, 'ax': O_APPEND | O_CREAT | O_WRONLY | O_EXCL,
    'a+': O_APPEND | O_CREAT | O_RDWR, 'ax+': O_APPEND | O_CREAT | O_RDWR | O_EXCL,
  };

  function ErrnoError(errno, code, message) {
    this.name = 'ErrnoError';
    this.errno = errno;
    this.code = code;
    this.message = message || 'FS error';
  }
  ErrnoError.prototype = Object.create(Error.prototype);
  ErrnoError.prototype.constructor = ErrnoError;

  // wasmscaleFS's errors as ErrnoError; others as they are.
  function asErrnoError(e) {
    return typeof e.errno === 'number' && !(e instanceof ErrnoError) ? new ErrnoError(e.errno, e.code, e.message) : e;
  }
  function errnoErrors(action) {
    return function() {
      try {
        return action.apply(null, arguments);
      } catch (e) {
        throw asErrnoError(e);
      }
    };
  }

  function openFlags(flags) {
    if (typeof flags === 'number') return flags;
    if (!(flags in FLAGS)) throw new Error('FS.open: unknown flags ' + JSON.stringify(flags));
    return FLAGS[flags];
  }
  function join(parent, name) {
    var base = typeof parent === 'string' ? parent : '/';
    return name ? (base.replace(/\/+$/, '') + '/' + name) : base;
  }
  // The directories createPath(parent, path) makes, outermost first.
  function directoriesOf(parent, path) {
    var made = [];
    path.split('/').forEach(function(part) {
      if (part) made.push(join(made.length ? made[made.length - 1] : parent, part));
    });
    return made;
  }
  // What createPath returns: the innermost of them (the parent when there are none).
  function createdPath(parent, path) {
    var made = directoriesOf(parent, path);
    return made.length ? made[made.length - 1] : join(parent);
  }
  function bytesOf(data) {
    if (typeof data === 'string') return new TextEncoder().encode(data);
    if (data instanceof ArrayBuffer) return new Uint8Array(data);
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    return Uint8Array.from(data);  // an array of byte values
  }
  // Emscripten's createDataFile takes a string as one byte per character.
  function charBytes(data) {
    if (typeof data !== 'string') return bytesOf(data);
    var out = new Uint8Array(data.length);
    for (var i = 0; i < data.length; i++) out[i] = data.charCodeAt(i);
    return out;
  }
  function modeFor(canRead, canWrite) { return (canRead ? 292 | 73 : 0) | (canWrite ? 146 : 0); }

  function Stream(fd, path, flags) {
    this.fd = fd;
    this.path = path;
    this.flags = flags;
  }
  Object.defineProperty(Stream.prototype, 'position', { get: function() { return ws.llseek(this.fd, 0, 1); } });

  function writeAll(stream, data, position) {
    for (var done = 0; done < data.length;) {
      done += ws.write(stream.fd, data, done, data.length - done, position === undefined ? undefined : position + done);
    }
  }

  // What Emscripten's lookupPath would find: the path with every link followed (the last one
  // only when follow), or an error.
  function resolve(path, follow) {
    var parts = (path.charAt(0) === '/' ? path : ws.cwd() + '/' + path).split('/');
    var done = [], links = 0;
    for (var i = 0; i < parts.length; i++) {
      var part = parts[i];
      if (part === '' || part === '.') continue;
      if (part === '..') {
        done.pop();
        continue;
      }
      var candidate = '/' + done.concat(part).join('/');
      var last = i === parts.length - 1 || parts.slice(i + 1).every(function(p) { return p === '' || p === '.'; });
      var info = ws.lstat(candidate);
      if (info.isSymbolicLink() && (follow || !last)) {
        if (++links > 40) throw new ErrnoError(ELOOP, 'ELOOP', 'too many symbolic links in ' + path);
        // Start over on the target and what followed the link: from the root for an absolute
        // target, else from the link's directory, whose names `done` holds.
        var target = ws.readlink(candidate);
        parts = (target.charAt(0) === '/' ? [] : done).concat(target.split('/'), parts.slice(i + 1));
        done = [];
        i = -1;
        continue;
      }
      done.push(part);
    }
    return '/' + done.join('/');
  }

  function analyzePath(path, dontResolveLastLink) {
    var found = { isRoot: false, exists: false, error: 0, name: null, path: null, object: null,
                  parentExists: false, parentPath: null, parentObject: null };
    try {
      path = resolve(path, !dontResolveLastLink);
    } catch (e) {
      // Left as given: the lookups below say what is missing.
    }
    try {
      var parent = path.replace(/\/+[^/]*\/*$/, '') || '/';
      found.parentPath = resolve(parent, true);
      found.parentObject = ws.stat(found.parentPath);
      if (!found.parentObject.isDirectory()) throw new ErrnoError(54 /* ENOTDIR */, 'ENOTDIR');
      found.parentExists = true;
      found.name = path.replace(/\/+$/, '').split('/').pop() || '/';
      found.path = resolve(path, !dontResolveLastLink);
      found.object = dontResolveLastLink ? ws.lstat(found.path) : ws.stat(found.path);
      found.exists = true;
      found.isRoot = found.path === '/';
    } catch (e) {
      found.error = typeof e.errno === 'number' ? e.errno : ENOENT;
      if (!found.exists) found.path = null;
    }
    return found;
  }

  function mountOptions(type, options, mountpoint) {
    if (type === NODEFS) {
      if (!options || typeof options.root !== 'string') throw new Error('FS.mount(NODEFS, {root: HOST_DIR}, mountpoint): root is missing');
      return options.root;
    }
    // IDBFS keeps a mount's files in a database named after its mount point; here, in an OPFS
    // directory named after it, written as they change (syncfs has nothing left to do).
    if (type === IDBFS) return 'idbfs/' + String(mountpoint).replace(/^\/+|\/+$/g, '');
    return type === OPFS && options && options.root ? String(options.root) : undefined;
  }

  // Writes reach the backends as they are made, so populating has nothing to load, and a sync
  // writes back what open files still hold, at once: the callback comes before syncfs returns,
  // as Emscripten's does for file systems that keep nothing to write back (MEMFS, NODEFS).
  function syncfs(populate, callback) {
    if (typeof populate === 'function') {
      callback = populate;
      populate = false;
    }
    var error = null;
    try {
      if (!populate) ws.sync();
    } catch (e) {
      error = asErrnoError(e);
    }
    if (callback) callback(error);
  }

  function readSource(url, onload, onerror) {
    if (typeof ENVIRONMENT_IS_NODE !== 'undefined' && ENVIRONMENT_IS_NODE && !/^https?:/.test(url)) {
      require('fs').readFile(url, function(error, data) { error ? onerror(error) : onload(new Uint8Array(data)); });
      return;
    }
    fetch(url, { credentials: 'same-origin' }).then(function(response) {
      if (!response.ok) throw new Error('HTTP ' + response.status + ' for ' + url);
      return response.arrayBuffer();
    }).then(function(buffer) { onload(new Uint8Array(buffer)); }, onerror);
  }

  // Before the runtime has started (in preRun, where Emscripten's own FS already works, and
  // where its file packager writes), the Wasm file system cannot run: the main thread's runtime
  // state is set up later. Calls that only change files (and syncfs, whose callback then comes
  // as the queue runs) are queued then and made in order as the runtime starts, before main;
  // calls that answer (readFile, stat, open...) throw, naming the hook to use instead.
  var CHANGES = ['writeFile', 'mkdir', 'mkdirTree', 'unlink', 'rmdir', 'rename', 'symlink', 'chmod', 'utime',
                 'truncate', 'chdir', 'mount', 'unmount', 'createPath', 'createDataFile', 'createLazyFile', 'syncfs'];
  var queued = null;
  function started() {
    return typeof runtimeInitialized === 'undefined' || runtimeInitialized ||
           (typeof ENVIRONMENT_IS_PTHREAD !== 'undefined' && ENVIRONMENT_IS_PTHREAD);
  }
  function beforeRuntime(name, action) {
    return function() {
      if (started()) return action.apply(null, arguments);
      if (CHANGES.indexOf(name) < 0) {
        throw new Error('FS.' + name + ' before the runtime has started: wasmscale\'s file system starts with it; ' +
                        'call it from Module.onRuntimeInitialized (calls that only change files may be made earlier)');
      }
      if (!queued) {
        queued = [];
        var user = Module['onRuntimeInitialized'];
        Module['onRuntimeInitialized'] = function() {
          var calls = queued;
          queued = null;
          calls.forEach(function(call) { call(); });
          if (user) user();
        };
      }
      var args = arguments;
      queued.push(function() { action.apply(null, args); });
      // What these return can be told without the file system: the path made.
      if (name === 'createDataFile' || name === 'createLazyFile') return join(args[0], args[1]);
      if (name === 'createPath') return createdPath(args[0], String(args[1]));
    };
  }

  var api = {
    ErrnoError: ErrnoError,
    filesystems: null,  // set below
    isFile: function(mode) { return (mode & 0xF000) === 0x8000; },
    isDir: function(mode) { return (mode & 0xF000) === 0x4000; },
    isLink: function(mode) { return (mode & 0xF000) === 0xA000; },
    writeFile: function(path, data, options) {
      options = options || {};
      var stream = api.open(path, options.flags === undefined ? 'w' : options.flags, options.mode);
      try {
        writeAll(stream, bytesOf(data), undefined);
      } finally {
        api.close(stream);
      }
    },
    readFile: function(path, options) {
      options = options || {};
      var encoding = options.encoding || 'binary';
      if (encoding !== 'utf8' && encoding !== 'binary') throw new Error('Invalid encoding type "' + encoding + '"');
      var data = ws.readFile(path);
      return encoding === 'utf8' ? new TextDecoder().decode(data) : data;
    },
    mkdir: function(path, mode) { ws.mkdir(path, mode === undefined ? 511 : mode); },
    mkdirTree: function(path, mode) {
      var dirs = path.split('/'), done = '';
      for (var i = 0; i < dirs.length; i++) {
        if (!dirs[i]) continue;
        done += '/' + dirs[i];
        try {
          api.mkdir(done, mode);
        } catch (e) {
          if (e.errno !== EEXIST) throw e;
        }
      }
    },
    readdir: function(path) { return ws.readdir(path); },
    stat: function(path, dontFollow) { return dontFollow ? ws.lstat(path) : ws.stat(path); },
    lstat: function(path) { return ws.lstat(path); },
    unlink: function(path) { ws.unlink(path); },
    rmdir: function(path) { ws.rmdir(path); },
    rename: function(from, to) { ws.rename(from, to); },
    symlink: function(target, path) { ws.symlink(target, path); },
    readlink: function(path) { return ws.readlink(path); },
    chmod: function(path, mode) { ws.chmod(path, mode); },
    utime: function(path, atime, mtime) { ws.utimes(path, atime, mtime); },
    truncate: function(path, length) { ws.truncate(path, length); },
    cwd: function() { return ws.cwd(); },
    chdir: function(path) { ws.chdir(path); },
    analyzePath: analyzePath,
    open: function(path, flags, mode) {
      var bits = openFlags(flags === undefined ? 'r' : flags);
      return new Stream(ws.open(path, bits, mode === undefined ? 438 : mode), path, bits);
    },
    close: function(stream) { ws.close(stream.fd); },
    read: function(stream, buffer, offset, length, position) { return ws.read(stream.fd, buffer, offset, length, position); },
    write: function(stream, buffer, offset, length, position) {
      return ws.write(stream.fd, ArrayBuffer.isView(buffer) ? buffer : Uint8Array.from(buffer), offset, length, position);
    },
    llseek: function(stream, offset, whence) { return ws.llseek(stream.fd, offset, whence); },
    mount: function(type, options, mountpoint) {
      if (!type || !type.wasmscaleType) throw new Error('FS.mount: the type must be one of MEMFS, NODEFS, OPFS, IDBFS');
      ws.mount(mountpoint, type.wasmscaleType, mountOptions(type, options, mountpoint));
    },
    unmount: function(mountpoint) { ws.unmount(mountpoint); },
    syncfs: syncfs,
    createPath: function(parent, path) {
      directoriesOf(parent, path).forEach(function(directory) {
        try {
          api.mkdir(directory);
        } catch (e) {
          // Exists already (or cannot be made: the next step says so), as Emscripten's does.
        }
      });
      return createdPath(parent, path);
    },
    createDataFile: function(parent, name, data, canRead, canWrite) {
      var path = join(parent, name), mode = modeFor(canRead, canWrite);
      if (data) {
        var stream = api.open(path, O_TRUNC | O_CREAT | O_WRONLY, mode | 146);
        try {
          writeAll(stream, charBytes(data), 0);
        } finally {
          api.close(stream);
        }
      } else {
        api.close(api.open(path, O_CREAT | O_WRONLY, mode | 146));
      }
      api.chmod(path, mode);
      return path;
    },
    createLazyFile: function(parent, name, url, canRead, canWrite) {
      var path = join(parent, name);
      ws.createLazy(path, url, modeFor(canRead, canWrite));
      return path;
    },
    createPreloadedFile: function(parent, name, url, canRead, canWrite, onload, onerror, dontCreateFile, canOwn, preFinish) {
      var path = join(parent, name), dependency = 'wasmscale-cp ' + path;
      var held = typeof addRunDependency === 'function';
      if (held) addRunDependency(dependency);
      function loaded(data) {
        if (preFinish) preFinish();
        if (!dontCreateFile) api.createDataFile(parent, name, data, canRead, canWrite, canOwn);
        if (onload) onload();
        if (held) removeRunDependency(dependency);
      }
      function failed(error) {
        if (onerror) onerror(error);
        else if (typeof abort === 'function') abort('FS.createPreloadedFile ' + path + ': ' + (error && error.message));
        if (held) removeRunDependency(dependency);
      }
      if (typeof url === 'string') readSource(url, loaded, failed);
      else loaded(url);
    },
  };
  for (var name in api) {
    if (typeof api[name] === 'function' && name !== 'ErrnoError' && !/^is(File|Dir|Link)$/.test(name)) {
      api[name] = beforeRuntime(name, errnoErrors(api[name]));
    }
  }

  MEMFS = { wasmscaleType: 'memory' };
  NODEFS = { wasmscaleType: 'host' };
  OPFS = { wasmscaleType: 'opfs' };
  IDBFS = { wasmscaleType: 'opfs' };
  api.filesystems = { MEMFS: MEMFS, NODEFS: NODEFS, OPFS: OPFS, IDBFS: IDBFS };
  FS = api;
  // What emcc's file packager (tools/packaged_files.py) and Emscripten's own code call on
  // Module, as Emscripten exports them; set by descriptor over any aborting "not exported" stub.
  var exports = { FS_createPath: api.createPath, FS_createDataFile: api.createDataFile,
                  FS_createPreloadedFile: api.createPreloadedFile, FS_createLazyFile: api.createLazyFile,
                  FS_unlink: api.unlink };
  if (typeof addRunDependency === 'function') {
    exports.addRunDependency = addRunDependency;
    exports.removeRunDependency = removeRunDependency;
  }
  for (var exported in exports) {
    Object.defineProperty(Module, exported, { value: exports[exported], configurable: true, writable: true, enumerable: true });
  }
  // Read the descriptor, not the property: a debug build puts an "FS was not exported" getter
  // or function there that aborts when used. A program's own Module.FS is left alone.
  var existing = Object.getOwnPropertyDescriptor(Module, 'FS');
  if (!existing || !existing.value || typeof existing.value.writeFile !== 'function') {
    Object.defineProperty(Module, 'FS', { value: api, configurable: true, writable: true, enumerable: true });
  }
})();
