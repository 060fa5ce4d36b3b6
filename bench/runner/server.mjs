// A static file server on 127.0.0.1 with the cross-origin isolation headers that
// SharedArrayBuffer (and so Wasm threads) needs in a browser.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.data': 'application/octet-stream',
};

// routes: { '/url-prefix/': '/directory' }; the longest matching prefix wins. port 0: any free one.
export async function startServer(routes, { port = 0 } = {}) {
  const prefixes = Object.keys(routes).sort((a, b) => b.length - a.length);
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    const pathname = decodeURIComponent(url.pathname);
    const prefix = prefixes.find((candidate) => pathname.startsWith(candidate));
    const root = prefix && path.resolve(routes[prefix]);
    const file = root && path.resolve(root, '.' + pathname.slice(prefix.length - 1));
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cache-Control': 'no-store',
    };
    // Refuse anything that resolves outside the served folder.
    if (!file || !(file === root || file.startsWith(root + path.sep)) || !fs.existsSync(file) ||
        !fs.statSync(file).isFile()) {
      response.writeHead(404, headers).end('not found');
      return;
    }
    headers['Content-Type'] = TYPES[path.extname(file)] || 'application/octet-stream';
    // Byte ranges, as lazily fetched files ask for them ("bytes=START-END"); ?whole makes the
    // server ignore them, as some do, and send the whole file.
    const size = fs.statSync(file).size;
    const range = url.searchParams.has('whole') ? null : /^bytes=(\d+)-(\d*)$/.exec(request.headers.range || '');
    let start = 0, end = size - 1, status = 200;
    if (range) {
      start = Number(range[1]);
      end = range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1);
      if (start >= size || end < start) {
        response.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` }).end();
        return;
      }
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    }
    headers['Accept-Ranges'] = 'bytes';
    headers['Content-Length'] = String(size === 0 ? 0 : end - start + 1);
    response.writeHead(status, headers);
    if (request.method === 'HEAD' || size === 0) response.end();
    else fs.createReadStream(file, { start, end }).pipe(response);
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
