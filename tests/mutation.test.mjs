// A fixed sample of mutants of the files where bugs cost most (tools/mutation.py; docs/testing.md):
// 3 per file, always the same ones for the same sources, and every one must be killed by the
// tests that cover its file (or be listed as equivalent, with the reason). `make mutation` runs
// the large sample and reports the score per file.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, run } from './helpers.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-mutation-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const PYTHON = path.join(ROOT, 'build', 'venv', 'bin', 'python');  // set-up installs universalmutator there
const PER_FILE = 3;
const SEED = 2026;

// TEST_MUTATION=0 (make test's variable) leaves the sample out: .ci/run draws it with the
// default release only, since the tests it measures are the same with each.
const skip = process.env.TEST_MUTATION === '0' && 'TEST_MUTATION=0: the mutation sample measures the tests, not the release; .ci/run draws it in the default release\'s pass';

test(`a fixed sample of mutants (${PER_FILE} per file, seed ${SEED}) is killed by the tests`, { skip }, (t) => {
  const result = run(PYTHON, [path.join(ROOT, 'tools', 'mutation.py'), '--per-file', String(PER_FILE), '--seed', String(SEED),
                              '--jobs', '2', '--require-all-killed', '--work', scratch], { timeout: 1_800_000 });
  const output = result.stdout + result.stderr;
  assert.equal(result.status, 0, output.slice(-4000));
  // 3 per file less those listed as equivalent; one that a release's compiler refuses counts as
  // not compiling. Every other one must be killed.
  const killed = [...output.matchAll(/^mutation: \[\d+\/\d+\] .*: (killed|timed out)/gm)].length;
  const unbuilt = [...output.matchAll(/^mutation: \[\d+\/\d+\] .*: build failed/gm)].length;
  assert.ok(killed >= 25, `only ${killed} mutants were killed:\n${output.slice(-2000)}`);
  assert.doesNotMatch(output, /: survived$/m);
  t.diagnostic(`mutation sample: ${killed} mutants killed, ${unbuilt} not compiling, none survived`);
});
