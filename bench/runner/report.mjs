// Turns one results file into bench/results/report.md plus SVG and PNG charts; or puts the
// targets of runs made with different Emscripten releases side by side (toolchains.md).
//
// usage: node bench/runner/report.mjs bench/results/<file>.json           (re-render a run)
//        node bench/runner/report.mjs --compare A.json B.json [...]      (bench/results/toolchains.md)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASELINE, MALLOCS, NATIVE_MALLOCS, FILE_SYSTEMS, STORAGE_FS_NAMES, STORAGE_PAIRS, PGZIP_FILE_SYSTEMS, HOSTS, THREAD_COUNTS,
  runsPerConfiguration } from './matrix.mjs';
import { targetGroups, targetsSection } from './targets.mjs';
import { perOperation } from './contention.mjs';
import { summarize, find, fmt, ratio, mib, kib, cell, table, threadsIn, speedup, MATH } from './summary.mjs';
import { lineChart, barChart } from './charts.mjs';
import { svgFilesToPng } from './png.mjs';

const FS_NAMES = { js: 'JS FS', wasmfs: 'WasmFS', wasmscale: 'wasmscale' };
const MALLOC_VARIANTS = { standard: '1000-2023 B blocks', small: '16-527 B blocks', cross: 'cross-thread frees' };

// Hosts that ran Wasm programs (native runs only appear in the malloc tables).
function hostsIn(summary) {
  return HOSTS.filter((host) => host !== 'native' && [...summary.values()].some((row) => row.host === host));
}

// How each host ran the malloc workload: its allocators, the fs field of its records, its baseline.
function mallocSetup(host) {
  return host === 'native' ? { mallocs: NATIVE_MALLOCS, fs: 'native', baseline: 'glibc' }
                           : { mallocs: MALLOCS, fs: 'js', baseline: BASELINE.malloc };
}

function mathSection(summary, charts) {
  const lines = ['## math: pure arithmetic split over N threads', '',
    'The ceiling: no memory or file traffic, so any loss of scaling here is the host\'s own.', ''];
  const rows = [];
  for (const host of hostsIn(summary)) {
    const one = find(summary, host, 'math', 'standard', 'dlmalloc', 'js', 'pthread', 1);
    for (const threads of threadsIn(summary)) {
      const row = find(summary, host, 'math', 'standard', 'dlmalloc', 'js', 'pthread', threads);
      rows.push([host, threads, cell(row), ratio(one?.median / row?.median)]);
    }
    charts.push({ name: `math-${host}`, svg: lineChart({ title: `math (${host}): time vs threads`, xLabel: 'threads', yLabel: 'ms (median)',
      series: [{ name: 'math', points: threadsIn(summary).map((t) => [t, find(summary, host, 'math', 'standard', 'dlmalloc', 'js', 'pthread', t)?.median ?? 0]) }] }) });
  }
  lines.push(table(['host', 'threads', 'ms median (min–max)', 'speed-up vs 1 thread'], rows), '');
  return lines;
}

function mallocSection(summary, charts) {
  const lines = ['## malloc: 1024 live blocks per thread in a ring, fixed total work', '',
    `Speed-up vs ${BASELINE.malloc} (glibc for native) compares the same thread count; "vs 1 thread" compares the allocator with itself;`,
    `both by time per allocation (in runs past 4 threads, ${BASELINE.malloc} does less of the work: bench/runner/matrix.mjs).`,
    'Peak is the highest heap break (sbrk) seen, including thread stacks; for native rows, the peak resident size.',
    'Native rows are the near-native reference: the same C built with gcc -O2, allocators through LD_PRELOAD.', ''];
  const hosts = [...hostsIn(summary), ...([...summary.values()].some((row) => row.host === 'native') ? ['native'] : [])];
  for (const [variant, label] of Object.entries(MALLOC_VARIANTS)) {
    const rows = [];
    for (const host of hosts) {
      const series = [];
      const setup = mallocSetup(host);
      for (const malloc of setup.mallocs) {
        const one = find(summary, host, 'malloc', variant, malloc, setup.fs, 'pthread', 1);
        const points = [];
        for (const threads of threadsIn(summary)) {
          const row = find(summary, host, 'malloc', variant, malloc, setup.fs, 'pthread', threads);
          const base = find(summary, host, 'malloc', variant, setup.baseline, setup.fs, 'pthread', threads);
          rows.push([host, malloc, threads, cell(row), ratio(base?.usPerOp / row?.usPerOp), ratio(one?.usPerOp / row?.usPerOp),
                     row?.peak !== undefined ? mib(row.peak) : '–', row?.wasm ? kib(row.wasm) : '–']);
          if (row?.status === 'ok') points.push([threads, row.median]);
        }
        series.push({ name: malloc, points });
      }
      charts.push({ name: `malloc-${variant}-${host}`, svg: lineChart({ title: `malloc ${variant} (${host}): time vs threads`,
        xLabel: 'threads', yLabel: 'ms (median, lower is better)', series }) });
    }
    lines.push(`### ${variant} (${label})`, '',
      table(['host', 'malloc', 'threads', 'ms median (min–max)', 'speed-up vs baseline', 'vs 1 thread', 'peak MiB', 'wasm KiB'], rows), '');
  }
  return lines;
}

// What the records variant spends on its own records (records-work: made, compared and summed,
// no file call), part of every file system's µs/op above.
function recordsWorkLines(summary) {
  const lines = [];
  for (const host of hostsIn(summary)) {
    const [main, pthread] = ['main', 'pthread'].map((where) => find(summary, host, 'fs', 'records-work', 'dlmalloc', 'wasmscale', where, 1));
    if (main?.status !== 'ok' || pthread?.status !== 'ok') continue;
    lines.push(`- ${host}: of each records µs/op above, the records' own work (\`--variant=records-work\`) takes ` +
               `${fmt(main.usPerOp, 3)} on the main thread and ${fmt(pthread.usPerOp, 3)} on a pthread.`);
  }
  return lines.length > 0 ? [...lines, ''] : [];
}

function fsSection(summary, charts) {
  const lines = ['## fs: 100-byte records, small files, one file per thread', '',
    'The fs work is smaller for the JS FS on a pthread (it is far slower), so these tables compare time per file-system call (µs/op).',
    'Peak heap does not count the JS FS\'s file data, which lives in JavaScript arrays.', ''];
  for (const variant of ['records', 'smallfile']) {
    const rows = [];
    for (const host of hostsIn(summary)) {
      const groups = [];
      for (const fileSystem of FILE_SYSTEMS) {
        const bars = [];
        const main = find(summary, host, 'fs', variant, 'dlmalloc', fileSystem, 'main', 1);
        for (const where of ['main', 'pthread']) {
          const row = find(summary, host, 'fs', variant, 'dlmalloc', fileSystem, where, 1);
          const base = find(summary, host, 'fs', variant, 'dlmalloc', BASELINE.fs, where, 1);
          rows.push([host, FS_NAMES[fileSystem], where, row?.status === 'ok' ? `${fmt(row.usPerOp, 2)}` : `**${row?.status ?? 'not run'}** ${row?.reason ?? ''}`,
                     cell(row), ratio(base?.usPerOp / row?.usPerOp), where === 'pthread' ? ratio(row?.usPerOp / main?.usPerOp) : '', row ? kib(row.wasm) : '–']);
          if (row?.status === 'ok') bars.push({ name: where === 'main' ? 'main thread' : 'pthread', value: row.usPerOp });
        }
        groups.push({ name: FS_NAMES[fileSystem], bars });
      }
      charts.push({ name: `fs-${variant}-${host}`, svg: barChart({ title: `fs ${variant} (${host}): main thread vs pthread`,
        xLabel: 'file system', yLabel: 'µs per call (median, lower is better)', groups }) });
    }
    lines.push(`### ${variant}`, '', table(['host', 'file system', 'runs on', 'µs/op', 'ms median (min–max)',
      `speed-up vs ${FS_NAMES[BASELINE.fs]}`, 'pthread ÷ main', 'wasm KiB'], rows), '');
    if (variant === 'records') lines.push(...recordsWorkLines(summary));
  }
  const rows = [];
  for (const host of hostsIn(summary)) {
    const series = [];
    for (const fileSystem of FILE_SYSTEMS) {
      const one = find(summary, host, 'fs', 'files', 'dlmalloc', fileSystem, 'pthread', 1);
      const points = [];
      for (const threads of threadsIn(summary)) {
        const row = find(summary, host, 'fs', 'files', 'dlmalloc', fileSystem, 'pthread', threads);
        rows.push([host, FS_NAMES[fileSystem], threads, row?.status === 'ok' ? fmt(row.usPerOp, 2) : `**${row?.status ?? 'not run'}**`,
                   cell(row), ratio(one?.median / row?.median)]);
        if (row?.status === 'ok') points.push([threads, row.usPerOp]);
      }
      series.push({ name: FS_NAMES[fileSystem], points });
    }
    charts.push({ name: `fs-files-${host}`, svg: lineChart({ title: `fs files (${host}): N threads, own file each`,
      xLabel: 'threads', yLabel: 'µs per call (median)', series }) });
  }
  lines.push('### files (N threads, each on its own file, fixed total work)', '',
    table(['host', 'file system', 'threads', 'µs/op', 'ms median (min–max)', 'throughput vs 1 thread'], rows), '');
  return lines;
}

// The contention probe's counts (contention.mjs): what the allocator's threads share.
function contentionSection(results) {
  if (!results.contention) return [];
  const rows = results.contention.map((record) => {
    const per = perOperation(record);
    return [record.variant, record.threads, `${fmt(per.slowShare * 100, 2)}%`, fmt(per.rmwFast, 3), fmt(per.rmwSlow, 2),
            fmt(per.sharedFast, 3), fmt(per.sharedSlow, 2), fmt(per.blocksPassed, 2), fmt(per.locksPer10k, 2),
            `${record.pool_locks} / ${record.orphan_locks} / ${record.growths}`];
  });
  return ['## Contention: what the allocator\'s threads share', '',
    'The malloc workload built natively with the contention probe (bench/contention/probe.c): every write, atomic operation and',
    'call of the allocator\'s own code is counted, per call into it from the program (an operation). A write to a line',
    'another thread wrote last moves that line between cores; the counts depend on the interleaving, not on the core count,',
    'so 8 and 16 threads are probed on any machine. One process each; the repetition after a warm-up, sized as for 16 threads.',
    '"Blocks passed": free-list links written into a block another thread\'s allocator code wrote last (the program passes',
    'blocks; its own writes to them are not counted). Locks: the span pool, the orphan lists and growth (sbrk).', '',
    table(['variant', 'threads', 'slow-path calls', 'RMW / 1k, fast', 'RMW / 1k, slow', 'shared-line writes / 1k, fast',
           'shared-line writes / 1k, slow', 'blocks passed / 1k', 'locks / 10k', 'pool / orphan / growth'], rows), ''];
}

// Each workload's speed-up from 1 thread beside math's from the same run, which is what the
// machine itself gives that many threads (time per operation, medians).
function scalingSection(summary) {
  const counts = threadsIn(summary).filter((threads) => threads > 1);
  const rows = [];
  for (const host of hostsIn(summary)) {
    const workloads = [...Object.keys(MALLOC_VARIANTS).flatMap((variant) => MALLOCS.map((malloc) => ({ workload: 'malloc', variant, malloc, fs: 'js' }))),
                       ...FILE_SYSTEMS.map((fileSystem) => ({ workload: 'fs', variant: 'files', malloc: 'dlmalloc', fs: fileSystem }))];
    for (const config of workloads) {
      const cells = counts.map((threads) => {
        const mine = speedup(summary, { host, ...config }, threads), math = speedup(summary, { host, ...MATH }, threads);
        return mine === null || math === null ? '–' : `${fmt(mine, 2)}× (${fmt(mine / math, 2)} of math's ${fmt(math, 2)}×)`;
      });
      if (cells.some((text) => text !== '–')) rows.push([host, `${config.workload} ${config.variant}`, config.workload === 'fs' ? FS_NAMES[config.fs] : config.malloc, ...cells]);
    }
  }
  if (rows.length === 0 || counts.length === 0) return [];
  return ['## Scaling beside math', '',
    'Throughput at N threads over 1 thread (time per operation, medians), and what share that is of the math workload\'s own',
    'speed-up in the same run: math has no memory or file traffic, so its speed-up is what the machine gives N threads.', '',
    table(['host', 'workload', 'peer', ...counts.map((threads) => `${threads} threads`)], rows), ''];
}

// The fs workload on persistent storage: wasmscale's backend beside an option Emscripten has
// for that storage (matrix.mjs, STORAGE_PAIRS), one section per pair that was run.
const PROXIED = 'calls from a pthread are proxied to the main thread, so they do a tenth of the work there';
const STORAGE_NOTES = {
  nodefs: ['The same fs workloads with /tmp mounted on a real host directory: through wasmscale\'s host backend (each thread',
    `calls Node's fs itself) and through Emscripten's NODEFS (${PROXIED}). Times per file-system call.`],
  wasmfsnode: ['The same fs workloads with /tmp mounted on a real host directory: through wasmscale\'s host backend and',
    'through WasmFS\'s Node backend (wasmfs_create_node_backend, mounted with FS.mount(NODEFS)). Times per file-system call.'],
  noderawfs: ['The same fs workloads in the working directory, a real host directory, with -sNODERAWFS: wasmscale\'s',
    `(the directory mounted as the root) and Emscripten's (the JS FS on Node's fs; ${PROXIED}). Times per file-system call.`],
  idbfs: ['The same fs workloads with /tmp on the page origin\'s persistent storage: through wasmscale\'s OPFS backend (one',
    'I/O worker holds the files; threads reach it through shared memory, small reads and writes are cached per file)',
    `and through Emscripten's IDBFS (${PROXIED}).`,
    'IDBFS keeps files in memory and writes them to IndexedDB only at FS.syncfs, which the workload never calls, so',
    'its times leave persistence out. Times per file-system call.'],
  wasmfsopfs: ['The same fs workloads with /tmp on the page origin\'s private file system: through wasmscale\'s OPFS backend',
    'and through WasmFS\'s OPFS backend (wasmfs_create_opfs_backend, mounted with FS.mount(OPFS)). Times per file-system call.'],
};

function storageSections(summary, charts) {
  return STORAGE_PAIRS.flatMap((pair) => storageSection(summary, charts, pair));
}

function storageSection(summary, charts, { host, peer, ours, title }) {
  if (![...summary.values()].some((row) => row.host === host && row.fs === peer)) return [];
  const rows = [], series = [];
  const get = (variant, fileSystem, where, threads = 1) => find(summary, host, 'fs', variant, 'dlmalloc', fileSystem, where, threads);
  const perCall = (row) => (row?.status === 'ok' ? fmt(row.usPerOp, 2) : `**${row?.status ?? 'not run'}**`);
  for (const variant of ['records', 'smallfile']) {
    for (const where of ['main', 'pthread']) {
      for (const fileSystem of [peer, ours]) {
        const row = get(variant, fileSystem, where), base = get(variant, peer, where);
        rows.push([variant, where, 1, STORAGE_FS_NAMES[fileSystem], perCall(row), cell(row), ratio(base?.usPerOp / row?.usPerOp), '']);
      }
    }
  }
  for (const fileSystem of [peer, ours]) {
    const points = [];
    for (const threads of threadsIn(summary)) {
      const row = get('files', fileSystem, 'pthread', threads), base = get('files', peer, 'pthread', threads);
      const one = get('files', fileSystem, 'pthread', 1);
      rows.push(['files', 'pthread', threads, STORAGE_FS_NAMES[fileSystem], perCall(row), cell(row), ratio(base?.usPerOp / row?.usPerOp),
                 ratio(one?.usPerOp / row?.usPerOp)]);
      if (row?.status === 'ok') points.push([threads, row.usPerOp]);
    }
    series.push({ name: STORAGE_FS_NAMES[fileSystem], points });
  }
  charts.push({ name: `fs-storage-${ours}-${peer}`, svg: lineChart({ title: `fs files on ${ours} vs ${peer} (${host}): N threads, own file each`,
    xLabel: 'threads', yLabel: 'µs per call (median)', series }) });
  return [`## fs on ${title}`, '', ...STORAGE_NOTES[peer], '',
    table(['variant', 'runs on', 'threads', 'file system', 'µs/op', 'ms median (min–max)', `speed-up vs ${STORAGE_FS_NAMES[peer]}`,
           'throughput vs 1 thread'], rows), ''];
}

// The example application: both of wasmscale's parts at once, against Emscripten's defaults
// (dlmalloc over NODEFS) at the same thread count.
function pgzipSection(summary, charts) {
  const host = 'node';
  const ran = PGZIP_FILE_SYSTEMS.filter((fileSystem) => [...summary.values()].some((row) => row.workload === 'pgzip' && row.fs === fileSystem));
  if (ran.length === 0) return [];
  const baseline = { malloc: BASELINE.malloc, fs: PGZIP_FILE_SYSTEMS[0] };
  const rows = [], series = [];
  for (const fileSystem of ran) {
    for (const malloc of MALLOCS) {
      const one = find(summary, host, 'pgzip', 'files', malloc, fileSystem, 'pthread', 1);
      const points = [];
      for (const threads of threadsIn(summary)) {
        const row = find(summary, host, 'pgzip', 'files', malloc, fileSystem, 'pthread', threads);
        const base = find(summary, host, 'pgzip', 'files', baseline.malloc, baseline.fs, 'pthread', threads);
        rows.push([STORAGE_FS_NAMES[fileSystem], malloc, threads, cell(row), ratio(base?.median / row?.median), ratio(one?.median / row?.median),
                   row?.peak !== undefined ? mib(row.peak) : '–']);
        if (row?.status === 'ok') points.push([threads, row.median]);
      }
      series.push({ name: `${malloc}, ${STORAGE_FS_NAMES[fileSystem]}`, points });
    }
  }
  charts.push({ name: `pgzip-${host}`, svg: lineChart({ title: `pgzip (${host}): 32 files compressed on N threads`,
    xLabel: 'threads', yLabel: 'ms (median, lower is better)', series }) });
  return ['## pgzip: a real application (examples/pgzip with zlib-ng), host files on Node', '',
    'Compresses 32 files of text (256 KiB each in a full run) in a host directory on N threads: each thread reads a file whole, deflates it',
    'with zlib-ng (level 6) and writes the .gz beside the others. Allocator and file traffic from one program; the',
    `speed-up compares with Emscripten's defaults, ${baseline.malloc} over ${STORAGE_FS_NAMES[baseline.fs]}, at the same thread count.`, '',
    table(['file system', 'malloc', 'threads', 'ms median (min–max)', `speed-up vs ${baseline.malloc} + ${STORAGE_FS_NAMES[baseline.fs]}`,
           'vs 1 thread', 'peak MiB'], rows), ''];
}

// The table README.md quotes: the article's two findings, measured here.
export function headline(summary) {
  const rows = [];
  for (const host of hostsIn(summary)) {
    for (const malloc of MALLOCS) {
      const times = THREAD_COUNTS.map((t) => find(summary, host, 'malloc', 'standard', malloc, 'js', 'pthread', t));
      if (times.every((row) => row === undefined)) continue;  // not in this run (make bench-scaling runs a subset)
      rows.push([host, `malloc, ${malloc}`, ...times.map((row) => (row?.status === 'ok' ? `${fmt(row.median, 0)} ms` : row?.status ?? '–')),
                 ratio(times[0]?.median / times[2]?.median)]);
    }
    for (const fileSystem of FILE_SYSTEMS) {
      const main = find(summary, host, 'fs', 'records', 'dlmalloc', fileSystem, 'main', 1);
      const pthread = find(summary, host, 'fs', 'records', 'dlmalloc', fileSystem, 'pthread', 1);
      if (!main && !pthread) continue;
      rows.push([host, `fs records, ${FS_NAMES[fileSystem]}`, `main ${fmt(main?.usPerOp, 2)} µs/op`,
                 `pthread ${fmt(pthread?.usPerOp, 2)} µs/op`, '', `pthread ${ratio(pthread?.usPerOp / main?.usPerOp)} main`]);
    }
  }
  return table(['host', 'workload', '1 thread', '2 threads', '4 threads', '1 → 4 threads'], rows);
}

function fullRuns() {
  const { rounds, reps, warmup } = runsPerConfiguration();
  return `${rounds} rounds over the whole suite, each running every configuration afresh with ${warmup} warm-up and ` +
         `${reps} measured repetitions`;
}

function problemsSection(summary) {
  const rows = [...summary.values()].filter((row) => row.status !== 'ok' || row.failedRuns > 0)
    .map((row) => [row.host, `${row.workload}/${row.variant}`, `${row.malloc}/${row.fs}/${row.where}`, row.threads,
                   row.status === 'ok' ? `${row.failedRuns} run(s) failed; measured from the ${row.n} repetitions of the others` : row.status,
                   row.reason, row.knownIssue ?? '']);
  if (rows.length === 0) return ['## Runs that did not complete', '', 'None: every configuration ran and verified its results.', ''];
  return ['## Runs that did not complete', '',
    'A configuration with a failed run is shown here rather than in the tables above, unless every failure is a known',
    'peer issue and other rounds completed: then the tables show it measured from those.', '',
    table(['host', 'workload', 'malloc/fs/where', 'threads', 'status', 'why', 'known peer issue'], rows), ''];
}

export async function writeReport(results, outDir) {
  const summary = summarize(results.records);
  const charts = [];
  const m = results.machine;
  const lines = [
    '# wasmscale benchmark report', '',
    `Run ${results.started} → ${results.finished} (${results.quick ? 'quick mode: little work, 1 measured run each; not for conclusions' : `full: ${fullRuns()}`}), ${results.records.length} records.`, '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${(m.memory_bytes / 2 ** 30).toFixed(0)} GiB, ${m.os}. Node ${m.node}; ${m.emcc}; ${m.chromium}.`, '',
    `Programs built with Emscripten ${releaseOf(results)} (its outputs and peers in build/emscripten-${releaseOf(results)}/).`, '',
    'Reproduce: `make bench` (or `make bench QUICK=1`); raw records in the JSON file beside this report.',
    'Times are wall-clock milliseconds of the timed region, measured inside the program; each program verifies its own results.', '',
    '## Headline', '', headline(summary), '',
    ...targetsSection(summary, results), ...mathSection(summary, charts), ...scalingSection(summary), ...mallocSection(summary, charts),
    ...contentionSection(results),
    ...fsSection(summary, charts), ...storageSections(summary, charts), ...pgzipSection(summary, charts),
    ...problemsSection(summary),
    '## Charts', '', ...charts.map((chart) => `![${chart.name}](charts/${chart.name}.svg)`), '',
  ];
  const chartDir = path.join(outDir, 'charts');
  fs.mkdirSync(chartDir, { recursive: true });
  const svgFiles = charts.map((chart) => {
    const file = path.join(chartDir, `${chart.name}.svg`);
    fs.writeFileSync(file, chart.svg);
    return file;
  });
  await svgFilesToPng(svgFiles);
  const reportFile = path.join(outDir, 'report.md');
  fs.writeFileSync(reportFile, lines.join('\n'));
  return reportFile;
}

// The release a run's programs were built with: the results' own field, else the emcc line.
function releaseOf(results) {
  return results.toolchain ?? results.machine.emcc.match(/\d+\.\d+\.\d+/)?.[0] ?? results.machine.emcc;
}

// One table per group of targets: a row per target, a column pair per run.
export function compareReport(runs) {
  const names = runs.map((results) => `Emscripten ${releaseOf(results)}`);
  const lines = ['# wasmscale targets, Emscripten releases side by side', '',
    'Each column pair is one full `make bench` run with that release (`make bench EMCC=...`); every ratio compares',
    'programs built by the same emcc in the same run.', '',
    table(['release', 'results', 'run'], runs.map((results, i) => [names[i], results.file ?? '–', `${results.started} → ${results.finished}`])), ''];
  const groups = runs.map((results) => targetGroups(summarize(results.records), results));
  const titles = [...new Set(groups.flatMap((list) => list.map((group) => group.title)))];
  for (const title of titles) {
    const byRun = groups.map((list) => new Map((list.find((group) => group.title === title)?.rows ?? []).map((row) => [row[0], row])));
    const targets = [...new Set(byRun.flatMap((map) => [...map.keys()]))];
    const rows = targets.map((target) => [target, ...byRun.flatMap((map) => (map.has(target) ? map.get(target).slice(1) : ['not run', '–']))]);
    const met = byRun.map((map) => `${[...map.values()].filter((row) => row[2] === 'met').length} of ${map.size}`);
    lines.push(`## ${title}`, '', names.map((name, i) => `${name}: ${met[i]} met`).join('; ') + '.', '',
      table(['target', ...names.flatMap((name) => [name, ''])], rows), '');
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--compare' && args.length >= 3) {
    const runs = args.slice(1).map((file) => ({ ...JSON.parse(fs.readFileSync(file, 'utf8')), file: path.basename(file) }));
    const out = path.join(path.dirname(path.resolve(args[1])), 'toolchains.md');
    fs.writeFileSync(out, compareReport(runs));
    console.log(`report: wrote ${out}`);
  } else if (args.length === 1 && args[0] !== '--compare') {
    const out = await writeReport(JSON.parse(fs.readFileSync(args[0], 'utf8')), path.dirname(path.resolve(args[0])));
    console.log(`report: wrote ${out}`);
  } else {
    console.error('usage: node bench/runner/report.mjs RESULTS.json | --compare A.json B.json [...]');
    process.exit(2);
  }
}
