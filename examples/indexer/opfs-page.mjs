#!/usr/bin/env node
// Serves the parallel indexer (indexer.c) as a web page over OPFS (opfs.html): files added in
// the page are written into the origin's private file system, every thread of the program
// reads them from there, and they persist across reloads.
//
//   usage: node examples/indexer/opfs-page.mjs [PORT]   then open the printed address
//
// The program is built on each start into build/emscripten-VERSION/examples/ (the driver brings
// wasmscale's libraries up to date first, so the page never serves a program older than them)
// with `wasmscale-cc --mount=/corpus=opfs:indexer-corpus`, and served from 127.0.0.1 with the
// COOP/COEP headers that shared memory (threads) needs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../bench/runner/server.mjs';
import { wasmBuildDir } from '../../tools/toolchain.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
export const PAGE_DIR = path.join(wasmBuildDir(), 'examples', 'indexer-opfs');
const PROGRAM = path.join(PAGE_DIR, 'indexer-opfs.js');

// Builds the program and copies the page beside it; returns the folder to serve.
export function build() {
  fs.mkdirSync(PAGE_DIR, { recursive: true });
  const flags = ['--malloc=wasmscale', '--fs=wasmscale', '--mount=/corpus=opfs:indexer-corpus', '-O2', '-pthread',
    '-sPROXY_TO_PTHREAD', '-sEXIT_RUNTIME=1', '-sPTHREAD_POOL_SIZE=8', '-sALLOW_MEMORY_GROWTH=1',
    '-Wno-pthreads-mem-growth', '-sINVOKE_RUN=0', '-sEXPORTED_RUNTIME_METHODS=callMain'];
  const source = path.join(HERE, 'indexer.c');
  const result = spawnSync(path.join(ROOT, 'bin', 'wasmscale-cc'), [...flags, source, '-o', PROGRAM], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`building ${PROGRAM} failed`);
  fs.copyFileSync(path.join(HERE, 'opfs.html'), path.join(PAGE_DIR, 'index.html'));
  return PAGE_DIR;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] ?? 0);
  const server = await startServer({ '/': build() }, { port });
  console.log(`indexer over OPFS: open ${server.origin}/index.html (Ctrl-C stops the server)`);
}
