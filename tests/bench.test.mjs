// The benchmark suite: every program verifies its results with every peer on Node and in
// Chromium (quick mode), results match the schema, and the report and charts are written.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, run, runWasm } from './helpers.mjs';
import { configurations, knownIssue, parseThreadCounts, threadScale } from '../bench/runner/matrix.mjs';
import { parseProbeLine } from '../bench/runner/protocol.mjs';
import { perOperation } from '../bench/runner/contention.mjs';
import { targetGroups } from '../bench/runner/targets.mjs';
import { summarize } from '../bench/runner/summary.mjs';
import { validateResults, RECORD_KEYS, SCHEMA } from '../bench/runner/schema.mjs';
import { parseOutput } from '../bench/runner/protocol.mjs';
import { wasmBuildDir } from '../tools/toolchain.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-bench-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const out = path.join(scratch, 'results');

test('quick suite: every configuration verifies on every host; JSON, report and charts are written', () => {
  const result = run(process.execPath, [path.join(ROOT, 'bench/runner/run.mjs'), '--quick', `--out=${out}`],
                     { cwd: ROOT, timeout: 600_000 });
  // stderr first: it names each failed configuration, and a long message is cut in the middle.
  assert.equal(result.status, 0, result.stderr + result.stdout.slice(-3000));
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

  // The contention probe ran for every variant up to 16 threads, whatever the suite's counts.
  assert.deepEqual([...new Set(results.contention.map((r) => r.threads))], [1, 2, 4, 8, 16]);
  assert.deepEqual([...new Set(results.contention.map((r) => r.variant))], ['standard', 'small', 'cross']);
  for (const record of results.contention) {
    assert.ok(record.ops >= 2 * 3e6 * record.scale, `${record.variant} t=${record.threads}: a malloc and a free per step were counted`);
    assert.equal(record.rmw_fast, 0, `${record.variant} t=${record.threads}: no atomic read-modify-write on the fast paths`);
    assert.equal(record.shared_fast, 0, `${record.variant} t=${record.threads}: no write on the fast paths to a line another thread writes`);
  }
  assert.ok(results.contention.some((r) => r.variant === 'cross' && r.threads > 1 && r.shared_slow > 0),
            'cross-thread frees write lines other threads write');

  const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
  for (const heading of ['## Headline', '## Allocator targets', '## math', '## Scaling beside math', '## malloc', '## Contention',
                         '## fs', '## pgzip', 'Machine:']) {
    assert.ok(report.includes(heading), heading);
  }
  assert.match(report, /\| wasmscale host backend \| wasmscale \| 4 \|/, 'pgzip rows');
  // Speed targets are judged on the fastest repetitions, peaks on the highest; both show the medians' ratio beside.
  assert.match(report, /\| node: small, 2 thread\(s\), at least as fast as mimalloc \| [\d.]+× mimalloc's speed; medians [\d.]+× \|/);
  assert.match(report, /\| node: cross, 4 thread\(s\), peak ≤ 1.1× dlmalloc.s and ≤ mimalloc.s \| [\d.]+× dlmalloc, [\d.]+× mimalloc; medians [\d.]+× dlmalloc \|/);
  assert.match(report, /\| native \| wasmscale \| 1 \|/, 'the near-native reference rows');
  // A quick run's own-work time may come out above a whole call's: then the row says so.
  assert.match(report, /\| node: records \(pthread\) ≥ 2× faster than WasmFS \| [\d.]+×; file calls alone ([\d.]+×|not measured \(.*\)) \|/);
  assert.match(report, /^- chromium: of each records µs\/op above, the records' own work .* takes [\d.]+ on the main thread/m);
  assert.match(report, /\| contention: malloc\/free fast paths do no atomic read-modify-write \| 0\.000 per 1,000 operations at most \| met \|/);
  assert.match(report, /\| contention: small, 16 threads, slow-path lock acquisitions ≤ 1 per 10,000 operations \| [\d.]+ per 10,000 \|/);
  assert.match(report, /\| node \| malloc standard \| wasmscale \| [\d.]+× \([\d.]+ of math's [\d.]+×\) \|/, 'speed-ups beside math\'s');
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
  const jsFiles = { ...wasmfsFiles, fs: 'js', threads: 4 };
  assert.match(knownIssue(jsFiles, 'timed out after 60000 ms', '4.0.23'), /JS file system/, 'the JS FS hang of 4.0.23');
  assert.equal(knownIssue(jsFiles, 'timed out after 60000 ms', '3.1.6'), null, 'only on the release it was seen with');
  assert.equal(knownIssue({ ...jsFiles, threads: 1 }, 'timed out after 60000 ms', '4.0.23'), null, 'not on one thread');
  assert.equal(knownIssue(jsFiles, 'exit status 1: fs: read failed', '4.0.23'), null, 'only the hang');
  assert.equal(knownIssue({ ...jsFiles, fs: 'wasmscale' }, 'timed out after 60000 ms', '4.0.23'), null, 'never ours');
  assert.match(knownIssue({ ...jsFiles, fs: 'nodefs' }, 'timed out after 180000 ms', '4.0.23'), /JS file system/,
               'NODEFS is a mount of the same JS file system, its calls proxied alike');
  assert.equal(knownIssue({ ...jsFiles, fs: 'host' }, 'timed out after 180000 ms', '4.0.23'), null, 'never our host backend');
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

test('the records variant\'s own work, without a file call, makes the same records as records', () => {
  const exe = path.join(scratch, 'fs-native');
  const build = run('gcc', ['-O1', '-pthread', path.join(ROOT, 'bench/src/fs.c'), path.join(ROOT, 'bench/src/harness.c'), '-o', exe]);
  assert.equal(build.status, 0, build.stderr);
  const result = (variant) => {
    const output = run(exe, [`--variant=${variant}`, '--scale=0.2', '--reps=1', '--warmup=0', `--dir=${scratch}`]);
    assert.equal(output.status, 0, output.stdout + output.stderr);
    return JSON.parse(output.stdout.split('\n').find((line) => line.startsWith('@@wsb ')).slice(6));
  };
  const records = result('records'), work = result('records-work');
  assert.equal(work.checksum, records.checksum);
  assert.equal(work.ops, records.ops, 'counted as records\' calls, so µs per op compare');
  // The runner sizes it as records: a tenth of the work made 10 ms repetitions, which swing.
  const sizes = (variant) => configurations().filter((c) => c.variant === variant && c.fs === 'wasmscale').map((c) => `${c.where} ${c.scale}`);
  assert.deepEqual(sizes('records-work'), sizes('records'));
});

test('a records target gives the file calls\' speed alone beside the whole workload\'s', () => {
  // 3 µs per op of own work: wasmscale 5 (2 in calls), WasmFS 9 (6 in calls): 1.8× whole, 3× alone.
  const records = [['records', 'wasmscale', 5000], ['records', 'wasmfs', 9000], ['records-work', 'wasmscale', 3000]]
    .flatMap(([variant, fileSystem, ms]) => ['main', 'pthread'].map((where) => ({
      workload: 'fs', variant, malloc: 'dlmalloc', fs: fileSystem, host: 'node', threads: 1, where, scale: 1, round: 1, rep: 1,
      ms, ops: 1000, peak_bytes: 1, wasm_bytes: 1, checksum: null, ok: true, status: 'ok', reason: null, known_issue: null })));
  const recordsRows = (list) => targetGroups(summarize(list), { machine: { cores: 2 }, records: list, size_baseline_bytes: null })
    .flatMap((group) => group.rows).filter((row) => /^node: records \((main|pthread)\) ≥ 2× faster than WasmFS$/.test(row[0]));
  const rows = recordsRows(records);
  assert.equal(rows.length, 2);
  for (const row of rows) assert.deepEqual(row.slice(1), ['1.80×; file calls alone 3.00×', '**not met**']);
  assert.equal(recordsRows(records.filter((r) => r.variant !== 'records-work'))[0][1], '1.80×');
  // Own work timed longer than a whole call (a short run's warm-up, say) gives no ratio.
  const slowWork = records.map((r) => (r.variant === 'records-work' ? { ...r, ms: 6000 } : r));
  assert.equal(recordsRows(slowWork)[0][1], '1.80×; file calls alone not measured (own work 6000.000 µs/op, no less than a whole call)');
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

test('the class floor counts each size class\'s highest live bytes from the malloc workload\'s own ring', () => {
  const exe = path.join(scratch, 'class-floor');
  const build = run('cc', ['-O2', '-std=gnu11', `-I${ROOT}/src/alloc`, `-I${ROOT}/include`, path.join(ROOT, 'bench/micro/class_floor.c'), '-o', exe]);
  assert.equal(build.status, 0, build.stderr);
  const counts = (args) => {
    const result = run(exe, args);
    assert.equal(result.status, 0, result.stderr);
    const number = (label) => Number(result.stdout.match(new RegExp(`${label}:\\s+(\\d+)`))[1]);
    return { requested: number('requested'), rounded: number('rounded to classes'), classes: number('highest live bytes') };
  };
  // 900 allocations fill less than the ring: nothing is freed, so every class peaks at the end.
  const unfreed = counts(['standard', '1', '0.0003']);
  assert.equal(unfreed.classes, unfreed.rounded);
  assert.ok(unfreed.requested >= 900 * 1000 && unfreed.requested < 900 * 2024);
  // With the ring turning, the classes' counts swing apart: their peaks add up to more than the
  // highest total, but far less than all that was ever allocated.
  const turning = counts(['small', '2', '0.05']);
  assert.ok(turning.requested < turning.rounded && turning.rounded < turning.classes, JSON.stringify(turning));
  assert.ok(turning.classes < 2 * turning.rounded, JSON.stringify(turning));
  const cross = run(exe, ['cross']);
  assert.equal(cross.status, 2);
  assert.match(cross.stderr, /usage: .* small\|standard/);
});

test('the coalescing-heap prototype serves the malloc workload, blocks passed between threads included, intact', () => {
  // The workload checks each block's size field and last byte when it frees it (bench/src/malloc.c),
  // so two live blocks that overlap, or a block merged while in use, fail the run.
  const js = path.join(wasmBuildDir(), 'bench', 'malloc-coalescing-heap.js');
  const build = run('make', ['-C', ROOT, '--no-print-directory', '-s', path.relative(ROOT, js)]);
  assert.equal(build.status, 0, build.stderr);
  for (const [variant, threads] of [['small', 1], ['standard', 2], ['cross', 3]]) {
    const result = runWasm(js, [`--variant=${variant}`, `--threads=${threads}`, '--reps=2', '--warmup=0', '--scale=0.1']);
    assert.equal(result.status, 0, `${variant} at ${threads} threads: ${result.stderr.slice(0, 2000)}`);
    const records = result.stdout.split('\n').filter((line) => line.startsWith('@@wsb ')).map((line) => JSON.parse(line.slice(6)));
    assert.equal(records.length, 2);
    assert.ok(records.every((record) => record.ok), result.stdout);
  }
});

test('the contention probe counts atomics, shared-line writes and slow operations as they happen', () => {
  const fixture = path.join(ROOT, 'tests/fixtures/probe_counts.c');
  const probed = path.join(scratch, 'probe_counts_probed.o'), exe = path.join(scratch, 'probe_counts');
  let build = run('clang-14', ['-O1', '-fsanitize=thread', '-DPROBED', '-c', fixture, '-o', probed]);
  assert.equal(build.status, 0, build.stderr);
  const allocator = fs.readdirSync(path.join(ROOT, 'build/obj/contention')).map((name) => path.join(ROOT, 'build/obj/contention', name));
  build = run('clang-14', ['-O1', '-pthread', `-I${ROOT}/include`, fixture, probed, path.join(ROOT, 'bench/contention/probe.c'), ...allocator,
                           '-o', exe]);
  assert.equal(build.status, 0, build.stderr);
  const result = run(exe, []);
  assert.equal(result.status, 0, result.stderr);
  const counts = parseProbeLine(result.stderr);
  assert.equal(counts.rmw_fast, 3, 'three fetch-and-adds, each an operation of its own');
  assert.equal(counts.shared_fast, 2, 'each other thread\'s write to the line the main thread wrote; not the main thread\'s ' +
                                     'write after a thread that exited');
  assert.ok(counts.ops - counts.fast_ops >= 1, 'the write through a second function is a slow operation');
  assert.equal(counts.shared_slow, 1, 'the write after a thread still running');
  assert.ok(counts.writes_fast >= 4, 'every write counted');
  assert.throws(() => parseProbeLine('no line'), /printed no "contention:" line/);
  assert.throws(() => parseProbeLine('contention: {"ops": -1}'), /ops is -1/);
});

test('work grows with the most threads a run has, and dlmalloc does less in runs past 4 threads', () => {
  assert.deepEqual(parseThreadCounts('16,1,2,2'), [1, 2, 16]);
  for (const bad of ['', '0', '1,x', '65', '2.5']) assert.throws(() => parseThreadCounts(bad), /whole numbers from 1 to 64/, bad);
  assert.equal(threadScale('standard', 4), 1, 'the default counts keep the work as it was');
  assert.equal(threadScale('standard', 16), 4);
  assert.equal(threadScale('small', 16), 8, 'small blocks were the shortest at 16 threads');
  const byKey = (list) => new Map(list.map((c) => [`${c.workload}/${c.variant}/${c.malloc}/${c.fs}/${c.where}/${c.threads}`, c]));
  const wide = byKey(configurations({ threads: [1, 2, 4, 8, 16] })), narrow = byKey(configurations());
  assert.equal(wide.get('malloc/small/wasmscale/js/pthread/16').scale, 8);
  assert.equal(wide.get('malloc/standard/dlmalloc/js/pthread/16').scale, 4 / 32, 'dlmalloc: 1 / (2 x threads) of the work');
  assert.equal(wide.get('malloc/standard/dlmalloc/js/pthread/4').scale, 4 / 8);
  assert.equal(wide.get('malloc/standard/dlmalloc/js/pthread/1').scale, 4);
  assert.equal(narrow.get('malloc/standard/dlmalloc/js/pthread/4').scale, 1, 'up to 4 threads all do the same work');
  assert.equal(wide.get('fs/files/dlmalloc/wasmscale/pthread/16').scale, 40);
  assert.equal(wide.get('fs/records/dlmalloc/wasmscale/main/1').scale, narrow.get('fs/records/dlmalloc/wasmscale/main/1').scale,
               'single-thread workloads keep their size');
  assert.equal(narrow.get('malloc/standard/wasmscale/js/pthread/4').scale, 1);
  assert.deepEqual(perOperation({ ops: 20000, fast_ops: 15000, rmw_fast: 0, rmw_slow: 10, shared_fast: 2, shared_slow: 4,
                                  block_links_passed: 6, pool_locks: 1, orphan_locks: 2, growths: 1 }),
                   { slowShare: 0.25, rmwFast: 0, rmwSlow: 0.5, sharedFast: 0.1, sharedSlow: 0.2, blocksPassed: 0.3, locksPer10k: 2 });
});

test('the scaling kit runs from a folder of its own and its results make a report', () => {
  const kit = path.join(scratch, 'kit-made');
  const made = run(process.execPath, [path.join(ROOT, 'bench/runner/scaling.mjs'), '--quick', '--threads=1,2', `--out=${kit}`], { cwd: ROOT });
  assert.equal(made.status, 0, made.stderr);
  // Carried elsewhere: nothing in it may reach back into the source tree.
  const carried = path.join(scratch, 'kit-carried');
  fs.cpSync(kit, carried, { recursive: true });
  fs.rmSync(kit, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(carried, 'manifest.json'), 'utf8'));
  assert.deepEqual([...new Set(manifest.runs.map((r) => r.config.malloc))].sort(), ['dlmalloc', 'mimalloc', 'wasmscale']);
  const runs = run(process.execPath, [path.join(carried, 'run.mjs'), `--out=${path.join(scratch, 'kit-results')}`], { cwd: scratch, timeout: 600_000 });
  assert.equal(runs.status, 0, runs.stdout.slice(-2000) + runs.stderr);
  const [file] = fs.readdirSync(path.join(scratch, 'kit-results')).filter((name) => name.endsWith('.json'));
  const results = JSON.parse(fs.readFileSync(path.join(scratch, 'kit-results', file), 'utf8'));
  assert.deepEqual(validateResults(results), []);
  assert.deepEqual(results.threads, [1, 2]);
  assert.equal(results.records.length, manifest.runs.length, 'one measured repetition per configuration in quick mode');
  const report = run(process.execPath, [path.join(ROOT, 'bench/runner/report.mjs'), path.join(scratch, 'kit-results', file)], { cwd: ROOT });
  assert.equal(report.status, 0, report.stderr);
  const text = fs.readFileSync(path.join(scratch, 'kit-results', 'report.md'), 'utf8');
  assert.match(text, /## Scaling beside math/);
  assert.match(text, /## Contention/);
  const bad = run(process.execPath, [path.join(ROOT, 'bench/runner/scaling.mjs'), '--threads=0'], { cwd: ROOT });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^scaling kit: thread counts must be whole numbers from 1 to 64/);
});

test('the 16-thread scaling targets are judged only on a machine with 16 cores', () => {
  // math speeds up 10x from 1 to 16 threads; standard 9x, small 7x, fs files 8.5x.
  const times = { math: [1000, 100], standard: [900, 100], small: [700, 100], files: [850, 100] };
  const records = [];
  for (const [name, [one, sixteen]] of Object.entries(times)) {
    const config = name === 'math' ? { workload: 'math', variant: 'standard', malloc: 'dlmalloc', fs: 'js' }
                 : name === 'files' ? { workload: 'fs', variant: 'files', malloc: 'dlmalloc', fs: 'wasmscale' }
                 : { workload: 'malloc', variant: name, malloc: 'wasmscale', fs: 'js' };
    for (const [threads, ms] of [[1, one], [16, sixteen]]) {
      records.push({ ...config, host: 'node', threads, where: 'pthread', scale: 1, round: 1, rep: 1, ms, ops: 1000, peak_bytes: 1,
                     wasm_bytes: 1, checksum: null, ok: true, status: 'ok', reason: null, known_issue: null });
    }
  }
  const rowsFor = (cores) => targetGroups(summarize(records), { machine: { cores }, records, size_baseline_bytes: null })
    .flatMap((group) => group.rows).filter((row) => /16 threads, speed-up/.test(row[0]));
  const judged = rowsFor(16);
  assert.deepEqual(judged.map((row) => row[2]), ['met', '**not met**', 'met'], JSON.stringify(judged));
  assert.match(judged[1][1], /^7\.00× against math's 10\.00× \(0\.70 of it\)$/);
  const unjudged = rowsFor(2);
  assert.equal(unjudged.length, 3);
  for (const row of unjudged) {
    assert.equal(row[2], '–');
    assert.match(row[1], /^not judged: 2 cores/);
  }
});
