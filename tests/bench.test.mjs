// The benchmark suite: every program verifies its results with every peer on Node and in
// Chromium (quick mode), results match the schema, and the report and charts are written.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, run } from './helpers.mjs';
import { configurations, knownIssue } from '../bench/runner/matrix.mjs';
import { validateResults, RECORD_KEYS, SCHEMA } from '../bench/runner/schema.mjs';
import { parseOutput } from '../bench/runner/protocol.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-bench-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const out = path.join(scratch, 'results');

test('quick suite: every configuration verifies on every host; JSON, report and charts are written', () => {
  const result = run(process.execPath, [path.join(ROOT, 'bench/runner/run.mjs'), '--quick', `--out=${out}`],
                     { cwd: ROOT, timeout: 600_000 });
  assert.equal(result.status, 0, result.stdout.slice(-3000) + result.stderr);
  assert.match(result.stdout, /^\[1\/\d+\] node math\/standard/m, 'a progress line per run');

  const jsonFiles = fs.readdirSync(out).filter((name) => /^\d{4}-.*\.json$/.test(name));
  assert.equal(jsonFiles.length, 1);
  const results = JSON.parse(fs.readFileSync(path.join(out, jsonFiles[0]), 'utf8'));
  assert.deepEqual(validateResults(results), []);

  for (const config of configurations({ quick: true })) {
    for (const host of config.hosts) {
      const label = `${host} ${config.program} ${config.variant} t=${config.threads}`;
      const records = results.records.filter((r) => r.host === host && r.workload === config.workload &&
        r.variant === config.variant && r.malloc === config.malloc && r.fs === config.fs &&
        r.where === config.where && r.threads === config.threads);
      assert.ok(records.length >= 1, `${label} has records`);
      for (const record of records) {
        // A peer's known defect may fail a run (recorded with its note); nothing else may.
        if (record.known_issue) continue;
        assert.equal(record.status, 'ok', `${label}: ${record.reason}`);
        assert.ok(record.ms > 0 && record.ops > 0, `${label} measured`);
        assert.ok(host === 'native' ? record.wasm_bytes === null : record.wasm_bytes > 10_000, `${label} .wasm size`);
        assert.ok(record.peak_bytes > 0, `${label} peak memory`);
      }
    }
  }

  const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
  for (const heading of ['## Headline', '## Allocator targets', '## math', '## malloc', '## fs', '## pgzip', 'Machine:']) {
    assert.ok(report.includes(heading), heading);
  }
  assert.match(report, /\| wasmscale host backend \| wasmscale \| 4 \|/, 'pgzip rows');
  // Speed targets are judged on the fastest repetitions, peaks on the highest; both show the medians' ratio beside.
  assert.match(report, /\| node: small, 2 thread\(s\), at least as fast as mimalloc \| [\d.]+× mimalloc's speed; medians [\d.]+× \|/);
  assert.match(report, /\| node: cross, 4 thread\(s\), peak ≤ 1.1× dlmalloc.s and ≤ mimalloc.s \| [\d.]+× dlmalloc, [\d.]+× mimalloc; medians [\d.]+× dlmalloc \|/);
  assert.match(report, /\| native \| wasmscale \| 1 \|/, 'the near-native reference rows');
  assert.ok(results.size_baseline_bytes > 10_000, 'the code-size baseline was measured');
  const charts = path.join(out, 'charts');
  const svgs = fs.readdirSync(charts).filter((name) => name.endsWith('.svg'));
  assert.ok(svgs.length >= 10, `charts written: ${svgs.join(', ')}`);
  for (const svg of svgs) {
    assert.ok(report.includes(`charts/${svg}`), `report links ${svg}`);
    assert.match(fs.readFileSync(path.join(charts, svg), 'utf8'), /^<svg[^]*<\/svg>$/);
    const png = fs.readFileSync(path.join(charts, svg.replace(/\.svg$/, '.png')));
    assert.ok(png.length > 5000, `${svg} has a PNG with content`);
    assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  }
});

// Targets met in every run so far by a margin far beyond this machine's noise (docs/benchmarks.md,
// latest full run: 0.33× where 0.5× is the goal; 811× and 309× where 32× is) must be met even by
// the quick suite's small runs: a verdict of "not met" there is a regression, not noise.
const TARGETS_WITH_MARGIN = [
  'code added to the .wasm ≤ half of what mimalloc adds',
  'node: records on a pthread ≥ 32× faster than the JS FS',
  'node: smallfile on a pthread ≥ 32× faster than the JS FS',
];
test('the quick suite\'s report meets the targets that have a wide margin', () => {
  const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
  for (const target of TARGETS_WITH_MARGIN) {
    const row = report.split('\n').find((line) => line.startsWith(`| ${target} |`));
    assert.ok(row, `the report has a row for "${target}"`);
    assert.match(row, /\| met \|$/, row);
  }
});

test('the output protocol separates results, failures and unsupported cases', () => {
  const line = '@@wsb {"rep":1,"warmup":false,"ms":2.5,"ops":10,"peak_bytes":64,"checksum":"00000000000000ff","ok":true}';
  assert.deepEqual(parseOutput([line, ''], 0).status, 'ok');
  assert.equal(parseOutput([line, '@@error block corrupted'], 1).reason, 'block corrupted');
  assert.equal(parseOutput(['@@unsupported unlink is not implemented'], 3).status, 'unsupported');
  assert.match(parseOutput([line, 'RuntimeError: Aborted(OOM)'], 7).reason, /exit status 7: .*Aborted\(OOM\)/);
  assert.equal(parseOutput([], 0).status, 'failed', 'no result is a failure');
});

test('only a peer\'s documented symptom counts as a known issue', () => {
  const wasmfsFiles = { workload: 'fs', variant: 'files', malloc: 'dlmalloc', fs: 'wasmfs', where: 'pthread', threads: 2 };
  assert.match(knownIssue(wasmfsFiles, 'fs: write(/tmp/wsb-files-4-0) failed: Is a directory'), /WasmFS/);
  assert.match(knownIssue(wasmfsFiles, 'fs: record 799 of /tmp/wsb-files-2-2 read back wrong'), /WasmFS/,
               "another thread's file read through a crossed descriptor");
  assert.equal(knownIssue(wasmfsFiles, 'fs: /tmp/x has 5 bytes, expected 100'), null, 'other wrong results are not excused');
  assert.equal(knownIssue({ ...wasmfsFiles, threads: 1 }, 'fs: record 7 of /tmp/x read back wrong'), null, 'not on one thread');
  assert.equal(knownIssue({ ...wasmfsFiles, threads: 1 }, 'fs: write(/tmp/x) failed: Is a directory'), null);
  assert.equal(knownIssue({ ...wasmfsFiles, fs: 'js' }, 'fs: write(/tmp/x) failed: Is a directory'), null);
});

test('the schema rejects malformed results', () => {
  const record = Object.fromEntries(RECORD_KEYS.map((key) => [key, null]));
  Object.assign(record, { workload: 'malloc', variant: 'standard', host: 'node', threads: 2, malloc: 'dlmalloc',
    fs: 'js', where: 'pthread', scale: 1, round: 1, rep: 1, ms: 3, ops: 10, peak_bytes: 100, wasm_bytes: 5000,
    checksum: '00000000000000ff', ok: true, status: 'ok', known_issue: null });
  const results = { schema: SCHEMA, started: '2026-01-01T00:00:00Z', finished: '2026-01-01T00:01:00Z',
                    machine: { cores: 2 }, records: [record] };
  assert.deepEqual(validateResults(results), []);
  assert.match(validateResults({ ...results, records: [{ ...record, host: 'safari' }] })[0], /host/);
  assert.match(validateResults({ ...results, records: [{ ...record, ms: -1 }] })[0], /ms/);
  assert.match(validateResults({ ...results, records: [{ ...record, ok: false, status: 'failed' }] })[0], /no reason/);
  const { threads, ...withoutThreads } = record;
  assert.match(validateResults({ ...results, records: [withoutThreads] })[0], /threads is missing/);
});

// Natively built (gcc) with a corrupting malloc or read wrapped around the real one.
function nativeBench(workload, wrap, extra = []) {
  const exe = path.join(scratch, `${workload}-corrupt`);
  const build = run('gcc', ['-O1', '-pthread', `-D${wrap}=corrupting_${wrap}`, path.join(ROOT, `bench/src/${workload}.c`),
    path.join(ROOT, 'bench/src/harness.c'), ...extra, '-x', 'none', path.join(scratch, 'corrupting_io.o'), '-o', exe]);
  assert.equal(build.status, 0, build.stderr);
  return exe;
}

test('benchmark programs detect corrupted results and fail loudly', () => {
  const object = run('gcc', ['-O1', '-c', path.join(ROOT, 'tests/fixtures/corrupting_io.c'), '-o', path.join(scratch, 'corrupting_io.o')]);
  assert.equal(object.status, 0, object.stderr);
  const malloc = run(nativeBench('malloc', 'malloc'), ['--threads=2', '--scale=0.01', '--reps=1']);
  assert.equal(malloc.status, 1);
  assert.match(malloc.stdout, /^@@error malloc: block .* was corrupted while live/m);
  const fsRun = run(nativeBench('fs', 'read'), ['--variant=smallfile', '--scale=1', '--reps=1'], { cwd: scratch });
  assert.equal(fsRun.status, 1);
  assert.match(fsRun.stdout, /^@@error fs: .* read back wrong/m);
  // pgzip natively with the system's zlib, its .gz files written wrong.
  const pgzip = run(nativeBench('pgzip', 'fwrite', [path.join(ROOT, 'examples/pgzip/gzip_file.c'), '-lz']),
                    ['--scale=0.05', '--reps=1', '--warmup=0', `--dir=${scratch}`], { cwd: scratch });
  assert.equal(pgzip.status, 1, pgzip.stdout + pgzip.stderr);
  assert.match(pgzip.stdout, /^@@error pgzip: .* does not inflate to its input/m);
});

test('benchmark programs reject bad arguments', () => {
  const exe = path.join(scratch, 'math-native');
  assert.equal(run('gcc', ['-O1', '-pthread', path.join(ROOT, 'bench/src/math.c'), path.join(ROOT, 'bench/src/harness.c'), '-o', exe]).status, 0);
  const badThreads = run(exe, ['--threads=0']);
  assert.equal(badThreads.status, 2);
  assert.match(badThreads.stderr, /--threads expects a whole number from 1 to 64, got '0'/);
  assert.equal(run(exe, ['--frobnicate']).status, 2);
  assert.match(run(exe, ['--variant=other']).stdout, /@@error math: unknown variant 'other'/);
  const good = run(exe, ['--threads=3', '--scale=0.05', '--reps=2']);
  assert.equal(good.status, 0, good.stderr);
  assert.equal(good.stdout.trim().split('\n').filter((l) => l.startsWith('@@wsb')).length, 3, 'warm-up + 2 reps');
});
