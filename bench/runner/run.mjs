// Runs the benchmark suite: every configuration of matrix.mjs on every host, once per round,
// each time as one process (Node) or page (Chromium) doing warm-up + measured repetitions. Writes
// bench/results/<timestamp>.json, then the report and charts (report.mjs).
//
// usage: node bench/runner/run.mjs [--quick] [--hosts=node,chromium] [--only=WORKLOAD[,...]]
//                                  [--fs=FILE_SYSTEM[,...]] [--threads=1,2,4,...] [--out=DIR]
// With the native host and the malloc workload it also runs the contention probe (contention.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolchain, wasmBuildDir } from '../../tools/toolchain.mjs';
import { configurations, knownIssue, nativePreload, parseThreadCounts, runsPerConfiguration, HOSTS, THREAD_COUNTS } from './matrix.mjs';
import { measureContention } from './contention.mjs';
import { parseOutput, toRecords } from './protocol.mjs';
import { NodeHost } from './hosts/node.mjs';
import { BrowserHost } from './hosts/browser.mjs';
import { NativeHost } from './hosts/native.mjs';
import { describeMachine } from './machine.mjs';
import { SCHEMA, validateResults } from './schema.mjs';
import { writeReport } from './report.mjs';
import { median } from './summary.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Wasm programs in their toolchain's folder (Makefile: WASM_BUILD), native ones in build/.
const PROGRAM_DIR = path.join(wasmBuildDir(), 'bench');
const NATIVE_DIR = path.join(ROOT, 'build', 'bench');
// A program's time limit: a full run's slowest configurations take about a minute; a quick
// run's, seconds, so a hung peer there costs the suite a minute, not three.
const TIMEOUT_MS = { full: 180_000, quick: 60_000 };

function parseArgs(argv) {
  const options = { quick: false, hosts: HOSTS, only: null, fs: null, threads: THREAD_COUNTS, out: path.join(ROOT, 'bench', 'results') };
  for (const arg of argv) {
    const [name, value] = arg.split(/=(.*)/s);
    if (name === '--quick') options.quick = true;
    else if (name === '--hosts') options.hosts = value.split(',');
    else if (name === '--only') options.only = value.split(',');
    else if (name === '--fs') options.fs = value.split(',');
    else if (name === '--threads') options.threads = parseThreadCounts(value ?? '');
    else if (name === '--out') options.out = path.resolve(value);
    else throw new Error(`unknown argument '${arg}' (--quick --hosts= --only= --fs= --threads= --out=)`);
  }
  const unknownHost = options.hosts.find((host) => !HOSTS.includes(host));
  if (unknownHost) throw new Error(`unknown host '${unknownHost}': expected ${HOSTS.join(', ')}`);
  return options;
}

function makeHost(name) {
  if (name === 'native') return new NativeHost();
  return name === 'node' ? new NodeHost() : new BrowserHost(name, PROGRAM_DIR);
}

// The file a host runs and the size the report gives (the .wasm; none for native programs).
function programFiles(config, hostName) {
  if (hostName === 'native') return { program: path.join(NATIVE_DIR, config.program), wasm: null };
  return { program: path.join(PROGRAM_DIR, `${config.program}.js`), wasm: path.join(PROGRAM_DIR, `${config.program}.wasm`) };
}

// Every peer and host computing the same work must agree on its checksum.
function crossCheck(records) {
  const seen = new Map();
  for (const record of records.filter((r) => r.ok)) {
    const key = [record.workload, record.variant, record.threads, record.scale].join('/');
    const first = seen.get(key);
    if (!first) {
      seen.set(key, record);
    } else if (first.checksum !== record.checksum) {
      Object.assign(record, { ok: false, status: 'failed', known_issue: null,
        reason: `checksum ${record.checksum} differs from ${first.checksum} (${first.host} ${first.malloc}/${first.fs})` });
    }
  }
}

function progressLine(index, total, host, config, records) {
  const label = `${host} ${config.workload}/${config.variant} ${config.malloc}/${config.fs}/${config.where} t=${config.threads}`;
  const ok = records.filter((record) => record.ok);
  if (ok.length === 0) {
    const known = records[0].known_issue ? ' (known peer issue)' : '';
    return `[${index}/${total}] ${label}: ${records[0].status.toUpperCase()}${known} ${records[0].reason}`;
  }
  const times = ok.map((record) => record.ms);
  return `[${index}/${total}] ${label}: median ${median(times).toFixed(1)} ms ` +
         `(min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}, n=${times.length}) ok`;
}

export async function runSuite(options) {
  const { rounds, reps, warmup } = runsPerConfiguration(options);
  const configs = configurations(options).filter((config) => (!options.only || options.only.includes(config.workload)) &&
                                                             (!options.fs || options.fs.includes(config.fs)));
  const records = [];
  const total = rounds * options.hosts.reduce((sum, host) => sum + configs.filter((c) => c.hosts.includes(host)).length, 0);
  let index = 0;
  for (const hostName of options.hosts) {
    const host = makeHost(hostName);
    await host.start();
    try {
      for (let round = 1; round <= rounds; round++) {
        for (const config of configs.filter((c) => c.hosts.includes(hostName))) {
          const files = programFiles(config, hostName);
          if (!fs.existsSync(files.program)) throw new Error(`${files.program} is missing: run 'make programs' first`);
          const args = [`--variant=${config.variant}`, `--threads=${config.threads}`, `--reps=${reps}`,
                        `--warmup=${warmup}`, `--scale=${config.scale}`, ...(config.dir ? [`--dir=${config.dir}`] : [])];
          const result = await host.run(files.program, args, { timeoutMs: TIMEOUT_MS[options.quick ? 'quick' : 'full'], preload: nativePreload(config.malloc, ROOT) });
          const runRecords = toRecords(config, hostName, round, parseOutput(result.lines, result.exitCode),
                                       files.wasm ? fs.statSync(files.wasm).size : null, knownIssue);
          records.push(...runRecords);
          console.log(progressLine(++index, total, hostName, config, runRecords));
        }
      }
    } finally {
      await host.close();
    }
  }
  crossCheck(records);
  return records;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const started = new Date();
  console.log(`bench: ${options.quick ? 'quick' : 'full'} run on ${options.hosts.join(', ')}`);
  const records = await runSuite(options);
  const probe = path.join(NATIVE_DIR, 'contention-malloc');
  const contention = options.hosts.includes('native') && (!options.only || options.only.includes('malloc'))
    ? measureContention(probe, options) : undefined;
  const baseline = path.join(PROGRAM_DIR, 'size-baseline.wasm');
  const results = { schema: SCHEMA, started: started.toISOString(), finished: new Date().toISOString(),
                    quick: options.quick, machine: describeMachine(), toolchain: toolchain().version,
                    // .wasm bytes of the malloc benchmark with a bump allocator (see peers/size-baseline)
                    size_baseline_bytes: fs.existsSync(baseline) ? fs.statSync(baseline).size : null, threads: options.threads,
                    records, ...(contention ? { contention } : {}) };
  const problems = validateResults(results);
  if (problems.length) throw new Error(`results do not match the schema: ${problems.join('; ')}`);
  fs.mkdirSync(options.out, { recursive: true });
  const file = path.join(options.out, `${started.toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(results, null, 1) + '\n');
  console.log(`bench: wrote ${path.relative(process.cwd(), file)}`);
  const report = await writeReport(results, options.out);
  console.log(`bench: wrote ${path.relative(process.cwd(), report)} and charts`);
  for (const record of records.filter((r) => r.status === 'failed')) {
    const what = `${record.host} ${record.workload}/${record.variant} ${record.malloc}/${record.fs}/${record.where} t=${record.threads}`;
    if (record.known_issue) {
      console.log(`bench: known peer issue in ${what}: ${record.reason} (${record.known_issue})`);
    } else {
      console.error(`bench: FAILED ${what}: ${record.reason}`);
      process.exitCode = 1;
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`bench: ${error.message}`);
    process.exitCode = 2;
  });
}
