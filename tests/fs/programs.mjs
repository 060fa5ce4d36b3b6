// Builds the file-system test programs (tests/fs/*.c) three ways, for fs.test.mjs and
// backends.test.mjs: natively against Linux, natively against wasmscale's core under a
// sanitizer, and in Wasm with the driver (checking that no JS file system was linked).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DEBUG_FLAGS, DRIVER, ROOT, run } from '../helpers.mjs';

const source = (name) => path.join(ROOT, 'tests', 'fs', `${name}.c`);
// The core natively: the file system and the POSIX platform layer.
export const CORE_SOURCES = [
  ...['src/fs', 'src/fs/memory', 'src/fs/host'].flatMap((dir) => fs.readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.c')).map((f) => path.join(ROOT, dir, f))),
  ...['common.c', 'posix/prim.c', 'posix/host.c', 'posix/fetch.c'].map((f) => path.join(ROOT, 'src/platform', f)),
];
const C_FLAGS = ['-O1', '-g', '-pthread', '-D_GNU_SOURCE', '-Wno-unused-function', '-I' + path.join(ROOT, 'include'), ...DEBUG_FLAGS];
const WASM_FLAGS = ['-O2', '-pthread', '-sPROXY_TO_PTHREAD', '-sEXIT_RUNTIME=1', '-sPTHREAD_POOL_SIZE=6',
  '-sALLOW_MEMORY_GROWTH=1', '-Wno-pthreads-mem-growth', '-Wno-unused-function'];

function build(compiler, args, output) {
  const result = run(compiler, [...args, '-o', output]);
  assert.equal(result.status, 0, `${compiler}: ${result.stderr}`);
  return output;
}

export function fsPrograms(scratch) {
  const built = new Map();
  return {
    // Natively against Linux's own file system.
    linux: (name) => build('gcc', [...C_FLAGS, source(name)], path.join(scratch, `${name}-linux`)),
    // Natively against wasmscale's core, under a sanitizer.
    core: (name, sanitizer) => build('clang-14', [...C_FLAGS, `-fsanitize=${sanitizer}`, '-fno-sanitize-recover=all',
      '-DWS_TEST_CORE', source(name), ...CORE_SOURCES], path.join(scratch, `${name}-core-${sanitizer.split(',')[0]}`)),
    // In Wasm with the driver's arguments `args` only (labelled `label`).
    plain: (name, label, args) => build(DRIVER, [...args, source(name)], path.join(scratch, `${name}-${label}.js`)),
    // In Wasm against wasmscale's file system; the output must not contain Emscripten's JS FS.
    wasm(name, extra = []) {
      const key = [name, ...extra].join(' ');
      if (built.has(key)) return built.get(key);
      const output = build(DRIVER, ['--fs=wasmscale', ...WASM_FLAGS, ...extra, source(name)],
        path.join(scratch, `${name}${built.size}.js`));
      const glue = fs.readFileSync(output, 'utf8');
      // getenv links a small SYSCALLS helper without any file system (printChar for the no-FS
      // console): these markers name the JS file system's own internals and its syscall helpers
      // (wasmscale's FS API, emscripten_fs.js, has Emscripten's public names: FS.open, MEMFS).
      for (const marker of [/\bFS\.(lookupPath|createNode|mknod)\b/, /MEMFS\.(ops_table|createNode)\b/, /\bTTY\./,
                            /getStreamFromFD/, /doStat/, /calculateAt/]) {
        assert.ok(!marker.test(glue), `${name}: the built .js contains ${marker}: a JS file system was linked`);
      }
      built.set(key, output);
      return output;
    },
  };
}

export function expectOutput(result, pattern) {
  assert.equal(result.status, 0, (result.stdout + result.stderr).slice(-4000));
  assert.match(result.stdout, pattern);
}
