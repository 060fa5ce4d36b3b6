#!/usr/bin/env node
// Runs the parallel indexer (indexer.c) on Node over a directory of the host: every thread
// reads the host's files itself through wasmscale's host backend, and the index is written
// back into that directory as INDEX.txt.
//
//   usage: node examples/indexer/index-host-dir.mjs DIR [THREADS]
//
// The program is built on each run into build/emscripten-VERSION/examples/ (a second or two;
// the driver brings wasmscale's libraries up to date first, so the program never lags behind
// them) with `wasmscale-cc --mount=/corpus=.`, so /corpus is the working directory it starts
// in; this script starts it in DIR.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wasmBuildDir } from '../../tools/toolchain.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const SOURCE = path.join(HERE, 'indexer.c');
const PROGRAM = path.join(wasmBuildDir(), 'examples', 'indexer-host.js');

function build() {
  fs.mkdirSync(path.dirname(PROGRAM), { recursive: true });
  const flags = ['--malloc=wasmscale', '--fs=wasmscale', '--mount=/corpus=.', '-O2', '-pthread', '-sPROXY_TO_PTHREAD',
    '-sEXIT_RUNTIME=1', '-sPTHREAD_POOL_SIZE=4', '-sALLOW_MEMORY_GROWTH=1', '-Wno-pthreads-mem-growth'];
  const result = spawnSync(path.join(ROOT, 'bin', 'wasmscale-cc'), [...flags, SOURCE, '-o', PROGRAM], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const [dir, threads = '4'] = process.argv.slice(2);
if (!dir || !fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
  console.error('usage: node examples/indexer/index-host-dir.mjs DIR [THREADS]  (DIR: an existing directory)');
  process.exit(2);
}
build();
const run = spawnSync(process.execPath, ['--no-experimental-fetch', PROGRAM, '/corpus', '/corpus/INDEX.txt', threads],
                      { cwd: path.resolve(dir), stdio: 'inherit' });
process.exit(run.status ?? 1);
