// Makes the scaling kit: a folder that runs `make bench-scaling`'s subset of the suite on
// another machine with nothing but Node. The subset: math, the malloc variants with
// wasmscale, mimalloc and dlmalloc, and the fs files workload on wasmscale's file system, on
// Node, at the thread counts asked (default 1,2,4,8,16), plus the contention probe. The kit
// holds the built programs, manifest.json (every run's program, arguments and configuration),
// run.mjs (scaling-kit.mjs) and the modules it imports.
//
// usage: node bench/runner/scaling.mjs [--threads=1,2,4,8,16] [--quick] [--out=build/scaling-kit]
// then:  node build/scaling-kit/run.mjs [--out=DIR]        (here, or on the other machine)
//        node bench/runner/report.mjs DIR/<results>.json  (the report, back here)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolchain, wasmBuildDir } from '../../tools/toolchain.mjs';
import { configurations, parseThreadCounts } from './matrix.mjs';
import { probeRuns } from './contention.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const SCALING_THREADS = [1, 2, 4, 8, 16];
export const SCALING_MALLOCS = ['wasmscale', 'mimalloc', 'dlmalloc'];
// Three rounds: on the 16-core machine single runs swung by 40%, and the kit must finish
// within 6 minutes there (issue 33).
export const SCALING_RUNS = { rounds: 3, reps: 2, warmup: 1 };

// The subset's configurations, all on Node.
export function scalingConfigurations({ quick = false, threads = SCALING_THREADS } = {}) {
  return configurations({ quick, threads }).filter((config) => config.hosts.includes('node') && (
    config.workload === 'math' ||
    (config.workload === 'malloc' && SCALING_MALLOCS.includes(config.malloc)) ||
    (config.workload === 'fs' && config.variant === 'files' && config.fs === 'wasmscale')));
}

function parseArgs(argv) {
  const options = { quick: false, threads: SCALING_THREADS, out: path.join(ROOT, 'build', 'scaling-kit') };
  for (const arg of argv) {
    const [name, value] = arg.split(/=(.*)/s);
    if (name === '--quick') options.quick = true;
    else if (name === '--threads') options.threads = parseThreadCounts(value ?? '');
    else if (name === '--out') options.out = path.resolve(value);
    else throw new Error(`unknown argument '${arg}' (--threads= --quick --out=)`);
  }
  return options;
}

export function makeKit(options) {
  const configs = scalingConfigurations(options);
  const programDir = path.join(options.out, 'programs');
  fs.rmSync(options.out, { recursive: true, force: true });
  fs.mkdirSync(programDir, { recursive: true });
  const copy = (from, to = path.basename(from)) => {
    if (!fs.existsSync(from)) throw new Error(`${from} is missing: run 'make programs' first`);
    fs.copyFileSync(from, path.join(options.out, to));
  };
  // A program's files: its .js and .wasm, and whatever else the release writes beside them
  // (3.1.6: a .worker.js).
  const built = fs.existsSync(path.join(wasmBuildDir(), 'bench')) ? fs.readdirSync(path.join(wasmBuildDir(), 'bench')) : [];
  for (const program of new Set(configs.map((config) => config.program))) {
    copy(path.join(wasmBuildDir(), 'bench', `${program}.wasm`), `programs/${program}.wasm`);
    for (const file of built.filter((name) => name.startsWith(`${program}.`))) {
      copy(path.join(wasmBuildDir(), 'bench', file), `programs/${file}`);
    }
  }
  copy(path.join(ROOT, 'build', 'bench', 'contention-malloc'), 'programs/contention-malloc');
  fs.chmodSync(path.join(programDir, 'contention-malloc'), 0o755);
  for (const module of ['protocol.mjs', 'machine.mjs', 'schema.mjs']) copy(path.join(HERE, module));
  copy(path.join(HERE, 'scaling-kit.mjs'), 'run.mjs');
  const { reps, warmup } = SCALING_RUNS;
  const manifest = {
    toolchain: toolchain().version, threads: options.threads, quick: options.quick,
    rounds: options.quick ? 1 : SCALING_RUNS.rounds,
    runs: configs.map(({ hosts, program, ...config }) => ({
      config, program: `programs/${program}.js`,
      args: [`--variant=${config.variant}`, `--threads=${config.threads}`, `--reps=${options.quick ? 1 : reps}`,
             `--warmup=${warmup}`, `--scale=${config.scale}`],
    })),
    probe: { program: 'programs/contention-malloc', runs: probeRuns(options) },
  };
  fs.writeFileSync(path.join(options.out, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n');
  return manifest;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--programs') {
  console.log([...new Set(scalingConfigurations().map((config) => config.program))].join('\n'));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const options = parseArgs(process.argv.slice(2));
    const manifest = makeKit(options);
    console.log(`scaling kit: ${manifest.runs.length} configurations x ${manifest.rounds} rounds and ${manifest.probe.runs.length} ` +
                `probe runs in ${path.relative(process.cwd(), options.out)}; run it with: node ${path.relative(process.cwd(), options.out)}/run.mjs`);
  } catch (error) {
    console.error(`scaling kit: ${error.message}`);
    process.exitCode = 2;
  }
}
