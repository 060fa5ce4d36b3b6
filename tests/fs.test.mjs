// The wasmscale file system's tests: the conformance table (native Linux vs Wasm), fsx-style
// random operations, the multithreaded state test, console output, injected and real errors.
// Natively (Linux, and the core alone under ASan+UBSan and TSan), in Wasm on Node and in
// headless Chromium; and every Wasm build is checked to hold no JavaScript file system.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, chromiumRunner, run, runWasm } from './helpers.mjs';
import { expectOutput, fsPrograms } from './fs/programs.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-fs-'));
const { linux, core, wasm } = fsPrograms(scratch);

const CONFORMANCE = /conformance: (\d+) cases, 0 failed/;
const cases = (result) => Number(CONFORMANCE.exec(result.stdout)?.[1]);

const inChromium = chromiumRunner(scratch);
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

test('conformance: Linux and wasmscale in Wasm give the table\'s answers, case for case', () => {
  const native = run(linux('conformance'), []);
  expectOutput(native, CONFORMANCE);
  const wasmRun = runWasm(wasm('conformance'));
  expectOutput(wasmRun, CONFORMANCE);
  assert.equal(cases(wasmRun), cases(native), 'both ran every case');
  assert.ok(cases(native) >= 200, `only ${cases(native)} cases`);
});

test('conformance in Chromium', async () => {
  expectOutput(await inChromium(wasm('conformance')), CONFORMANCE);
});

test('fsx random operations: Linux, the core under ASan+UBSan, Wasm on Node and in Chromium', async () => {
  const matched = /fsx: seed \d+: \d+ operations .* matched/;
  expectOutput(run(linux('fsx'), []), matched);
  expectOutput(run(core('fsx', 'address,undefined'), ['8000']), matched);
  expectOutput(runWasm(wasm('fsx'), ['8000']), matched);
  // A seed from the environment (WS_FSX_SEED replays a failure), else one that differs per run;
  // Wasm programs do not see the host's environment, so it goes as an argument.
  const seed = process.env.WS_FSX_SEED || String(Date.now() % 1000000007);
  expectOutput(runWasm(wasm('fsx'), ['4000', seed]), new RegExp(`fsx: seed ${seed}: 4000 operations .* matched`));
  expectOutput(await inChromium(wasm('fsx'), ['4000']), matched);
});

// A threaded program on wasmscale's core under TSan (no report) and ASan+UBSan, then in Wasm
// on Node and in Chromium; each run must print `pattern`.
async function expectOnCoreAndWasm(name, pattern, { coreArgs, wasmArgs, chromiumArgs = wasmArgs }) {
  const tsan = run(core(name, 'thread'), coreArgs);
  assert.doesNotMatch(tsan.stderr, /ThreadSanitizer/, tsan.stderr.slice(0, 4000));
  expectOutput(tsan, pattern);
  expectOutput(run(core(name, 'address,undefined'), coreArgs), pattern);
  expectOutput(runWasm(wasm(name), wasmArgs), pattern);
  expectOutput(await inChromium(wasm(name), chromiumArgs), pattern);
}

test('threads: many threads create, rename, read and delete; the final state is verified', async () => {
  const verified = /threads: \d+ threads x \d+ rounds: final state verified/;
  expectOutput(run(linux('threads'), ['4', '40']), verified);
  await expectOnCoreAndWasm('threads', verified, { coreArgs: ['4', '40'], wasmArgs: ['4', '60'] });
});

test('sharing: one description, one file and a reused descriptor number under many threads', async () => {
  await expectOnCoreAndWasm('sharing', /sharing: \d+ threads x \d+ rounds: all consistent/,
                            { coreArgs: ['4', '300'], wasmArgs: ['4', '300'], chromiumArgs: ['4', '200'] });
});

test('FIFO opens wait for each other, even for a writer that has come and gone', async () => {
  const done = /fifo: \d+ rounds: every open returned, every round read/;
  expectOutput(run(linux('fifo'), ['2000']), done);
  await expectOnCoreAndWasm('fifo', done, { coreArgs: ['2000'], wasmArgs: ['2000'], chromiumArgs: ['500'] });
});

test('JS API: the host writes inputs, reads outputs and sees errno codes while pthreads use the files', async () => {
  const program = wasm('js_api', ['--pre-js', path.join(ROOT, 'tests/fs/js_api.pre.js')]);
  // Each line on its own: in Chromium the page's and the workers' console lines reach the test
  // in no fixed order. The order itself is checked inside the program: main reads what the host
  // wrote before it, and fails unless Module.checkOutputs returned no failures.
  const lines = [/js-api host: before main: ok\n/, /js-api host: outputs: ok\n/, /js-api: all checks passed\n/];
  for (const result of [runWasm(program), await inChromium(program)]) {
    for (const line of lines) expectOutput(result, line);
  }
});

test('console: lines from 4 threads arrive whole, and the unfinished last line at exit', () => {
  const result = runWasm(wasm('console'));
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.split('\n');
  const last = lines.pop();
  assert.equal(last, 'last words without a newline');
  assert.equal(lines.length, 800);
  for (const line of lines) assert.match(line, /^thread \d line \d+ end$/);
  assert.equal(new Set(lines).size, 800, 'every line once');
  assert.equal(result.stderr.trim().split('\n').filter((line) => /^thread \d done$/.test(line)).length, 4);
});

test('console in Chromium: worker threads print through the browser console', async () => {
  const result = await inChromium(wasm('console'));
  assert.equal(result.status, 0, result.stdout.slice(-2000));
  const lines = result.stdout.split('\n').filter((line) => /^thread \d line \d+ end$/.test(line));
  assert.equal(new Set(lines).size, 800);
  assert.match(result.stdout, /last words without a newline/);
});

test('faults: injected backend failures, EXDEV between mounts, ENOSPC leave data intact', () => {
  expectOutput(runWasm(wasm('faults', ['-I' + path.join(ROOT, 'include'), '-sMAXIMUM_MEMORY=64MB'])), /faults: all passed/);
});
