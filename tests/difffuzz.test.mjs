// The differential fuzzer: random sequences of file calls (tests/fs/difffuzz.c) run on Linux and
// on wasmscale (the core natively under ASan+UBSan, and in Wasm on Node; on the memory file
// system and on a host mount), compared result by result and errno by errno. Seeded: seeds
// WASMSCALE_DIFF_SEED (default 1) and on, WASMSCALE_DIFF_SEEDS of them (default 20),
// WASMSCALE_DIFF_STEPS calls each (default 500). A difference is shrunk to the shortest
// sequence of calls that still shows it, and printed with its seed and the command replaying it.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from './helpers.mjs';
import { fsPrograms } from './fs/programs.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-difffuzz-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
const { linux, core, wasm } = fsPrograms(scratch);

const FIRST_SEED = Number(process.env.WASMSCALE_DIFF_SEED || 1);
const SEEDS = Number(process.env.WASMSCALE_DIFF_SEEDS || 20);
const STEPS = Number(process.env.WASMSCALE_DIFF_STEPS || 500);

const freshDir = () => fs.mkdtempSync(path.join(scratch, 'root-'));

// Sequences the fuzzer once found differing, shrunk, replayed on every run (seed, count, steps).
const REGRESSIONS = [
  [1, 400, '20,55,59'],             // open(O_CREAT) through a dangling symlink: Linux creates its target
  [80, 600, '18,45,74,86,119'],     // link() of a file whose first name is gone (host mount): ENOENT
];

// The sides compared with Linux: a command line for a seed, a step count and a step list.
function sides() {
  const coreProgram = core('difffuzz', 'address,undefined');
  const wasmProgram = wasm('difffuzz');
  const wasmRun = (root) => (args) => [process.execPath, ['--no-experimental-fetch', wasmProgram, root(), ...args]];
  return {
    'core, memory': (args) => [coreProgram, ['-', ...args]],
    'core, host mount': (args) => [coreProgram, [`mount:${freshDir()}`, ...args]],
    'Wasm on Node, memory': wasmRun(() => '-'),
    'Wasm on Node, host mount': wasmRun(() => `mount:${freshDir()}`),
  };
}

function output(commandLine) {
  const [command, args] = commandLine;
  const result = run(command, args);
  assert.equal(result.status, 0, `${command} ${args.join(' ')}: ${result.stdout.slice(-2000)}${result.stderr.slice(-2000)}`);
  return result.stdout.split('\n').filter((line) => /^\d+: /.test(line));
}

const linuxRun = (args) => output([linux('difffuzz'), [freshDir(), ...args]]);

// The first line where two outputs differ, or -1.
function firstDifference(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

// The shortest list of steps (ending with `last`) found whose outputs still differ: delta
// debugging over the steps before it.
function shrink(side, seed, count, last) {
  const differs = (steps) => {
    const args = [String(seed), String(count), steps.join(',')];
    return firstDifference(linuxRun(args), output(side(args))) >= 0;
  };
  let steps = Array.from({ length: last + 1 }, (_, i) => i);
  for (let chunks = 2; steps.length > 1;) {
    const before = steps.slice(0, -1), size = Math.ceil(before.length / chunks);
    let removed = false;
    for (let at = 0; at < before.length && !removed; at += size) {
      const candidate = [...before.slice(0, at), ...before.slice(at + size), last];
      if (candidate.length < steps.length && differs(candidate)) {
        steps = candidate;
        chunks = Math.max(chunks - 1, 2);
        removed = true;
      }
    }
    if (!removed) {
      if (size <= 1) break;
      chunks = Math.min(chunks * 2, before.length);
    }
  }
  return steps;
}

test(`differential fuzzer: ${SEEDS} seeds x ${STEPS} file calls, Linux against wasmscale on the core and in Wasm, memory and host mounts`, (t) => {
  const compared = sides();
  let calls = 0;
  for (let seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
    const args = [String(seed), String(STEPS)];
    const expected = linuxRun(args);
    for (const [name, side] of Object.entries(compared)) {
      const got = output(side(args));
      const at = firstDifference(expected, got);
      if (at >= 0) {
        const last = Number(/^(\d+):/.exec(expected[at] ?? got[at])[1]);
        const steps = shrink(side, seed, STEPS, last);
        const replay = [String(seed), String(STEPS), steps.join(',')];
        assert.fail(`${name} differs from Linux at seed ${seed}, step ${last}; shortest sequence found: steps ${steps.join(',')}\n` +
                    `replay: difffuzz ROOT ${replay.join(' ')}\nLinux:\n${linuxRun(replay).join('\n')}\n` +
                    `${name}:\n${output(side(replay)).join('\n')}`);
      }
      calls += got.length;
    }
  }
  t.diagnostic(`differential fuzzer: ${calls} calls on 4 sides (seeds ${FIRST_SEED}-${FIRST_SEED + SEEDS - 1}), 0 mismatches`);
});

test('differential fuzzer: the sequences it once found differing agree now', () => {
  const compared = sides();
  for (const replay of REGRESSIONS.map((row) => row.map(String))) {
    const expected = linuxRun(replay);
    for (const [name, side] of Object.entries(compared)) {
      assert.deepEqual(output(side(replay)), expected, `${name}, replay ${replay.join(' ')}`);
    }
  }
});
