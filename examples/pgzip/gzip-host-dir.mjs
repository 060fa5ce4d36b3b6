#!/usr/bin/env node
// Runs the parallel gzip (pgzip.c) on Node over directories of the host: every thread reads
// its files and writes their .gz beside the others through wasmscale's host backend.
//
//   usage: node examples/pgzip/gzip-host-dir.mjs INPUT_DIR OUTPUT_DIR [THREADS] [--malloc=NAME]
//          node examples/pgzip/gzip-host-dir.mjs --build-zlib      (zlib-ng only, for the benchmark)
//
// zlib comes from zlib-ng, a third-party CMake project: its sources from the crates.io package
// libz-ng-sys (fetched with cargo), configured with Emscripten's emcmake and wasmscale's
// installed toolchain file, built once per Emscripten release into
// build/emscripten-VERSION/pgzip/. The program itself is built on each run (the driver brings
// wasmscale's libraries up to date first) with `wasmscale-cc --mount=/data=.`, and started in
// the folder that holds both directories.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolchain, wasmBuildDir } from '../../tools/toolchain.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const ZLIB_NG = { crate: 'libz-ng-sys', version: '1.1.32', inside: 'src/zlib-ng' };

function must(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? '');
    console.error(`pgzip: ${path.basename(command)} ${args.slice(0, 3).join(' ')}... failed (exit ${result.status})`);
    process.exit(result.status || 1);
  }
  return (result.stdout ?? '').trim();
}

// zlib-ng's libz.a and headers for this release, built the first time.
export function zlibNg() {
  const out = path.join(wasmBuildDir(), 'pgzip');
  const build = path.join(out, 'zlib-ng');
  const library = path.join(build, 'libz.a');
  if (fs.existsSync(library)) return { library, include: build };
  const source = must(path.join(ROOT, 'scripts', 'fetch-crate.sh'),
                      [path.join(ROOT, 'build'), ZLIB_NG.crate, ZLIB_NG.version, ZLIB_NG.inside]);
  const prefix = path.join(out, 'wasmscale');
  must('make', ['-s', '-C', ROOT, 'install', `PREFIX=${prefix}`, `EMCC=${toolchain().emcc}`]);
  fs.rmSync(build, { recursive: true, force: true });
  const emcmake = path.join(path.dirname(toolchain().emcc), 'emcmake');
  must(emcmake, ['cmake', '-S', source, '-B', build,
                 `-DCMAKE_TOOLCHAIN_FILE=${path.join(prefix, 'lib', 'cmake', 'wasmscale', 'wasmscale-toolchain.cmake')}`,
                 '-DZLIB_COMPAT=ON', '-DBUILD_TESTING=OFF', '-DWITH_GTEST=OFF', '-DBUILD_SHARED_LIBS=OFF',
                 '-DCMAKE_BUILD_TYPE=Release', '-DCMAKE_C_FLAGS=-pthread'], { env: { ...process.env, EMCC: toolchain().emcc } });
  must('cmake', ['--build', build, '-j2'], { env: { ...process.env, EMCC: toolchain().emcc } });
  return { library, include: build };
}

export function buildPgzip(malloc = 'wasmscale') {
  const zlib = zlibNg();
  const program = path.join(wasmBuildDir(), 'examples', `pgzip-${malloc}.js`);
  fs.mkdirSync(path.dirname(program), { recursive: true });
  must(path.join(ROOT, 'bin', 'wasmscale-cc'),
       [`--malloc=${malloc}`, '--fs=wasmscale', '--mount=/data=.', '-O2', '-pthread', '-sPROXY_TO_PTHREAD',
        '-sEXIT_RUNTIME=1', '-sPTHREAD_POOL_SIZE=8', '-sALLOW_MEMORY_GROWTH=1', '-Wno-pthreads-mem-growth',
        `-I${zlib.include}`, path.join(HERE, 'pgzip.c'), path.join(HERE, 'gzip_file.c'), zlib.library, '-o', program]);
  return program;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--build-zlib') {
  zlibNg();  // for the benchmark's pgzip workload (Makefile)
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const malloc = (args.find((a) => a.startsWith('--malloc=')) ?? '--malloc=wasmscale').slice('--malloc='.length);
  const [input, output, threads = '4'] = args.filter((a) => !a.startsWith('--'));
  if (!input || !output || !fs.existsSync(input) || !fs.statSync(input).isDirectory()) {
    console.error('usage: node examples/pgzip/gzip-host-dir.mjs INPUT_DIR OUTPUT_DIR [THREADS] [--malloc=NAME]  (INPUT_DIR: an existing directory)');
    process.exit(2);
  }
  // Both directories under one folder, mounted at /data.
  const base = path.dirname(path.resolve(input));
  if (path.dirname(path.resolve(output)) !== base) {
    console.error('pgzip: OUTPUT_DIR must sit beside INPUT_DIR (one folder is mounted for both)');
    process.exit(2);
  }
  const program = buildPgzip(malloc);
  const ran = spawnSync(process.execPath, ['--no-experimental-fetch', program, threads,
    `/data/${path.basename(input)}`, `/data/${path.basename(output)}`], { cwd: base, stdio: 'inherit' });
  process.exit(ran.status ?? 1);
}
