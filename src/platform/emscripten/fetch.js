// Fetched files for the memory backend's lazy files (ws_prim_fetch in platform.h), made by the
// thread that reads, synchronously, never proxied: Node reads a path or file: URL with its fs
// module; a browser sends a synchronous XMLHttpRequest with a Range header. A worker asks for
// an ArrayBuffer; the main thread, where a synchronous request may not, takes the bytes as an
// x-user-defined string (one byte per character). Errors come back as -errno in Emscripten's
// numbering.
mergeInto(LibraryManager.library, {
  _wasmscale_fetch__deps: wasmscaleRuntime(['UTF8ToString']),
  _wasmscale_fetch: function(url, buffer, length, offset) {
    var where = UTF8ToString(url), heap = new Uint8Array(wasmMemory.buffer);
    if (length === 0) return 0;
    if (ENVIRONMENT_IS_NODE) {
      var isFileUrl = /^file:/i.test(where);
      if (!isFileUrl && /^[a-z][a-z0-9+.-]*:\/\//i.test(where)) return -{{{ cDefine('EOPNOTSUPP') }}};
      var fs = require('fs'), fd = -1, done = 0;
      try {
        fd = fs.openSync(isFileUrl ? require('url').fileURLToPath(where) : where, 'r');
        for (var got = -1; done < length && got !== 0; done += got) {
          got = fs.readSync(fd, heap, buffer + done, length - done, offset + done);
        }
        return done;
      } catch (e) {
        return -{{{ cDefine('EIO') }}};
      } finally {
        if (fd >= 0) fs.closeSync(fd);
      }
    }
    var inWorker = typeof WorkerGlobalScope !== 'undefined', request = new XMLHttpRequest(), bytes;
    try {
      request.open('GET', where, false);
      request.setRequestHeader('Range', 'bytes=' + offset + '-' + (offset + length - 1));
      if (inWorker) request.responseType = 'arraybuffer';
      else request.overrideMimeType('text/plain; charset=x-user-defined');
      request.send(null);
    } catch (e) {
      return -{{{ cDefine('EIO') }}};
    }
    if (request.status !== 206 && request.status !== 200) return -{{{ cDefine('EIO') }}};
    if (inWorker) {
      bytes = new Uint8Array(request.response);
    } else {
      var text = request.responseText;
      bytes = new Uint8Array(text.length);
      for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
    }
    // 200: the server ignored the range and sent the whole file; the part asked for is cut out.
    var start = request.status === 206 ? 0 : offset;
    var count = Math.max(0, Math.min(length, bytes.length - start));
    heap.set(bytes.subarray(start, start + count), buffer);
    return count;
  },
});
