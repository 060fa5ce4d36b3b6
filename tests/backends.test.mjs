// The file system's backends: the host-directory backend, natively on wasmscale's core (under
// ASan+UBSan and TSan, against a real directory) and in Wasm on Node, mounted with the C API
// and with `wasmscale-cc --mount`. The host side of every run is checked here, after it.
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

test('a program that mounts no host directory links neither the host backend nor its JS', () => {
  const glue = fs.readFileSync(wasm('console'), 'utf8');
  assert.doesNotMatch(glue, /_wasmscale_host_/, 'host.js functions in a program without host mounts');
  assert.match(fs.readFileSync(wasm('host', ['--mount=/data=dir']), 'utf8'), /_wasmscale_host_startup_mounts/);
});

test('wasmscale-cc --mount refuses what it cannot do', () => {
  for (const [args, message] of [
    [['--mount=data=dir', 'x.c'], /absolute VIRTUAL path/],
    [['--mount=/=dir', 'x.c'], /root cannot be mounted over/],
    [['--mount=/data=', 'x.c'], /expected --mount=VIRTUAL=HOST_DIR/],
    [['--fs=js', '--mount=/data=dir', 'x.c'], /--mount needs --fs=wasmscale/],
  ]) {
    const result = run(DRIVER, args, { cwd: ROOT });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, message);
  }
});
