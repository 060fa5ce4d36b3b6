// The OPFS I/O worker's program. opfs.js starts it from this function's text (a Blob), so it
// must use nothing from outside its own body. It owns every FileSystemSyncAccessHandle of the
// program and answers the requests threads push onto the queue in Wasm memory (the layout is
// platform.h's ws_opfs_request): it takes the whole list, answers in arrival order, writes each
// result and wakes its caller.
//
// OPFS has files and directories only: no links, modes or inode numbers. Inode numbers are
// made up per path for this session. Opening a handle costs about a millisecond, so a file's
// handle stays open for IDLE_MS after its last close, and a reopen in that time reuses it (the
// lock on the file lasts as long; exit releases every handle). A file with an open handle can
// be neither removed nor moved, so: unlinking a file that is still open copies it into memory
// (up to COPY_MAX bytes) or moves it into a hidden directory, where POSIX's "an unlinked open
// file stays readable" holds until its last close; renaming one closes, moves and reopens it.
// Directories cannot be moved in OPFS, so a directory rename moves its files one by one into
// a new directory: not atomic, unlike POSIX (docs/filesystem.md).
mergeInto(LibraryManager.library, {
  $wasmscaleOpfsWorker: function() {
    var E = {
      ENOENT: {{{ cDefine('ENOENT') }}}, EEXIST: {{{ cDefine('EEXIST') }}}, ENOTDIR: {{{ cDefine('ENOTDIR') }}},
      EISDIR: {{{ cDefine('EISDIR') }}}, ENOTEMPTY: {{{ cDefine('ENOTEMPTY') }}}, EBUSY: {{{ cDefine('EBUSY') }}},
      ENOSPC: {{{ cDefine('ENOSPC') }}}, EACCES: {{{ cDefine('EACCES') }}}, EINVAL: {{{ cDefine('EINVAL') }}},
      EBADF: {{{ cDefine('EBADF') }}}, EIO: {{{ cDefine('EIO') }}}, ENAMETOOLONG: {{{ cDefine('ENAMETOOLONG') }}},
    };
    var CALLS = [null, 'lstat', 'fstat', 'realpath', 'open', 'close', 'pread', 'pwrite', 'truncate', 'flush',
                 'mkdir', 'rmdir', 'unlink', 'rename', 'list', 'closeAll'];
    var UNLINKED = '.wasmscale-unlinked';  // at the OPFS root: open files that were unlinked
    var IDLE_MS = 500, IDLE_MAX = 64, COPY_MAX = 1 << 20;
    var memory, queue, root, unlinked, u8, i32, f64, view, seen = -1;
    var started = Date.now(), nextIno = 2, unlinkedCount = 0;
    var inos = new Map([['', 1]]);   // path -> inode number
    // descriptor -> {path, handle, sync, opens (0: idle since `idle`), ino, mtime, unlinked,
    // unlinkedName (set when it was moved to UNLINKED rather than copied)}
    var files = new Map();
    var byPath = new Map();          // path -> descriptor, while open and not unlinked
    var dirs = new Map();            // path -> FileSystemDirectoryHandle
    var decoder = new TextDecoder(), encoder = new TextEncoder();

    function failure(errno) { return {errno: errno}; }
    // Chromium throws DOMExceptions; Firefox throws some failures as plain objects named after
    // its own codes (a full quota: NS_ERROR_FILE_NO_DEVICE_SPACE, result 0x80520010).
    function errnoOf(e) {
      if (e && e.errno) return e.errno;
      if (e && e.result === 0x80520010) return E.ENOSPC;
      switch (e && e.name) {
        case 'NotFoundError': return E.ENOENT;
        case 'TypeMismatchError': return E.ENOTDIR;
        case 'NoModificationAllowedError': return E.EBUSY;
        case 'InvalidModificationError': return E.ENOTEMPTY;
        case 'QuotaExceededError': case 'NS_ERROR_FILE_NO_DEVICE_SPACE': return E.ENOSPC;
        case 'NotAllowedError': case 'SecurityError': return E.EACCES;
        case 'TypeError': return E.EINVAL;
      }
      console.error('wasmscale OPFS worker:', e);
      return E.EIO;
    }
    function views() {
      if (memory.buffer.byteLength === seen) return;
      var buffer = memory.buffer;
      u8 = new Uint8Array(buffer);
      i32 = new Int32Array(buffer);
      f64 = new Float64Array(buffer);
      view = new DataView(buffer);
      seen = buffer.byteLength;
    }
    function text(address) {
      if (!address) return '';
      return decoder.decode(u8.slice(address, u8.indexOf(0, address)));  // (no decoding of shared memory)
    }
    function names(path) { return path.split('/').filter(function(n) { return n !== ''; }); }
    function parentOf(path) { return path.slice(0, path.lastIndexOf('/')); }
    function leafOf(path) { return path.slice(path.lastIndexOf('/') + 1); }
    function inoOf(path) {
      var ino = inos.get(path);
      if (!ino) inos.set(path, ino = nextIno++);
      return ino;
    }
    function within(path, top) { return path === top || path.startsWith(top + '/'); }
    // What is known about paths at or below `from` now holds for `to` (null: they are gone).
    // Directory handles are dropped rather than moved: a moved directory is a new one.
    function repath(from, to) {
      [inos, byPath, dirs].forEach(function(map) {
        Array.from(map.keys()).forEach(function(key) {
          if (!within(key, from)) return;
          var value = map.get(key);
          map.delete(key);
          if (to !== null && map !== dirs) map.set(to + key.slice(from.length), value);
        });
      });
      files.forEach(function(file) {
        if (to !== null && !file.unlinked && within(file.path, from)) file.path = to + file.path.slice(from.length);
      });
    }

    async function dirAt(path) {
      var found = path === '' ? root : dirs.get(path);
      if (found) return found;
      var parent = await dirAt(parentOf(path));
      var dir = await parent.getDirectoryHandle(leafOf(path));
      dirs.set(path, dir);
      return dir;
    }
    // {kind, handle} of what `path` names; throws ENOENT.
    async function entryAt(path) {
      if (path === '' || dirs.has(path)) return {kind: 'directory', handle: await dirAt(path)};
      var parent = await dirAt(parentOf(path));
      try {
        return {kind: 'file', handle: await parent.getFileHandle(leafOf(path))};
      } catch (e) {
        if (e.name !== 'TypeMismatchError') throw e;
      }
      return {kind: 'directory', handle: await dirAt(path)};
    }
    // entryAt's answer, or null where nothing is.
    async function entryOrNull(path) {
      try {
        return await entryAt(path);
      } catch (e) {
        if (errnoOf(e) === E.ENOENT) return null;
        throw e;
      }
    }
    // A page that has just been (re)loaded may find the worker of the page before it still
    // letting go of its handles, so for a few seconds after start a locked file is retried;
    // later a lock is another tab's, and the answer is EBUSY at once.
    async function openHandle(handle) {
      for (;;) {
        try {
          return await handle.createSyncAccessHandle();
        } catch (e) {
          if (e.name !== 'NoModificationAllowedError' || Date.now() - started > 3000) throw e;
          await new Promise(function(resolve) { setTimeout(resolve, 20); });
        }
      }
    }
    function fileOf(fd) {
      var file = files.get(fd);
      if (!file) throw failure(E.EBADF);
      return file;
    }
    function freeDescriptor() {
      var fd = 0;
      while (files.has(fd)) fd++;
      return fd;
    }
    // Writes struct ws_host_stat (platform.h) at `out`.
    function storeStat(out, mode, ino, size, mtimeMs) {
      view.setUint32(out, mode, true);
      view.setUint32(out + 4, (mode & 0xf000) === 0x4000 ? 2 : 1, true);
      view.setBigUint64(out + 8, BigInt(0), true);  // dev: OPFS is one device
      view.setBigUint64(out + 16, BigInt(ino), true);
      view.setBigUint64(out + 24, BigInt(size), true);
      view.setBigUint64(out + 32, BigInt(Math.ceil(size / 512)), true);
      var seconds = Math.floor(mtimeMs / 1000), nanoseconds = Math.round((mtimeMs - seconds * 1000) * 1e6);
      for (var i = 0; i < 3; i++) {
        view.setBigInt64(out + 40 + 8 * i, BigInt(seconds), true);
        view.setInt32(out + 64 + 4 * i, nanoseconds, true);
      }
    }
    async function statFile(file, handle, ino, out) {
      var size = file ? file.sync.getSize() : (await handle.getFile()).size;
      var mtime = file && file.mtime ? file.mtime : (await handle.getFile()).lastModified;
      if (file) file.mtime = mtime;  // from here on the worker sees every change
      storeStat(out, 0x81a4, ino, size, mtime);  // S_IFREG | 0644
    }
    // An unlinked open file's data, held in memory: the calls of a sync access handle.
    function memoryFile(data) {
      return {
        read: function(view, at) {
          var part = data.subarray(Math.min(at.at, data.length), Math.min(at.at + view.length, data.length));
          view.set(part);
          return part.length;
        },
        write: function(view, at) {
          if (at.at + view.length > data.length) this.truncate(at.at + view.length);
          data.set(view, at.at);
          return view.length;
        },
        truncate: function(size) {
          var grown = new Uint8Array(size);
          grown.set(data.subarray(0, Math.min(size, data.length)));
          data = grown;
        },
        getSize: function() { return data.length; },
        flush: function() {},
        close: function() {},
      };
    }
    function release(fd) {
      var file = files.get(fd);
      file.sync.close();
      files.delete(fd);
      byPath.delete(file.path);
    }
    // Handles idle longer than IDLE_MS (all with `all`) are closed, letting go of their files.
    function releaseIdle(all) {
      var now = performance.now();
      files.forEach(function(file, fd) { if (file.opens === 0 && (all || now - file.idle >= IDLE_MS)) release(fd); });
    }
    function idleCount() {
      var count = 0;
      files.forEach(function(file) { if (file.opens === 0) count++; });
      return count;
    }
    // The file moves out of the way of its name (unlinked or replaced). Nobody holds an idle
    // handle's file, so it simply goes; an open one stays readable, copied or moved aside.
    async function setAside(fd) {
      var file = files.get(fd), dir = await dirAt(parentOf(file.path));
      if (file.opens === 0) {
        release(fd);
        await dir.removeEntry(leafOf(file.path));
        return;
      }
      if (file.sync.getSize() <= COPY_MAX) {
        var data = new Uint8Array(file.sync.getSize());
        file.sync.read(data, {at: 0});
        file.sync.close();
        file.sync = memoryFile(data);
        await dir.removeEntry(leafOf(file.path));
      } else {
        file.sync.close();
        file.unlinkedName = 'f' + unlinkedCount++;
        await file.handle.move(unlinked, file.unlinkedName);
        file.sync = await file.handle.createSyncAccessHandle();
      }
      file.unlinked = true;
      byPath.delete(file.path);
    }
    async function moveFile(from, toDir, toPath) {
      if (files.has(byPath.get(from)) && files.get(byPath.get(from)).opens === 0) release(byPath.get(from));
      var fd = byPath.get(from), file = files.get(fd);
      if (byPath.has(toPath)) await setAside(byPath.get(toPath));
      if (file) file.sync.close();
      var handle = file ? file.handle : (await entryAt(from)).handle;
      try {
        await handle.move(toDir, leafOf(toPath));
      } finally {
        if (file) file.sync = await file.handle.createSyncAccessHandle();
      }
    }
    async function moveDirectory(from, to) {
      var source = await dirAt(from), target = await (await dirAt(parentOf(to))).getDirectoryHandle(leafOf(to), {create: true});
      var entries = [];
      for await (var pair of source.entries()) entries.push(pair);
      for (var i = 0; i < entries.length; i++) {
        var name = entries[i][0], child = from + '/' + name;
        if (entries[i][1].kind === 'file') await moveFile(child, target, to + '/' + name);
        else await moveDirectory(child, to + '/' + name);
      }
      await (await dirAt(parentOf(from))).removeEntry(leafOf(from));
      dirs.delete(from);
    }

    var calls = {
      lstat: async function(r) {
        var path = text(r.path);
        if (byPath.has(path)) {  // open or idle here: no need to ask the browser
          var known = files.get(byPath.get(path));
          await statFile(known, known.handle, known.ino, r.buffer);
          i32[(r.address + 12) >> 2] = byPath.get(path);
          return 0;
        }
        var entry = await entryAt(path);
        if (entry.kind === 'directory') {
          storeStat(r.buffer, 0x41ed, inoOf(path), 0, started);  // S_IFDIR | 0755
          return 0;
        }
        var fd = byPath.has(path) ? byPath.get(path) : -1;
        await statFile(files.get(fd), entry.handle, inoOf(path), r.buffer);
        i32[(r.address + 12) >> 2] = fd;  // the client knows the size of an open file better
        return 0;
      },
      fstat: async function(r) {
        var file = fileOf(r.fd);
        await statFile(file, file.handle, file.ino, r.buffer);
        return 0;
      },
      realpath: async function(r) {
        var parts = names(text(r.path)), path = '', dir = root;
        for (var i = 0; i < parts.length; i++) {
          if (parts[i] === '.') continue;
          if (parts[i] === '..') throw failure(E.EINVAL);
          dir = await dir.getDirectoryHandle(parts[i], {create: true});
          path += '/' + parts[i];
        }
        var bytes = encoder.encode(path);
        if (bytes.length + 1 > r.length) throw failure(E.ENAMETOOLONG);
        u8.set(bytes, r.buffer);
        u8[r.buffer + bytes.length] = 0;
        return 0;
      },
      open: async function(r) {
        var path = text(r.path), exclusive = (r.length & 2) !== 0;
        if (byPath.has(path)) {  // open here, or idle
          if (exclusive) throw failure(E.EEXIST);
          var fd = byPath.get(path), file = files.get(fd);
          file.opens++;
          f64[(r.address + 32) >> 3] = file.sync.getSize();
          return fd;
        }
        // An exclusive create comes right after the file system found no such name, so it asks
        // OPFS nothing more first (OPFS has no exclusive create: asking would only narrow the
        // race with another tab, at a request's cost). What it finds instead tells: a directory,
        // a file another tab holds, or one with data is there already.
        var dir = await dirAt(parentOf(path)), handle, sync;
        try {
          handle = await dir.getFileHandle(leafOf(path), {create: exclusive});
          sync = await openHandle(handle);
        } catch (e) {
          if (exclusive && (e.name === 'TypeMismatchError' || e.name === 'NoModificationAllowedError')) throw failure(E.EEXIST);
          throw e.name === 'TypeMismatchError' ? failure(E.EISDIR) : e;
        }
        if (exclusive && sync.getSize() > 0) {
          sync.close();
          throw failure(E.EEXIST);
        }
        fd = freeDescriptor();
        files.set(fd, {path: path, handle: handle, sync: sync, opens: 1, ino: inoOf(path), mtime: exclusive ? Date.now() : 0});
        byPath.set(path, fd);
        f64[(r.address + 32) >> 3] = sync.getSize();
        return fd;
      },
      close: async function(r) {
        var file = fileOf(r.fd);
        if (--file.opens > 0) return 0;
        if (!file.unlinked) {
          file.idle = performance.now();
          if (idleCount() > IDLE_MAX) releaseIdle(true);
          return 0;
        }
        file.sync.close();
        files.delete(r.fd);
        if (file.unlinkedName) await unlinked.removeEntry(file.unlinkedName);
        return 0;
      },
      pread: function(r) {
        return fileOf(r.fd).sync.read(u8.subarray(r.buffer, r.buffer + r.length), {at: r.offset});
      },
      // A write that takes nothing has hit the quota (Firefox returns short counts there
      // rather than throwing): ENOSPC, as write(2) says when no byte fits.
      pwrite: function(r) {
        var file = fileOf(r.fd);
        file.mtime = Date.now();
        var written = file.sync.write(u8.subarray(r.buffer, r.buffer + r.length), {at: r.offset});
        if (written === 0 && r.length > 0) throw failure(E.ENOSPC);
        return written;
      },
      truncate: function(r) {
        var file = fileOf(r.fd);
        file.mtime = Date.now();
        file.sync.truncate(r.offset);
        return 0;
      },
      flush: function(r) {
        fileOf(r.fd).sync.flush();
        return 0;
      },
      mkdir: async function(r) {
        var path = text(r.path);
        var parent = await dirAt(parentOf(path));
        if (await entryOrNull(path)) throw failure(E.EEXIST);
        dirs.set(path, await parent.getDirectoryHandle(leafOf(path), {create: true}));
        return 0;
      },
      rmdir: async function(r) {
        var path = text(r.path), entry = await entryAt(path);
        if (entry.kind !== 'directory') throw failure(E.ENOTDIR);
        if (!(await entry.handle.keys().next()).done) throw failure(E.ENOTEMPTY);
        await (await dirAt(parentOf(path))).removeEntry(leafOf(path));
        repath(path, null);
        return 0;
      },
      unlink: async function(r) {
        var path = text(r.path);
        if (byPath.has(path)) {  // a file this worker holds a handle on: nobody else can replace it
          await setAside(byPath.get(path));
        } else {
          if ((await entryAt(path)).kind !== 'file') throw failure(E.EISDIR);
          await (await dirAt(parentOf(path))).removeEntry(leafOf(path));
        }
        inos.delete(path);
        return 0;
      },
      rename: async function(r) {
        var from = text(r.path), to = text(r.path2);
        if (from === to) return 0;
        var moving = await entryAt(from), target = await entryOrNull(to);
        if (target && target.kind !== moving.kind) throw failure(moving.kind === 'file' ? E.EISDIR : E.ENOTDIR);
        if (moving.kind === 'file') {
          await moveFile(from, await dirAt(parentOf(to)), to);  // sets aside an open file it replaces
        } else {
          if (within(to, from)) throw failure(E.EINVAL);
          if (target) await (await dirAt(parentOf(to))).removeEntry(leafOf(to));  // empty: the core checked
          repath(to, null);
          await moveDirectory(from, to);
        }
        repath(from, to);
        return 0;
      },
      list: async function(r) {
        var path = text(r.path), entry = await entryAt(path), chunks = [], total = 0;
        if (entry.kind !== 'directory') throw failure(E.ENOTDIR);
        for await (var pair of entry.handle.entries()) {
          if (path === '' && pair[0] === UNLINKED) continue;
          var name = encoder.encode(pair[0]), record = new Uint8Array(10 + name.length);
          record[0] = pair[1].kind === 'directory' ? 4 : 8;  // S_IFDIR >> 12, S_IFREG >> 12
          new DataView(record.buffer).setBigUint64(1, BigInt(inoOf(path + '/' + pair[0])), true);
          record.set(name, 9);
          chunks.push(record);
          total += record.length;
        }
        if (total <= r.length) {
          for (var i = 0, at = r.buffer; i < chunks.length; at += chunks[i].length, i++) u8.set(chunks[i], at);
        }
        return total;
      },
      closeAll: async function() {
        for (var file of files.values()) {
          file.sync.close();
          if (file.unlinkedName) await unlinked.removeEntry(file.unlinkedName).catch(function() {});
        }
        files.clear();
        byPath.clear();
        return 0;
      },
    };

    async function answer(address) {
      views();
      var r = {
        address: address, fd: i32[(address + 12) >> 2], path: i32[(address + 16) >> 2] >>> 0,
        path2: i32[(address + 20) >> 2] >>> 0, buffer: i32[(address + 24) >> 2] >>> 0,
        length: i32[(address + 28) >> 2] >>> 0, offset: f64[(address + 32) >> 3],
      };
      var result;
      try {
        var call = calls[CALLS[i32[(address + 4) >> 2]]];
        if (!call) throw failure(E.EINVAL);
        result = await call(r);
        views();  // memory may have grown meanwhile
      } catch (e) {
        views();
        result = -errnoOf(e);
      }
      f64[(address + 40) >> 3] = result;
      Atomics.store(i32, address >> 2, 1);
      Atomics.notify(i32, address >> 2);
    }

    async function serve() {
      for (;;) {
        views();
        var head = Atomics.exchange(i32, queue >> 2, 0) >>> 0;
        if (head === 0) {
          // A dedicated worker may sleep; nothing else needs it. It wakes to close idle handles.
          var idle = idleCount() > 0;
          if (Atomics.wait(i32, queue >> 2, 0, idle ? IDLE_MS : Infinity) === 'timed-out') releaseIdle(false);
          continue;
        }
        var batch = [];  // every link is read before any caller is woken and its request reused
        for (var at = head; at !== 0; at = i32[(at + 8) >> 2] >>> 0) batch.push(at);
        for (var i = batch.length - 1; i >= 0; i--) await answer(batch[i]);
      }
    }

    onmessage = async function(event) {
      if (event.data.memory) {
        memory = event.data.memory;
        try {
          root = await navigator.storage.getDirectory();
          // Unlinked files left by an earlier session; files another tab still holds stay.
          unlinked = await root.getDirectoryHandle(UNLINKED, {create: true});
          for await (var name of unlinked.keys()) await unlinked.removeEntry(name).catch(function() {});
          unlinkedCount = Date.now();  // names unique across this origin's sessions
          postMessage({ready: true});
        } catch (e) {
          postMessage({error: String(e)});
        }
      } else if (event.data.queue) {
        queue = event.data.queue;
        serve();
      }
    };
  },
});
