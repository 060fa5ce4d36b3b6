// The debug build (WS_DEBUG, src/platform/debug.h): its checks stop a program that breaks one of
// the libraries' rules, with one line naming the check and where it is, and the release build
// has none of them. The programs break the rules on purpose (tests/alloc/test_debug_checks.c,
// tests/fs/debug_checks.c). `make test` also runs the whole suite in the debug build.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALLOC_SOURCES, DRIVER, ROOT, run, runWasm } from './helpers.mjs';
import { CORE_SOURCES } from './fs/programs.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-debug-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const FLAGS = ['-O1', '-g', '-pthread', '-D_GNU_SOURCE', '-Wno-unused-function', '-fsanitize=address,undefined',
  '-fno-sanitize-recover=all', '-I' + path.join(ROOT, 'include')];

// Natively, at debug level `level` (0: the release build), whatever WS_DEBUG this suite runs with.
function native(name, source, sources, level, extra = []) {
  const output = path.join(scratch, `${name}-${level}`);
  const result = run('clang-14', [...FLAGS, `-DWS_DEBUG=${level}`, ...extra, source, ...sources, '-o', output]);
  assert.equal(result.status, 0, result.stderr);
  return output;
}

const CHECK_LINE = /^wasmscale: internal check failed: (.+) \((\S+):\d+\)$/m;

function expectStopped(result, check, where) {
  assert.notEqual(result.status, 0, `the program went on: ${result.stdout}`);
  const line = result.stderr.match(CHECK_LINE);
  assert.ok(line, `no check line in: ${result.stderr.slice(0, 2000)}`);
  assert.match(line[1], check);
  assert.ok(path.resolve(line[2]).endsWith(where), `${line[2]} is not ${where}`);
}

function expectNoCheck(result) {
  assert.doesNotMatch(result.stderr, /internal check failed/);
}

const ALLOC_PROGRAM = path.join(ROOT, 'tests/alloc/test_debug_checks.c');
const allocProgram = (level) => native('alloc', ALLOC_PROGRAM, ALLOC_SOURCES, level, ['-DWS_PREFIX_NAMES', '-fno-builtin']);
const ALLOC_SCENARIOS = [
  ['count', /length \+ run->used == run->capacity/, 'src/alloc/validate.c', 2],
  ['span', /page->head == head/, 'src/alloc/span.c', 2],
  ['lock', /ws_prim_lock_held\(lock\)/, 'src/platform/platform.h', 1],
];

test('the allocator: a broken run count, page map or lock stops the debug build, at the check that names it', () => {
  const programs = { 1: allocProgram(1), 2: allocProgram(2) };
  for (const [scenario, check, where, level] of ALLOC_SCENARIOS) {
    expectStopped(run(programs[level], [scenario]), check, where);
    if (level === 2) expectNoCheck(run(programs[1], [scenario]));  // a validator: not at level 1
  }
});

test('the allocator: the release build has none of the checks', () => {
  const program = allocProgram(0);
  for (const [scenario] of ALLOC_SCENARIOS) {
    const result = run(program, [scenario]);
    expectNoCheck(result);
    // (A run that counts a block too few has no free block where it says it has one: the
    // release build goes on and fails later, wherever it tries to use it.)
    if (scenario !== 'count') assert.match(result.stdout, new RegExp(`${scenario}: no check stopped it`));
  }
});

const FS_PROGRAM = path.join(ROOT, 'tests/fs/debug_checks.c');
const UNLOCKED = /ws_rwlock_is_written_by_caller\(&\(file\)->lock\)/;

test('the file system: a backend write without the node\'s lock stops the debug build at the choke point, natively', () => {
  expectStopped(run(native('fs', FS_PROGRAM, CORE_SOURCES, 1, ['-DWS_TEST_CORE'])), UNLOCKED, 'src/fs/backend.c');
  const release = run(native('fs', FS_PROGRAM, CORE_SOURCES, 0, ['-DWS_TEST_CORE']));
  expectNoCheck(release);
  assert.match(release.stdout, /a write without the node's lock \(1\): no check stopped it/);
});

test('the file system in Wasm: the check\'s line reaches the console from inside the file system', () => {
  const build = (level) => {
    const output = path.join(scratch, `fs-wasm-${level}.js`);
    const env = { ...process.env, WS_DEBUG: String(level) };
    const result = run(DRIVER, ['--fs=wasmscale', '-O1', FS_PROGRAM, '-o', output], { env });
    assert.equal(result.status, 0, result.stderr);
    return output;
  };
  expectStopped(runWasm(build(2)), UNLOCKED, 'src/fs/backend.c');
  const release = runWasm(build(0));
  expectNoCheck(release);
  assert.match(release.stdout, /no check stopped it/);
});
