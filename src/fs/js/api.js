// The module's JavaScript file-system API, for the host page or Node script (and workers):
//   Module.wasmscaleFS.writeFile(path, data[, { mode }])   data: string (UTF-8) or bytes
//   Module.wasmscaleFS.readFile(path[, { encoding: 'utf8' }]) -> Uint8Array, or a string
//   Module.wasmscaleFS.mkdir(path[, mode]), rmdir(path), unlink(path), rename(from, to)
//   Module.wasmscaleFS.readdir(path) -> names, '.' and '..' first
//   Module.wasmscaleFS.stat(path), lstat(path) -> { dev, ino, mode, nlink, uid, gid, rdev,
//       size, blksize, blocks, atime, mtime, ctime (Dates) } with isFile() and isDirectory()
//   Module.wasmscaleFS.mount(path, type[, options]), unmount(path)   type: 'memory', or, in
//       programs that link that backend, 'host' (Node; options: the host directory) or
//       'opfs' (browsers; options: a directory in the origin's OPFS, default its root)
//   Module.wasmscaleFS.sync([path])   one file, or every open file, to its backend
//   Module.wasmscaleFS.symlink(target, path), readlink(path) -> string, chmod(path, mode),
//       utimes(path, atimeMs, mtimeMs), truncate(path, length), cwd() -> string, chdir(path)
//   Module.wasmscaleFS.open(path, flags[, mode]) -> fd   flags: the O_* numbers of the program's libc
//   Module.wasmscaleFS.read(fd, buffer, offset, length[, position]) -> bytes read into buffer
//       (a typed array) at offset; write(fd, buffer, offset, length[, position]) -> bytes
//       written; without a position, at the descriptor's, which moves
//   Module.wasmscaleFS.llseek(fd, offset, whence) -> new position; close(fd)
//   Module.wasmscaleFS.createLazy(path, url[, mode]) a file of the length `url` has now, whose
//       bytes are fetched on first read, 1 MiB at a time, by the thread that reads (in a
//       browser an http(s) URL; on Node a path or file: URL); mode 0444 unless given
// Each call runs synchronously in Wasm on the calling thread (no proxying), so it works while
// pthreads use the same files. A failure throws an Error whose `code` is the errno's name
// ('ENOENT') and `errno` its number, as Node's fs does. Emscripten's own FS API, on top of
// this one, is emscripten_fs.js's.
// Linked with --post-js by bin/wasmscale-cc --fs=wasmscale; it calls only the exports of
// api.c and the glue's wasmMemory, which every Emscripten release since 3.1 provides.
(function() {
  function exported(name) {
    var fn = typeof Module['_' + name] === 'function' ? Module['_' + name] : null;
    if (!fn && typeof wasmExports !== 'undefined' && wasmExports) fn = wasmExports[name];
    if (!fn && Module['asm']) fn = Module['asm'][name];
    if (!fn) throw new Error('wasmscaleFS: the runtime is not ready (call it from onRuntimeInitialized or later)');
    return fn;
  }
  function call(name) {
    return exported(name).apply(null, Array.prototype.slice.call(arguments, 1));
  }
  // A fresh view each time: memory may have grown (on any thread) since the last call.
  function bytes() { return new Uint8Array(wasmMemory.buffer); }

  function readCString(pointer) {
    var heap = bytes(), end = pointer;
    while (heap[end]) end++;
    return new TextDecoder().decode(heap.slice(pointer, end));  // a copy: no shared views
  }
  // `size` bytes of linear memory (free with ws_js_free), or ENOMEM naming `what`.
  function allocate(size, what) {
    var pointer = call('ws_js_alloc', size);
    if (!pointer) throw failure(-48 /* ENOMEM in Emscripten's numbering */, what);
    return pointer;
  }
  // Copies `data` into linear memory (NUL-terminated), runs use(pointer, length), frees it.
  function withBytes(data, use) {
    var length = data.length, pointer = allocate(length + 1, 'copying into Wasm memory');
    try {
      var heap = bytes();
      heap.set(data, pointer);
      heap[pointer + length] = 0;
      return use(pointer, length);
    } finally {
      call('ws_js_free', pointer);
    }
  }
  function encode(text) { return new TextEncoder().encode(String(text)); }
  // A path goes to C as a NUL-terminated string: one holding a NUL would be cut there and name
  // another file, so it is refused (EINVAL), as Node's fs refuses it.
  function withPath(path, use) {
    if (typeof path !== 'string') throw new TypeError('wasmscaleFS: a path must be a string');
    if (path.indexOf('\0') >= 0) throw failure(-28 /* EINVAL */, 'a path holding a NUL byte: ' + JSON.stringify(path));
    return withBytes(encode(path), use);
  }

  function failure(result, what) {
    var errno = -result, namePointer = call('ws_js_errno_name', errno);
    var code = namePointer ? readCString(namePointer) : 'E' + errno;
    var error = new Error(code + ': ' + readCString(call('ws_js_strerror', errno)) + ', ' + what);
    error.code = code;
    error.errno = errno;
    return error;
  }
  function check(result, what) {
    if (result < 0) throw failure(result, what);
    return result;
  }
  // Calls that hand back a buffer: result is its length, *out its address.
  function takeBuffer(name, path, what) {
    return withPath(path, function(pathPointer) { return takeBufferOf(name, [pathPointer], what); });
  }
  function takeBufferOf(name, args, what) {
    var out = allocate(4, what);
    try {
      var length = check(call.apply(null, [name].concat(args, [out])), what);
      var data = new DataView(wasmMemory.buffer).getUint32(out, true);
      var copy = bytes().slice(data, data + length);
      call('ws_js_free', data);
      return copy;
    } finally {
      call('ws_js_free', out);
    }
  }
  function decode(data) { return new TextDecoder().decode(data); }
  // The part of a typed array read or write names, as bytes.
  function byteRange(buffer, offset, length, what) {
    if (!ArrayBuffer.isView(buffer)) throw new TypeError('wasmscaleFS.' + what + ': buffer must be a typed array');
    var view = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    if (offset < 0 || length < 0 || offset + length > view.length) {
      throw failure(-28 /* EINVAL */, what + ': offset ' + offset + ' and length ' + length + ' outside a buffer of ' + view.length);
    }
    return view.subarray(offset, offset + length);
  }
  function position(value) { return value === undefined || value === null ? -1 : value; }

  function makeStat(values) {
    var names = ['dev', 'ino', 'mode', 'nlink', 'uid', 'gid', 'rdev', 'size', 'blksize', 'blocks'];
    var stat = {};
    names.forEach(function(name, i) { stat[name] = values[i]; });
    stat.atime = new Date(values[10]);
    stat.mtime = new Date(values[11]);
    stat.ctime = new Date(values[12]);
    stat.isFile = function() { return (stat.mode & 0xF000) === 0x8000; };
    stat.isDirectory = function() { return (stat.mode & 0xF000) === 0x4000; };
    stat.isSymbolicLink = function() { return (stat.mode & 0xF000) === 0xA000; };
    return stat;
  }
  function stat(path, follow) {
    return withPath(path, function(pathPointer) {
      var out = allocate(13 * 8, (follow ? 'stat ' : 'lstat ') + path);
      try {
        check(call('ws_js_stat', pathPointer, out, follow ? 1 : 0), (follow ? 'stat ' : 'lstat ') + path);
        return makeStat(Array.from(new Float64Array(wasmMemory.buffer, out, 13)));
      } finally {
        call('ws_js_free', out);
      }
    });
  }

  // The byte length of the file `url` names, asked synchronously: on Node a path or file: URL
  // (stat), in a browser a HEAD request's Content-Length (a compressed answer's would not be
  // the file's length, so that is refused).
  var STAT_ERRNO = { ENOENT: 44, EACCES: 2, ENOTDIR: 54 }, EIO = 29, EOPNOTSUPP = 138;
  function sourceLength(url) {
    var what = 'createLazy from ' + url;
    if (typeof ENVIRONMENT_IS_NODE !== 'undefined' && ENVIRONMENT_IS_NODE) {
      var isFileUrl = /^file:/i.test(url);
      if (!isFileUrl && /^[a-z][a-z0-9+.-]*:\/\//i.test(url)) throw failure(-EOPNOTSUPP, what + ' (Node reads paths and file: URLs)');
      try {
        return require('fs').statSync(isFileUrl ? require('url').fileURLToPath(url) : url).size;
      } catch (e) {
        throw failure(-(STAT_ERRNO[e.code] || EIO), what);
      }
    }
    var request = new XMLHttpRequest(), problem = null;
    try {
      request.open('HEAD', url, false);
      request.send(null);
    } catch (e) {
      problem = String(e && e.message || e);
    }
    var length = problem === null ? request.getResponseHeader('Content-Length') : null;
    if (problem === null && (request.status < 200 || request.status > 299)) problem = 'HTTP ' + request.status;
    if (problem === null && length === null) problem = 'no Content-Length';
    if (problem === null && request.getResponseHeader('Content-Encoding')) problem = 'served compressed';
    if (problem !== null) throw failure(-EIO, what + ': ' + problem);
    return Number(length);
  }

  var api = {
    writeFile: function(path, data, options) {
      var mode = options && options.mode !== undefined ? options.mode : 438;  // 0666, less the umask
      var content = typeof data === 'string' ? encode(data)
                  : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
                  : data instanceof ArrayBuffer ? new Uint8Array(data) : null;
      if (!content) throw new TypeError('wasmscaleFS.writeFile: data must be a string, an ArrayBuffer or a typed array');
      withPath(path, function(pathPointer) {
        withBytes(content, function(dataPointer, length) {
          check(call('ws_js_write_file', pathPointer, dataPointer, length, mode), 'writeFile ' + path);
        });
      });
    },
    readFile: function(path, options) {
      var data = takeBuffer('ws_js_read_file', path, 'readFile ' + path);
      var encoding = typeof options === 'string' ? options : options && options.encoding;
      return encoding === 'utf8' || encoding === 'utf-8' ? new TextDecoder().decode(data) : data;
    },
    mkdir: function(path, mode) {
      withPath(path, function(p) { check(call('ws_js_mkdir', p, mode === undefined ? 511 : mode), 'mkdir ' + path); });
    },
    rmdir: function(path) { withPath(path, function(p) { check(call('ws_js_rmdir', p), 'rmdir ' + path); }); },
    unlink: function(path) { withPath(path, function(p) { check(call('ws_js_unlink', p), 'unlink ' + path); }); },
    rename: function(from, to) {
      withPath(from, function(f) {
        withPath(to, function(t) { check(call('ws_js_rename', f, t), 'rename ' + from + ' to ' + to); });
      });
    },
    readdir: function(path) {
      var text = new TextDecoder().decode(takeBuffer('ws_js_readdir', path, 'readdir ' + path));
      return text ? text.slice(0, -1).split('\0') : [];
    },
    stat: function(path) { return stat(path, true); },
    lstat: function(path) { return stat(path, false); },
    mount: function(path, type, options) {
      var what = 'mount ' + type + ' at ' + path;
      withPath(path, function(p) {
        withPath(String(type), function(t) {
          withPath(options === undefined ? '' : String(options), function(o) {
            var result = call('ws_js_mount', p, t, o);
            if (result < 0) {
              var error = failure(result, what);
              if (error.code === 'ENODEV') {
                error.message += ' (types: memory; host or opfs, in programs built with wasmscale-cc --backend=host|opfs or --mount)';
              }
              throw error;
            }
          });
        });
      });
    },
    unmount: function(path) { withPath(path, function(p) { check(call('ws_js_unmount', p), 'unmount ' + path); }); },
    sync: function(path) {
      withPath(path === undefined ? '' : path, function(p) { check(call('ws_js_sync', p), 'sync ' + (path || '')); });
    },
    symlink: function(target, path) {
      withPath(target, function(t) {
        withPath(path, function(p) { check(call('ws_js_symlink', t, p), 'symlink ' + path + ' to ' + target); });
      });
    },
    readlink: function(path) { return decode(takeBuffer('ws_js_readlink', path, 'readlink ' + path)); },
    chmod: function(path, mode) {
      withPath(path, function(p) { check(call('ws_js_chmod', p, mode, 1), 'chmod ' + path); });
    },
    utimes: function(path, atimeMs, mtimeMs) {
      withPath(path, function(p) { check(call('ws_js_utime', p, +atimeMs, +mtimeMs), 'utimes ' + path); });
    },
    truncate: function(path, length) {
      withPath(path, function(p) { check(call('ws_js_truncate', p, length === undefined ? 0 : +length), 'truncate ' + path); });
    },
    cwd: function() { return decode(takeBufferOf('ws_js_getcwd', [], 'cwd')); },
    chdir: function(path) { withPath(path, function(p) { check(call('ws_js_chdir', p), 'chdir ' + path); }); },
    open: function(path, flags, mode) {
      return withPath(path, function(p) {
        return check(call('ws_js_open', p, flags | 0, mode === undefined ? 438 : mode), 'open ' + path);
      });
    },
    createLazy: function(path, url, mode) {
      url = String(url);
      var length = sourceLength(url);
      withPath(path, function(p) {
        withPath(url, function(u) {
          check(call('ws_js_create_lazy', p, u, length, mode === undefined ? 292 /* 0444 */ : mode), 'createLazy ' + path);
        });
      });
    },
    close: function(fd) { check(call('ws_js_close', fd), 'close ' + fd); },
    read: function(fd, buffer, offset, length, at) {
      var target = byteRange(buffer, offset, length, 'read');
      var pointer = allocate(length, 'read into Wasm memory');
      try {
        var done = check(call('ws_js_transfer', fd, pointer, length, position(at), 0), 'read ' + fd);
        target.set(bytes().subarray(pointer, pointer + done));
        return done;
      } finally {
        call('ws_js_free', pointer);
      }
    },
    write: function(fd, buffer, offset, length, at) {
      return withBytes(byteRange(buffer, offset, length, 'write'), function(pointer) {
        return check(call('ws_js_transfer', fd, pointer, length, position(at), 1), 'write ' + fd);
      });
    },
    llseek: function(fd, offset, whence) { return check(call('ws_js_llseek', fd, +offset, whence | 0), 'llseek ' + fd); },
  };

  Module['wasmscaleFS'] = api;
})();
