// Parses what a benchmark program prints (see bench/src/harness.h) into one outcome, and that
// outcome into result records; and the contention probe's line (bench/contention/probe.c).
// Node's own modules only: the scaling kit (scaling.mjs) carries this file to other machines.
import { spawnSync } from 'node:child_process';
const RESULT = /^@@wsb (\{.*\})\s*$/;
const ERROR = /^@@error (.*)$/;
const UNSUPPORTED = /^@@unsupported (.*)$/;

// lines: everything the program printed; exitCode: its status (null if it never exited).
// Returns { status: 'ok' | 'unsupported' | 'failed', reps: [...], reason }.
export function parseOutput(lines, exitCode) {
  const reps = [];
  let error = null;
  let unsupported = null;
  for (const line of lines) {
    let match;
    if ((match = RESULT.exec(line))) reps.push(JSON.parse(match[1]));
    else if ((match = ERROR.exec(line))) error = match[1];
    else if ((match = UNSUPPORTED.exec(line))) unsupported = match[1];
  }
  if (unsupported !== null) return { status: 'unsupported', reps, reason: unsupported };
  if (error !== null) return { status: 'failed', reps, reason: error };
  if (exitCode !== 0) {
    const tail = lines.filter((line) => line.trim()).slice(-3).join(' | ').slice(0, 400);
    return { status: 'failed', reps, reason: `exit status ${exitCode}: ${tail || 'no output'}` };
  }
  if (reps.length === 0) return { status: 'failed', reps, reason: 'the program printed no result' };
  return { status: 'ok', reps, reason: null };
}

// One record per measured repetition; a run that failed or was unsupported gives one record
// with ok=false and the reason, so no row silently disappears. knownIssue(config, reason): the
// note of a peer's documented defect that explains a failure, or null (matrix.mjs).
export function toRecords(config, host, round, outcome, wasmBytes, knownIssue) {
  const base = {
    workload: config.workload, variant: config.variant, host, threads: config.threads, round,
    malloc: config.malloc, fs: config.fs, where: config.where, scale: config.scale, wasm_bytes: wasmBytes,
  };
  const measured = outcome.reps.filter((rep) => !rep.warmup);
  if (outcome.status !== 'ok' || measured.length === 0) {
    const reason = outcome.reason || 'no measured repetition';
    return [{ ...base, rep: 0, ms: null, ops: null, peak_bytes: null, checksum: null, ok: false,
              status: outcome.status === 'ok' ? 'failed' : outcome.status, reason,
              known_issue: outcome.status === 'failed' ? knownIssue(config, reason) : null }];
  }
  return measured.map((rep) => ({
    ...base, rep: rep.rep, ms: rep.ms, ops: rep.ops, peak_bytes: rep.peak_bytes, checksum: rep.checksum,
    ok: rep.ok === true, status: 'ok', reason: null, known_issue: null,
  }));
}

export const PROBE_FIELDS = ['ops', 'fast_ops', 'rmw_fast', 'rmw_slow', 'shared_fast', 'shared_slow', 'writes_fast',
  'writes_slow', 'block_links', 'block_links_passed', 'pool_locks', 'orphan_locks', 'growths'];

// The probe's one line on stderr, `contention: {...}`, as an object; throws naming what is wrong.
export function parseProbeLine(stderr) {
  const line = stderr.split('\n').find((text) => text.startsWith('contention: '));
  if (!line) throw new Error('the probe printed no "contention:" line');
  const counts = JSON.parse(line.slice('contention: '.length));
  for (const field of PROBE_FIELDS) {
    if (!Number.isInteger(counts[field]) || counts[field] < 0) throw new Error(`the probe's ${field} is ${counts[field]}`);
  }
  return counts;
}

// Runs the probe once and returns its counts; throws with the command and its output's end.
export function runProbe(program, args) {
  const result = spawnSync(program, args, { encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) {
    throw new Error(`${program} ${args.join(' ')} exited with ${result.status ?? result.signal}: ${(result.stdout + result.stderr).slice(-500)}`);
  }
  return parseProbeLine(result.stderr);
}

// The probe's records for `runs` ({ args, ...what the record says of the run }): each run's
// fields and the counts it printed.
export function runProbes(program, runs) {
  return runs.map(({ args, ...run }) => ({ ...run, ...runProbe(program, args) }));
}
