// What the benchmark suite runs: every workload, variant, peer and thread count, and the
// program each needs. The Makefile asks this file which programs to build (--programs), so
// this is the one list to edit.
import { fileURLToPath } from 'node:url';
import { toolchain } from '../../tools/toolchain.mjs';

// Thread counts run by default (this project's machine has 2 cores); `make bench THREADS=1,2,4,8,16`
// (run.mjs --threads=) runs others.
export const THREAD_COUNTS = [1, 2, 4];
// Each thread count is a whole number from 1 to the harness's limit (bench/src/harness.c).
export function parseThreadCounts(text) {
  const counts = text.split(',').map((part) => (/^\d+$/.test(part) ? Number(part) : NaN));
  if (counts.length === 0 || counts.some((n) => !(n >= 1 && n <= 64))) {
    throw new Error(`thread counts must be whole numbers from 1 to 64, separated by commas; got '${text}'`);
  }
  return [...new Set(counts)].sort((a, b) => a - b);
}

// Work is a fixed total split over the threads, so it grows with the most threads a run has:
// the shortest repetition at 16 threads must still last 50 ms on a machine with 16 cores. A
// quarter of the thread count times the work, twice that for small blocks, the shortest
// (sized from a 16-core machine's times: docs/benchmarks.md). Up to 4 threads the work stays.
export function threadScale(variant, mostThreads) {
  if (mostThreads <= 4) return 1;
  return (mostThreads / 4) * (variant === 'small' ? 2 : 1);
}
// dlmalloc takes one lock per call, and many threads make it hundreds of times slower: in runs
// past 4 threads, at 2 threads and more it does 1 / (2 x threads) of the others' work. The
// report compares time per operation, and its peak, which the targets use, is that of the same
// live blocks per thread.
function lockedPeerShare({ workload, malloc, threads }, mostThreads) {
  return workload === 'malloc' && malloc === 'dlmalloc' && mostThreads > 4 && threads >= 2 ? 1 / (2 * threads) : 1;
}
export const MALLOCS = ['dlmalloc', 'emmalloc', 'mimalloc', 'wasmscale'];
export const FILE_SYSTEMS = ['js', 'wasmfs', 'wasmscale'];
// The fs workload on persistent storage: pairs of an option Emscripten users have (peer) and
// wasmscale's (ours), on one host, each with the workload's directory (`dir`, default /tmp)
// on real storage. On Node a host directory made per run, which is also the working directory:
// NODEFS, WasmFS's Node backend and the host backend mount it at /tmp by a pre-js (Makefile);
// -sNODERAWFS, Emscripten's and wasmscale's, reach it as the working directory. In browsers the
// origin's storage: IDBFS (files in memory until FS.syncfs), WasmFS's OPFS backend, and the
// OPFS backend. `wasmfs`: the pair needs that WasmFS backend, which not every release has
// (tools/toolchain.py, wasmfs_backends). `goal`: the report's target, ours at least this many
// times faster per call from a pthread (targets.mjs).
export const STORAGE_PAIRS = [
  { host: 'node', peer: 'nodefs', ours: 'host', title: 'host files (Node): wasmscale\'s host backend vs NODEFS' },
  { host: 'node', peer: 'wasmfsnode', ours: 'host', wasmfs: 'node', goal: 2,
    title: 'host files (Node): wasmscale\'s host backend vs WasmFS\'s Node backend' },
  { host: 'node', peer: 'noderawfs', ours: 'rawfs', dir: '.',
    title: 'host files as the root (Node): -sNODERAWFS with wasmscale\'s file system vs Emscripten\'s' },
  { host: 'chromium', peer: 'idbfs', ours: 'opfs', title: 'browser storage (Chromium): wasmscale\'s OPFS backend vs IDBFS' },
  { host: 'chromium', peer: 'wasmfsopfs', ours: 'opfs', wasmfs: 'opfs', goal: 2,
    title: 'browser storage (Chromium): wasmscale\'s OPFS backend vs WasmFS\'s OPFS backend' },
];
// What the report calls each storage configuration.
export const STORAGE_FS_NAMES = { nodefs: 'JS FS + NODEFS', host: 'wasmscale host backend', idbfs: 'JS FS + IDBFS',
  opfs: 'wasmscale OPFS backend', wasmfsnode: 'WasmFS Node backend', wasmfsopfs: 'WasmFS OPFS backend',
  noderawfs: 'JS FS, -sNODERAWFS', rawfs: 'wasmscale, -sNODERAWFS' };
// The pairs the release being built can run.
function storagePairs() {
  const backends = toolchain().wasmfs_backends;
  return STORAGE_PAIRS.filter((pair) => !pair.wasmfs || backends.includes(pair.wasmfs));
}
const STORAGE_FILE_SYSTEMS = new Set(STORAGE_PAIRS.flatMap((pair) => [pair.peer, pair.ours]));
export const HOSTS = ['node', 'chromium', 'native'];
// The host-file systems the pgzip workload runs on, Emscripten's first (the report's baseline).
export const PGZIP_FILE_SYSTEMS = ['nodefs', 'host', 'wasmfsnode'];
const WASM_HOSTS = ['node', 'chromium'];

// The near-native reference: the malloc workload built with gcc -O2 and run on Linux with
// glibc's malloc, Debian's libmimalloc and wasmscale's allocator (the latter two through
// LD_PRELOAD). Not Wasm: it shows what the allocators do without the Wasm runtime around them.
export const NATIVE_MALLOCS = ['glibc', 'mimalloc', 'wasmscale'];
export const NATIVE_PROGRAM = 'native-malloc';
export function nativePreload(malloc, root) {
  return { glibc: null, mimalloc: '/usr/lib/x86_64-linux-gnu/libmimalloc.so.2',
           wasmscale: `${root}/build/lib/native/libwasmscale-alloc.so` }[malloc];
}

// Baselines the report divides by.
export const BASELINE = { malloc: 'dlmalloc', fs: 'js' };

// A program is one build: <workload>-<malloc>-<fs>-<where>.js under build/emscripten-VERSION/bench/.
// where = "main": main() runs on the host's main thread; "pthread": -sPROXY_TO_PTHREAD.
export function programName({ workload, malloc, fs, where }) {
  return `${workload}-${malloc}-${fs}-${where}`;
}

// Work is sized so one repetition of the slowest peer takes roughly a second in full mode, and
// one of the fastest at least tens of milliseconds: shorter ones (12 ms, measured) swung with
// V8's background compiling and the machine's noise, and files at 2 threads hid the scaling
// behind thread start-up. The work grows by passes over a 1 MB file, not by records: 10 MB files
// made the workload a test of TLB and cache misses (both file systems' times swung 30-40%
// between repetitions). The JS file system on a pthread is ~100x slower per call than anything
// else, so it does a hundredth; reports compare the file systems per call (ops are recorded).
function fsScale(fs, where, variant) {
  if (where === 'pthread' && ['js', 'nodefs', 'idbfs', 'noderawfs'].includes(fs)) return 0.1;
  // Creating and removing an OPFS file are requests to the browser's storage process (about a
  // millisecond a cycle, where memory takes microseconds).
  if (['opfs', 'wasmfsopfs'].includes(fs) && variant === 'smallfile') return 0.05;
  return STORAGE_FILE_SYSTEMS.has(fs) ? STORAGE_SCALE : 10;
}
// A call on stored files costs more (a system call through Node; on OPFS the I/O worker's
// round trip, where the cache does not serve it): less work keeps a repetition near a second.
const STORAGE_SCALE = 1;

export function configurations({ quick = false, threads: threadCounts = THREAD_COUNTS } = {}) {
  const quickFactor = quick ? 0.05 : 1;
  const most = Math.max(...threadCounts);
  const list = [];
  const add = (config) => {
    const grown = config.workload === 'fs' && config.variant !== 'files' ? 1 : threadScale(config.variant, most);
    const scale = config.scale * quickFactor * grown * lockedPeerShare(config, most);
    list.push({ hosts: WASM_HOSTS, ...config, scale: +scale.toPrecision(4), program: config.program ?? programName(config) });
  };
  for (const threads of threadCounts) {
    add({ workload: 'math', variant: 'standard', malloc: 'dlmalloc', fs: 'js', where: 'pthread', threads, scale: 1 });
  }
  for (const variant of ['standard', 'small', 'cross']) {
    for (const malloc of MALLOCS) {
      for (const threads of threadCounts) {
        add({ workload: 'malloc', variant, malloc, fs: 'js', where: 'pthread', threads, scale: 1 });
      }
    }
  }
  for (const variant of ['standard', 'small', 'cross']) {
    for (const malloc of NATIVE_MALLOCS) {
      for (const threads of threadCounts) {
        add({ workload: 'malloc', variant, malloc, fs: 'native', where: 'pthread', threads, scale: 1,
              hosts: ['native'], program: NATIVE_PROGRAM });
      }
    }
  }
  const storage = storagePairs();
  const fileSystems = [...new Set([...FILE_SYSTEMS, ...storage.flatMap((pair) => [pair.peer, pair.ours])])];
  for (const fs of fileSystems) {
    const pair = storage.find((candidate) => candidate.peer === fs || candidate.ours === fs);
    const where = pair ? { hosts: [pair.host], ...(pair.dir ? { dir: pair.dir } : {}) } : { hosts: WASM_HOSTS };
    for (const variant of ['records', 'smallfile']) {
      for (const runsOn of ['main', 'pthread']) {
        add({ workload: 'fs', variant, malloc: 'dlmalloc', fs, where: runsOn, threads: 1, scale: fsScale(fs, runsOn, variant), ...where });
      }
    }
    // The records variant's own work without a file call (bench/src/fs.c), at records' size: the
    // targets give the file calls' speed alone beside the whole workload's. It touches no file, so
    // one program runs it.
    if (fs === 'wasmscale') {
      for (const runsOn of ['main', 'pthread']) {
        add({ workload: 'fs', variant: 'records-work', malloc: 'dlmalloc', fs, where: runsOn, threads: 1,
              scale: fsScale(fs, runsOn, 'records'), ...where });
      }
    }
    for (const threads of threadCounts) {
      add({ workload: 'fs', variant: 'files', malloc: 'dlmalloc', fs, where: 'pthread', threads,
            scale: fsScale(fs, 'pthread', 'files'), ...where });
    }
  }
  // pgzip, the example application (bench/src/pgzip.c), on host files (Node): each allocator,
  // over NODEFS, wasmscale's host backend and, where the release has it, WasmFS's Node backend.
  for (const fs of PGZIP_FILE_SYSTEMS.filter((name) => fileSystems.includes(name))) {
    for (const malloc of MALLOCS) {
      for (const threads of threadCounts) {
        add({ workload: 'pgzip', variant: 'files', malloc, fs, where: 'pthread', threads, scale: 1, hosts: ['node'] });
      }
    }
  }
  return list;
}

// Defects of a peer that make some of its runs fail now and then. A failure whose reason
// matches is still recorded and reported, with the note, but does not fail the suite; any
// other failure does. Each entry names what was observed, and `releases` the Emscripten
// releases it was seen with (all, when absent), so a new release re-checks it.
const KNOWN_ISSUES = [
  {
    applies: (config) => config.fs === 'wasmfs' && config.variant === 'files' && config.threads > 1,
    // A descriptor that refers to another thread's file also reads that file's records.
    symptom: /failed: (Is a directory|No such file or directory)$|^fs: record \d+ of \S+ read back wrong$/,
    note: 'Emscripten 3.1.6 WasmFS: with several threads opening and closing files at once, a ' +
          'descriptor sometimes refers to another file or a directory (seen in ~1 of 60 repetitions)',
  },
  {
    // NODEFS is a mount in the same JS file system: a pthread's calls are proxied alike.
    applies: (config) => ['js', 'nodefs'].includes(config.fs) && config.variant === 'files' && config.threads > 1,
    releases: ['4.0.23'],
    // The runner's time limit (process.mjs) is the only way such a run ends.
    symptom: /^timed out after \d+ ms$/,
    note: 'Emscripten 4.0.23 JS file system: with several threads opening, writing and closing files ' +
          '(their calls proxied to the main thread), a process sometimes stops for good with the main ' +
          'thread idle and the pthreads waiting (seen in 1 of 40 processes at 4 threads; with a NODEFS mount, 4 of 40)',
  },
];

export function knownIssue(config, reason, release = toolchain().version) {
  const issue = KNOWN_ISSUES.find((candidate) => candidate.applies(config) && candidate.symptom.test(reason ?? '') &&
                                                 (!candidate.releases || candidate.releases.includes(release)));
  return issue ? issue.note : null;
}

// The suite runs in rounds: every configuration once per round, each time as a fresh process
// (or page) with its warm-up and measured repetitions. On the machines here a process runs
// either at full speed or up to 1.9x slower throughout, by luck of the draw (measured: the same
// program's repetitions took 113-116 ms in one process and 187-193 ms in the next), so each
// configuration gets several processes, and the targets compare the fastest repetitions. Five: with three, all of a
// configuration's processes sometimes drew the slow mode (2026-11-23 22:26: the 1-thread malloc workload's three at
// 118-126 ms, where other processes of the same build ran it in 76-80), and its fastest was then no figure at all.
export function runsPerConfiguration({ quick = false } = {}) {
  return quick ? { rounds: 1, reps: 1, warmup: 1 } : { rounds: 5, reps: 2, warmup: 1 };
}

// The Wasm programs the Makefile builds (the native one has a rule of its own).
export function programs() {
  return [...new Set(configurations().filter((config) => config.hosts !== undefined && !config.hosts.includes('native'))
    .map((config) => config.program))];
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--programs') {
  console.log(programs().join('\n'));
}
