// The file system's backends: the host-directory backend, natively on wasmscale's core (under
// ASan+UBSan and TSan, against a real directory) and in Wasm on Node, mounted with the C API,
// with `wasmscale-cc --mount`, and as the root (-sNODERAWFS, --mount=/=DIR). The host side of
// every run is checked here, after it.
import { spawn } from 'node:child_process';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DRIVER, ROOT, run, runWasm } from './helpers.mjs';
import { expectOutput, fsPrograms } from './fs/programs.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-backends-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
const { core, wasm } = fsPrograms(scratch);

const VERIFIED = /host: (\d+) threads x (\d+) rounds: host files verified/;
const RECORD = 48;

// A fresh host directory as tests/fs/host.c expects it, beside a secret it must not reach.
function hostDir(name) {
  const base = fs.mkdtempSync(path.join(scratch, `${name}-`));
  const dir = path.join(base, 'dir');
  fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'input.txt'), 'hello from the host\n');
  fs.writeFileSync(path.join(dir, 'sub', 'nested.txt'), 'nested\n');
  fs.writeFileSync(path.join(base, 'secret.txt'), 'secret\n');
  fs.symlinkSync('../secret.txt', path.join(dir, 'escape'));
  fs.symlinkSync(path.join(base, 'secret.txt'), path.join(dir, 'absolute'));
  return { base, dir };
}

// What the program left on the host: each thread's file and the shared log, record for record.
function checkHost({ base, dir }, stdout) {
  const [, threads, rounds] = VERIFIED.exec(stdout).map(Number);
  const out = path.join(dir, 'out');
  assert.deepEqual(fs.readdirSync(out).sort(),
    [...Array.from({ length: threads }, (_, i) => `t${i}.done`), 'shared.log'].sort());
  for (let t = 0; t < threads; t++) {
    const data = fs.readFileSync(path.join(out, `t${t}.done`));
    assert.equal(data.length, rounds * RECORD);
    for (let r = 0; r < rounds; r++) assert.deepEqual([data[r * RECORD], data[r * RECORD + 1]], [t, r]);
  }
  assert.equal(fs.statSync(path.join(out, 'shared.log')).size, threads * rounds * RECORD);
  assert.equal(fs.readFileSync(path.join(base, 'secret.txt'), 'utf8'), 'secret\n', 'the secret is untouched');
  // chmod and utimensat were applied on the host, not only recorded in memory.
  const input = fs.statSync(path.join(dir, 'input.txt'));
  assert.equal(input.mode & 0o7777, 0o600, 'chmod reached the host file');
  assert.equal(input.mtimeMs, 1200000000 * 1000, 'utimensat reached the host file');
  assert.equal(input.atimeMs, 1000000000 * 1000);
  assert.equal(fs.statSync(path.join(dir, 'sub')).mode & 0o7777, 0o700, 'chmod reached the host directory');
}

test('host backend on the core: real host files from 4 threads, no way out of the mount (ASan+UBSan, TSan)', () => {
  for (const sanitizer of ['address,undefined', 'thread']) {
    const host = hostDir(sanitizer.split(',')[0]);
    const result = run(core('host', sanitizer), [host.dir, 'mount', '4', '100']);
    assert.doesNotMatch(result.stderr, /Sanitizer/, result.stderr.slice(0, 4000));
    expectOutput(result, VERIFIED);
    checkHost(host, result.stdout);
  }
});

test('host backend in Wasm on Node: mounted with the C API, each worker calls Node fs itself', () => {
  const host = hostDir('wasm-api');
  const result = runWasm(wasm('host'), [host.dir, 'mount', '4', '100']);
  expectOutput(result, VERIFIED);
  checkHost(host, result.stdout);
});

test('wasmscale-cc --mount: a relative host directory, resolved against the working directory at start', () => {
  const host = hostDir('wasm-flag');
  const program = wasm('host', ['--mount=/data=dir']);
  const result = runWasm(program, ['unused', 'premounted', '4', '50'], { cwd: host.base });
  expectOutput(result, VERIFIED);
  checkHost(host, result.stdout);
  // A mount whose host directory is missing is reported by name, and the program still runs.
  const missing = runWasm(program, ['unused', 'premounted', '1', '1'], { cwd: scratch });
  assert.match(missing.stderr, /wasmscale: --mount=\/data=dir: No such file or directory/);
});

test('Module.wasmscaleFS.mount: a host directory mounted from JavaScript (wasmscale-cc --backend=host)', () => {
  const host = hostDir('wasm-js');
  const program = wasm('host', ['--backend=host', '--pre-js', path.join(ROOT, 'tests/fs/host_mount.pre.js')]);
  const result = runWasm(program, [host.dir, 'premounted', '4', '50']);
  expectOutput(result, VERIFIED);
  checkHost(host, result.stdout);
});

// A host directory to be the root (tests/fs/rawfs.c): a dev/ the program's own /dev hides,
// a tmp/ that is /tmp when `withTmp`, then later.txt (listed after them where a directory lists
// entries in the order they were made).
function rootDir(name, withTmp) {
  const host = hostDir(name);
  fs.mkdirSync(path.join(host.dir, 'dev'));
  fs.writeFileSync(path.join(host.dir, 'dev', 'keep.txt'), 'keep\n');
  if (withTmp) {
    fs.mkdirSync(path.join(host.dir, 'tmp'));
    fs.writeFileSync(path.join(host.dir, 'tmp', 'keep.txt'), 'keep\n');
  }
  fs.writeFileSync(path.join(host.dir, 'later.txt'), 'later\n');
  return host;
}

// What rawfs left on the host: each thread's records in out/, scratch.txt in a host tmp/ only,
// nothing else added or changed.
function checkRootHost({ base, dir }, threads, withTmp) {
  const RAW_RECORD = 32, RAW_ROUNDS = 100;
  assert.deepEqual(fs.readdirSync(path.join(dir, 'out')).sort(), Array.from({ length: threads }, (_, t) => `t${t}.bin`));
  for (let t = 0; t < threads; t++) {
    const data = fs.readFileSync(path.join(dir, 'out', `t${t}.bin`));
    assert.equal(data.length, RAW_RECORD * RAW_ROUNDS);
    for (let r = 0; r < RAW_ROUNDS; r++) assert.deepEqual([data[r * RAW_RECORD], data[r * RAW_RECORD + 1]], [t, r]);
  }
  const expected = ['absolute', 'dev', 'escape', 'input.txt', 'later.txt', 'out', 'sub', ...(withTmp ? ['tmp'] : [])];
  assert.deepEqual(fs.readdirSync(dir).sort(), expected, 'nothing else was created in the host root');
  assert.deepEqual(fs.readdirSync(path.join(dir, 'dev')), ['keep.txt'], 'the host dev/ is untouched');
  if (withTmp) {
    assert.deepEqual(fs.readdirSync(path.join(dir, 'tmp')).sort(), ['keep.txt', 'scratch.txt']);
    assert.equal(fs.readFileSync(path.join(dir, 'tmp', 'scratch.txt'), 'utf8'), 'scratch\n');
  }
  assert.equal(fs.readFileSync(path.join(base, 'secret.txt'), 'utf8'), 'secret\n', 'the secret is untouched');
}

const ROOT_VERIFIED = /rawfs: 4 threads: host root verified/;

test('a host directory as the root on the core, /dev and /tmp kept (WASMSCALE_MOUNTS; ASan+UBSan, TSan)', () => {
  for (const sanitizer of ['address,undefined', 'thread']) {
    for (const withTmp of [false, true]) {
      const host = rootDir(`root-${sanitizer.split(',')[0]}`, withTmp);
      const result = run(core('rawfs', sanitizer), ['/', '4', withTmp ? 'host' : 'memory'],
        { cwd: host.dir, env: { ...process.env, WASMSCALE_MOUNTS: '/=.' } });
      assert.doesNotMatch(result.stderr, /Sanitizer/, result.stderr.slice(0, 4000));
      expectOutput(result, ROOT_VERIFIED);
      checkRootHost(host, 4, withTmp);
    }
  }
});

test('wasmscale-cc -sNODERAWFS: the working directory is the root, from every thread, /dev and /tmp kept', () => {
  const program = wasm('rawfs', ['-sNODERAWFS']);
  for (const withTmp of [false, true]) {
    const host = rootDir('wasm-root', withTmp);
    const result = runWasm(program, ['/', '4', withTmp ? 'host' : 'memory'], { cwd: host.dir });
    expectOutput(result, ROOT_VERIFIED);
    checkRootHost(host, 4, withTmp);
  }
  // A root that cannot be mounted is named; the program runs on the memory root instead.
  const missing = runWasm(wasm('rawfs', ['--mount=/=missing']), ['/', '1', 'memory'], { cwd: scratch });
  assert.match(missing.stderr, /wasmscale: --mount=\/=missing: No such file or directory/);
});

test('wasmscale-cc --mount=/=/: the host\'s own paths, starting in its working directory', () => {
  const host = rootDir('wasm-whole', false);
  const start = fs.realpathSync(host.dir);
  const result = runWasm(wasm('rawfs', ['--mount=/=/']), [start, '4', 'skip'], { cwd: host.dir });
  expectOutput(result, ROOT_VERIFIED);
  checkRootHost(host, 4, false);
});

test('a program that mounts no host directory links neither the host backend nor its JS', () => {
  const glue = fs.readFileSync(wasm('console'), 'utf8');
  assert.doesNotMatch(glue, /_wasmscale_host_/, 'host.js functions in a program without host mounts');
  assert.match(fs.readFileSync(wasm('host', ['--mount=/data=dir']), 'utf8'), /_wasmscale_host_startup_mounts/);
});

test('wasmscale-cc --mount refuses what it cannot do', () => {
  for (const [args, message] of [
    [['--mount=data=dir', 'x.c'], /absolute VIRTUAL path/],
    [['--mount=/=opfs:dir', 'x.c'], /only a host directory can be the root/],
    [['--mount=/=a', '-sNODERAWFS', 'x.c'], /the root is mounted twice/],
    [['-sNODERAWFS=1', '--embed-file', 'x.c', 'x.c'], /--embed-file puts files into the memory root/],
    [['--mount=/data=', 'x.c'], /expected --mount=VIRTUAL=HOST_DIR/],
    [['--fs=js', '--mount=/data=dir', 'x.c'], /--mount needs --fs=wasmscale/],
  ]) {
    const result = run(DRIVER, args, { cwd: ROOT });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, message);
  }
});

// ----- the escape suite (tests/fs/escape.c) -------------------------------------------------------
const ESCAPED = /escape: (\d+) boundary crossings in (\d+) tries \((\d+) reads inside\)(, two devices)?: held/;

// A host directory to mount beside an outside one holding the secret. As root, t1/ and t2/ are
// two tmpfs file systems (their roots share an inode number); otherwise that part is skipped,
// said on the test's output.
function escapeDirs(t, name) {
  const base = fs.mkdtempSync(path.join(scratch, `${name}-`));
  const dir = path.join(base, 'dir'), outside = path.join(base, 'outside');
  for (const sub of ['', 'sub', 'race', 'rootswap']) {
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
    fs.writeFileSync(path.join(dir, sub, 'inside.txt'), 'inside\n');
  }
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'inside.txt'), 'SECRET\n');
  const mounted = [];
  if (process.getuid?.() === 0) {
    for (const t of ['t1', 't2']) {
      fs.mkdirSync(path.join(dir, t));
      const result = run('mount', ['-t', 'tmpfs', '-o', 'size=1m', `wasmscale-${t}`, path.join(dir, t)]);
      if (result.status === 0) mounted.push(path.join(dir, t));
    }
  }
  if (mounted.length < 2) t.diagnostic('escape suite: two file systems inside the mount skipped (needs root and tmpfs)');
  return { dir, outside, tmpfs: mounted.length === 2, mounted };
}

// Nothing was made or changed outside; each tmpfs holds its own file.
function checkEscape(t, { dir, outside, tmpfs }, result) {
  assert.deepEqual(fs.readdirSync(outside), ['inside.txt'], 'a file was made outside the mount');
  assert.equal(fs.readFileSync(path.join(outside, 'inside.txt'), 'utf8'), 'SECRET\n');
  for (const made of ['made-by-fd.txt', 'made-by-cwd.txt']) assert.ok(fs.existsSync(path.join(dir, 'sub', made)), made);
  if (tmpfs) {
    assert.deepEqual(fs.readdirSync(path.join(dir, 't1')), ['one.txt']);
    assert.deepEqual(fs.readdirSync(path.join(dir, 't2')), ['two.txt']);
  }
  const [, crossings, tries, inside] = ESCAPED.exec(result.stdout).map(Number);
  t.diagnostic(`escape suite: ${crossings} boundary crossings in ${tries} tries, ${inside} reads inside${tmpfs ? ', two devices' : ''}`);
}

function unmountEscapeDirs({ mounted }) {
  for (const at of mounted) run('umount', [at]);
}

// A host process swapping race/ and rootswap/ for symlinks to the outside, from when the
// program says it is ready until killed.
const SWAPPER = `
const fs = require('fs'), [dir, outside] = process.argv.slice(1);
while (!fs.existsSync(dir + '/ready')) {}
for (const end = Date.now() + 300000; Date.now() < end;) {
  for (const name of ['race', 'rootswap']) {
    const at = dir + '/' + name;
    try { fs.renameSync(at, at + '.away'); fs.symlinkSync(outside, at); fs.unlinkSync(at); } catch {}
    try { fs.renameSync(at + '.away', at); } catch {}
  }
}`;

test('escape suite on the core: held directories renamed and replaced by symlinks out, two mounts of one directory, a thread swapping on the host, two file systems inside (ASan+UBSan)', (t) => {
  const dirs = escapeDirs(t, 'escape-core');
  try {
    const result = run(core('escape', 'address,undefined'),
      [dirs.dir, dirs.outside, '3000', 'swap', ...(dirs.tmpfs ? ['tmpfs'] : [])]);
    assert.doesNotMatch(result.stderr, /Sanitizer/, result.stderr.slice(0, 4000));
    expectOutput(result, ESCAPED);
    checkEscape(t, dirs, result);
  } finally {
    unmountEscapeDirs(dirs);
  }
});

test('escape suite in Wasm on Node: the same, with a host process swapping directories while the program runs', (t) => {
  const dirs = escapeDirs(t, 'escape-wasm');
  const swapper = spawn(process.execPath, ['-e', SWAPPER, dirs.dir, dirs.outside], { stdio: 'ignore' });
  try {
    const result = runWasm(wasm('escape'), [dirs.dir, dirs.outside, '2000', ...(dirs.tmpfs ? ['tmpfs'] : [])]);
    expectOutput(result, ESCAPED);
    checkEscape(t, dirs, result);
  } finally {
    swapper.kill();
    unmountEscapeDirs(dirs);
  }
});

// ----- crash consistency (tests/fs/crash.c) --------------------------------------------------------
const RECORD_BYTES = 64;

// The whole records at the start of `file` that are the ones crash.c wrote, in order, and
// whether any bytes after them are torn (a partial or foreign record).
function intactRecords(file) {
  const data = fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
  let intact = 0;
  for (; (intact + 1) * RECORD_BYTES <= data.length; intact++) {
    const record = data.subarray(intact * RECORD_BYTES, (intact + 1) * RECORD_BYTES);
    let sum = 0;
    for (let i = 8; i < RECORD_BYTES; i++) {
      if (record[i] !== ((intact * 31 + i * 7) & 0xff)) return { intact, torn: true };
      sum = (Math.imul(sum, 131) + record[i]) >>> 0;
    }
    if (record.readUInt32LE(0) !== intact || record.readUInt32LE(4) !== sum) return { intact, torn: true };
  }
  return { intact, torn: data.length > intact * RECORD_BYTES };
}

// Runs `command` and kills it with SIGKILL after `delayMs`; resolves to what it printed.
function killAfter(command, args, delayMs, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout, code, signal });
    });
  });
}

// 20 trials: the program appends and fsyncs records on a host mount until it is killed at a
// random moment (seeded: WASMSCALE_CRASH_SEED replays one). Every record it reported synced must
// be on the host, whole, with nothing torn before it.
async function crashTrials(t, label, command, argsFor, options = {}) {
  let seed = Number(process.env.WASMSCALE_CRASH_SEED || 12345);
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  let synced = 0, lost = 0, killedWhileRunning = 0;
  for (let trial = 0; trial < 20; trial++) {
    const dir = fs.mkdtempSync(path.join(scratch, `crash-${label}-`));
    const { stdout, signal } = await killAfter(command, argsFor(dir), 300 + Math.floor(random() * 1200), options);
    const reported = [...stdout.matchAll(/^synced (\d+)$/gm)].map((match) => Number(match[1]));
    const last = reported.length > 0 ? reported.at(-1) : -1;
    const { intact, torn } = intactRecords(path.join(dir, 'log.bin'));
    assert.ok(!torn || intact > last, `${label} trial ${trial}: torn bytes at record ${intact}, before synced ${last}`);
    synced += last + 1;
    lost += Math.max(0, last + 1 - intact);
    if (signal === 'SIGKILL' && last >= 0) killedWhileRunning++;
  }
  t.diagnostic(`crash consistency (${label}): 20 trials killed at random moments, ${synced} fsynced records, ${lost} lost`);
  assert.equal(lost, 0, 'fsynced records lost');
  assert.ok(killedWhileRunning >= 15, `only ${killedWhileRunning} of 20 trials were killed while writing`);
}

test('crash consistency on a host mount in Wasm on Node: SIGKILL at random moments loses no fsynced record, tears nothing before it', async (t) => {
  await crashTrials(t, 'wasm', process.execPath, (dir) => ['--no-experimental-fetch', wasm('crash'), dir]);
});

test('crash consistency on a host mount on the core (ASan+UBSan): the same', async (t) => {
  await crashTrials(t, 'core', core('crash', 'address,undefined'), (dir) => [dir]);
});
