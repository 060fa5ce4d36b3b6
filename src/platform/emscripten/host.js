// Host files for the host-directory backend: Node's synchronous fs calls, made by the thread
// that needs them (a worker_thread calls its own `require('fs')`), never proxied to the main
// thread. Node's descriptors belong to the process, so one opened by any thread serves all.
// Errors come back as -errno in Emscripten's numbering; without Node every call is -ENODEV.
mergeInto(LibraryManager.library, {
  $wasmscaleHost__deps: ['$ERRNO_CODES'].concat(wasmscaleRuntime(['UTF8ToString', 'stringToUTF8', 'lengthBytesUTF8'])),
  $wasmscaleHost: {
    fs: null,
    // Node's module, or null in a browser.
    nodeFs: function() {
      if (!ENVIRONMENT_IS_NODE) return null;
      if (!wasmscaleHost.fs) {
        wasmscaleHost.fs = require('fs');
        // A worker that closes a descriptor another thread opened makes Node warn ("closed but
        // not opened in unmanaged mode"); sharing descriptors is the point here, so that one
        // warning is dropped. (Node closes a worker's descriptors when the worker ends, which
        // Emscripten's pooled workers do only at exit.)
        var emitWarning = process.emitWarning;
        process.emitWarning = function(warning) {
          if (/closed but not opened in unmanaged mode/.test(String(warning))) return;
          return emitWarning.apply(process, arguments);
        };
      }
      return wasmscaleHost.fs;
    },
    // Runs `call` with Node's fs; a thrown error becomes -errno.
    run: function(call) {
      var fs = wasmscaleHost.nodeFs();
      if (!fs) return -{{{ cDefine('ENODEV') }}};
      try {
        return call(fs);
      } catch (e) {
        var errno = e && ERRNO_CODES[e.code];
        return -(errno || {{{ cDefine('EIO') }}});
      }
    },
    // Views of Wasm memory, made again only once memory has grown: not one per call
    // (docs/decisions.md, "the host backend's cost per call").
    heap: null,
    view: null,
    memory: function() {
      if (!wasmscaleHost.heap || wasmscaleHost.heap.buffer !== wasmMemory.buffer) {
        wasmscaleHost.heap = new Uint8Array(wasmMemory.buffer);
        wasmscaleHost.view = new DataView(wasmMemory.buffer);
      }
      return wasmscaleHost.heap;
    },
    bytes: function(address, length) {
      return wasmscaleHost.memory().subarray(address, address + length);
    },
    // Writes Node's BigInt stats as struct ws_host_stat at `out`: mode, nlink (u32); dev, ino,
    // size, blocks (u64); three i64 seconds; three i32 nanoseconds.
    store: function(info, out) {
      wasmscaleHost.memory();
      var view = wasmscaleHost.view;
      view.setUint32(out, Number(info.mode), true);
      view.setUint32(out + 4, Number(info.nlink), true);
      view.setBigUint64(out + 8, info.dev, true);
      view.setBigUint64(out + 16, info.ino, true);
      view.setBigUint64(out + 24, info.size, true);
      view.setBigUint64(out + 32, info.blocks, true);
      // (No BigInt literals: Emscripten 3.1.6's JS optimizer cannot print them.)
      var times = [info.atimeNs, info.mtimeNs, info.ctimeNs], billion = BigInt(1000000000);
      for (var i = 0; i < 3; i++) {
        var seconds = times[i] / billion;
        view.setBigInt64(out + 40 + 8 * i, seconds, true);
        view.setInt32(out + 64 + 4 * i, Number(times[i] - seconds * billion), true);
      }
      return 0;
    },
    // The bytes of the C string at `address`, as a view of memory (no copy).
    cString: function(address) {
      var heap = wasmscaleHost.memory(), end = address;
      while (heap[end] !== 0) end++;
      return heap.subarray(address, end);
    },
    // The bytes of a C string, as Node takes a path (file names need not be UTF-8).
    name: function(address) {
      return Buffer.from(wasmscaleHost.cString(address));
    },
    // The path of held directory `dir`: its descriptor's /proc entry, which the kernel resolves
    // to the directory the descriptor holds, wherever it has been moved (Linux). /proc/PID, not
    // /proc/self: one symlink fewer to resolve on every call.
    held: function(dir) {
      return '/proc/' + process.pid + '/fd/' + dir;
    },
    // Entry `name` (a C string, one name) beneath held directory `dir`; the calls using it never
    // follow a symlink in that last name.
    at: function(dir, name) {
      var bytes = wasmscaleHost.cString(name), prefix = wasmscaleHost.held(dir) + '/';
      var path = Buffer.allocUnsafe(prefix.length + bytes.length);
      path.write(prefix, 0, 'latin1');
      path.set(bytes, prefix.length);
      return path;
    },
    // O_PATH (Linux's value; Node does not name it): a held directory needs no read permission.
    O_PATH: 0x200000,
  },

  _wasmscale_host_open_root__deps: ['$wasmscaleHost'],
  _wasmscale_host_open_root: function(path) {
    return wasmscaleHost.run(function(fs) {
      var c = fs.constants;
      var fd = fs.openSync(require('path').resolve(UTF8ToString(path)), wasmscaleHost.O_PATH | c.O_DIRECTORY);
      // Every later call reaches files through /proc/self/fd: without it (not Linux) nothing
      // could keep a held directory's meaning, so the mount is refused rather than left open.
      var own = fs.fstatSync(fd, {bigint: true}), seen = null;
      try { seen = fs.statSync(wasmscaleHost.held(fd), {bigint: true}); } catch (e) {}
      if (!seen || seen.dev !== own.dev || seen.ino !== own.ino) {
        fs.closeSync(fd);
        return -{{{ cDefine('EOPNOTSUPP') }}};
      }
      return fd;
    });
  },

  _wasmscale_host_open_dir__deps: ['$wasmscaleHost'],
  _wasmscale_host_open_dir: function(dir, name) {
    return wasmscaleHost.run(function(fs) {
      var c = fs.constants;
      return fs.openSync(wasmscaleHost.at(dir, name), wasmscaleHost.O_PATH | c.O_DIRECTORY | c.O_NOFOLLOW);
    });
  },

  _wasmscale_host_lstat__deps: ['$wasmscaleHost'],
  _wasmscale_host_lstat: function(dir, name, out) {
    return wasmscaleHost.run(function(fs) {
      // A missing name is a common answer (every create looks first): asked for without an
      // exception, which Node makes dear.
      var info = fs.lstatSync(wasmscaleHost.at(dir, name), {bigint: true, throwIfNoEntry: false});
      return info ? wasmscaleHost.store(info, out) : -{{{ cDefine('ENOENT') }}};
    });
  },

  _wasmscale_host_fstat__deps: ['$wasmscaleHost'],
  _wasmscale_host_fstat: function(fd, out) {
    return wasmscaleHost.run(function(fs) {
      return wasmscaleHost.store(fs.fstatSync(fd, {bigint: true}), out);
    });
  },

  _wasmscale_host_realpath__deps: ['$wasmscaleHost'],
  _wasmscale_host_realpath: function(path, out, size) {
    return wasmscaleHost.run(function(fs) {
      var resolved = fs.realpathSync(require('path').resolve(UTF8ToString(path)));
      if (lengthBytesUTF8(resolved) + 1 > size) return -{{{ cDefine('ENAMETOOLONG') }}};
      stringToUTF8(resolved, out, size);
      return 0;
    });
  },

  _wasmscale_host_open__deps: ['$wasmscaleHost'],
  _wasmscale_host_open: function(dir, name, how, mode) {
    return wasmscaleHost.run(function(fs) {
      var c = fs.constants;
      var flags = c.O_NOFOLLOW | ((how & 1) ? c.O_RDWR : c.O_RDONLY) | ((how & 2) ? c.O_CREAT | c.O_EXCL : 0);
      return fs.openSync(wasmscaleHost.at(dir, name), flags, mode);
    });
  },

  _wasmscale_host_close__deps: ['$wasmscaleHost'],
  _wasmscale_host_close: function(fd) {
    return wasmscaleHost.run(function(fs) { fs.closeSync(fd); return 0; });
  },

  _wasmscale_host_pread__deps: ['$wasmscaleHost'],
  _wasmscale_host_pread: function(fd, buffer, length, offset) {
    return wasmscaleHost.run(function(fs) {
      return fs.readSync(fd, wasmscaleHost.memory(), buffer, length, offset);
    });
  },

  _wasmscale_host_pwrite__deps: ['$wasmscaleHost'],
  _wasmscale_host_pwrite: function(fd, buffer, length, offset) {
    return wasmscaleHost.run(function(fs) {
      return fs.writeSync(fd, wasmscaleHost.memory(), buffer, length, offset);
    });
  },

  _wasmscale_host_ftruncate__deps: ['$wasmscaleHost'],
  _wasmscale_host_ftruncate: function(fd, size) {
    return wasmscaleHost.run(function(fs) { fs.ftruncateSync(fd, size); return 0; });
  },

  _wasmscale_host_fsync__deps: ['$wasmscaleHost'],
  _wasmscale_host_fsync: function(fd) {
    return wasmscaleHost.run(function(fs) { fs.fsyncSync(fd); return 0; });
  },

  _wasmscale_host_chmod__deps: ['$wasmscaleHost'],
  _wasmscale_host_chmod: function(fd, mode) {
    return wasmscaleHost.run(function(fs) { fs.chmodSync(wasmscaleHost.held(fd), mode); return 0; });
  },

  _wasmscale_host_utimes__deps: ['$wasmscaleHost'],
  // Times in seconds as doubles: Node takes no finer unit (exact to about a microsecond).
  _wasmscale_host_utimes: function(fd, atime, mtime) {
    return wasmscaleHost.run(function(fs) { fs.utimesSync(wasmscaleHost.held(fd), atime, mtime); return 0; });
  },

  _wasmscale_host_name_call__deps: ['$wasmscaleHost'],
  // The calls on entries beneath held directories: 0 mkdir, 1 rmdir, 2 unlink, 3 rename,
  // 4 link (the second entry's directory in `to_dir`), 5 symlink (`to` is the target).
  _wasmscale_host_name_call: function(call, dir, name, to_dir, to, mode) {
    return wasmscaleHost.run(function(fs) {
      var a = wasmscaleHost.at(dir, name);
      switch (call) {
        case 0: fs.mkdirSync(a, mode); break;
        case 1: fs.rmdirSync(a); break;
        case 2: fs.unlinkSync(a); break;
        case 3: fs.renameSync(a, wasmscaleHost.at(to_dir, to)); break;
        case 4: fs.linkSync(a, wasmscaleHost.at(to_dir, to)); break;
        case 5: fs.symlinkSync(wasmscaleHost.name(to), a); break;
        default: return -{{{ cDefine('EINVAL') }}};
      }
      return 0;
    });
  },

  _wasmscale_host_readlink__deps: ['$wasmscaleHost'],
  _wasmscale_host_readlink: function(dir, name, buffer, size) {
    return wasmscaleHost.run(function(fs) {
      var target = fs.readlinkSync(wasmscaleHost.at(dir, name), {encoding: 'buffer'});
      var length = Math.min(target.length, size);
      wasmscaleHost.bytes(buffer, length).set(target.subarray(0, length));
      return length;
    });
  },

  // Module.wasmscaleMounts ([[virtual, host], ...]), set by the driver's --mount pre-js (and
  // present in every worker, which runs the same pre-js).
  _wasmscale_host_startup_mounts__deps: wasmscaleRuntime(['stringToUTF8', 'lengthBytesUTF8']),
  _wasmscale_host_startup_mounts: function(buffer, size) {
    var mounts = Module['wasmscaleMounts'] || [];
    var needed = 0;
    for (var i = 0; i < mounts.length; i++) {
      for (var j = 0; j < 2; j++) {
        var length = lengthBytesUTF8(mounts[i][j]) + 1;
        if (needed + length <= size) stringToUTF8(mounts[i][j], buffer + needed, length);
        needed += length;
      }
    }
    return needed;
  },

  _wasmscale_host_list__deps: ['$wasmscaleHost'],
  _wasmscale_host_list: function(dir, buffer, size) {
    return wasmscaleHost.run(function(fs) {
      var prefix = Buffer.from(wasmscaleHost.held(dir) + '/');
      var entries = fs.readdirSync(wasmscaleHost.held(dir), {encoding: 'buffer'});
      var needed = 0;
      for (var i = 0; i < entries.length; i++) {
        var name = entries[i];
        var info = fs.lstatSync(Buffer.concat([prefix, name]), {bigint: true});
        if (needed + 10 + name.length <= size) {
          var out = wasmscaleHost.bytes(buffer + needed, 10 + name.length);
          out[0] = (Number(info.mode) >> 12) & 15;
          new DataView(out.buffer, out.byteOffset + 1, 8).setBigUint64(0, info.ino, true);
          out.set(name, 9);
          out[9 + name.length] = 0;
        }
        needed += 10 + name.length;
      }
      return needed;
    });
  },
});
