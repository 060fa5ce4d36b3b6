// Runs the contention probe (bench/contention/probe.c, built as build/bench/contention-malloc):
// the malloc workload, natively, with the allocator's writes, atomics and calls counted. One
// process per variant and thread count; the counts depend on the interleaving, not on the
// number of cores, so 8 and 16 threads are probed on any machine.
import { threadScale } from './matrix.mjs';
import { runProbes } from './protocol.mjs';

export const PROBE_VARIANTS = ['standard', 'small', 'cross'];
// Always up to 16 threads: the targets are set there (issue 33), and the counts mean the same
// on 2 cores.
export const PROBE_THREADS = [8, 16];
// The probe's runs, one per variant and thread count: { variant, threads, scale, args }. The
// work at every count is sized as for a run up to 16 threads (matrix.mjs, threadScale); the
// probe counts the measured repetition that follows one warm-up, as the benchmark times it.
export function probeRuns({ quick = false, threads = [] } = {}) {
  const counts = [...new Set([...threads, ...PROBE_THREADS])].sort((a, b) => a - b);
  return PROBE_VARIANTS.flatMap((variant) => counts.map((threadCount) => {
    const scale = +((quick ? 0.05 : 1) * threadScale(variant, Math.max(...counts))).toPrecision(4);
    return { variant, threads: threadCount, scale,
             args: [`--variant=${variant}`, `--threads=${threadCount}`, '--reps=1', '--warmup=1', `--scale=${scale}`] };
  }));
}

// The contention records of a run: { variant, threads, scale, ...counts } each.
export function measureContention(program, options) {
  return runProbes(program, probeRuns(options));
}

// Per 1,000 operations, and the slow path's lock acquisitions (span pool, orphan lists,
// growth) per 10,000.
export function perOperation(record) {
  const per = (value, unit = 1000) => (value * unit) / record.ops;
  return {
    slowShare: 1 - record.fast_ops / record.ops,
    rmwFast: per(record.rmw_fast), rmwSlow: per(record.rmw_slow),
    sharedFast: per(record.shared_fast), sharedSlow: per(record.shared_slow),
    blocksPassed: per(record.block_links_passed),
    locksPer10k: per(record.pool_locks + record.orphan_locks + record.growths, 10_000),
  };
}
