// Condenses results records into one row per configuration, and the table helpers the report
// and the targets share.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b), middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Groups records by configuration:
// { key -> { ...config, n, median, min, max, usPerOp, usPerOpBest, peak, peakMedian, wasm, status, reason } }.
// peak is the highest of every repetition's, peakMedian their median.
// A configuration with a failed run is failed, unless every failure is a known peer issue
// (matrix.mjs) and other rounds completed: then it is measured from those, and `failedRuns`,
// `reason` and `knownIssue` say what happened to the rest.
export function summarize(records) {
  const groups = new Map();
  for (const record of records) {
    const key = [record.host, record.workload, record.variant, record.malloc, record.fs, record.where, record.threads].join('|');
    if (!groups.has(key)) groups.set(key, { record, ok: [], failures: [] });
    (record.ok ? groups.get(key).ok : groups.get(key).failures).push(record);
  }
  const summary = new Map();
  for (const [key, { record, ok, failures }] of groups) {
    const { host, workload, variant, malloc, fs: fileSystem, where, threads, wasm_bytes } = record;
    const base = { host, workload, variant, malloc, fs: fileSystem, where, threads, wasm: wasm_bytes };
    const failure = failures[0];
    const why = failure ? { failedRuns: failures.length, reason: failure.reason, knownIssue: failure.known_issue } : { failedRuns: 0 };
    if (ok.length === 0 || failures.some((r) => !r.known_issue)) {
      summary.set(key, { ...base, n: 0, ...why, status: (failures.find((r) => !r.known_issue) ?? failure).status });
      continue;
    }
    const times = ok.map((r) => r.ms);
    const med = median(times);
    summary.set(key, { ...base, n: ok.length, status: 'ok', ...why, median: med, min: Math.min(...times),
                       max: Math.max(...times), usPerOp: (med * 1000) / ok[0].ops,
                       usPerOpBest: (Math.min(...times) * 1000) / ok[0].ops, peak: Math.max(...ok.map((r) => r.peak_bytes)),
                       peakMedian: median(ok.map((r) => r.peak_bytes)) });
  }
  return summary;
}

// The thread counts a run measured, in order (make bench THREADS=... chooses them).
export const threadsIn = (summary) => [...new Set([...summary.values()].map((row) => row.threads))].sort((a, b) => a - b);

// How many times the throughput at 1 thread a configuration reaches at `threads` (time per
// operation, so work sized differently per count still compares), by medians or by the fastest
// repetitions (best = true). null when either run is missing.
export function speedup(summary, { host, workload, variant, malloc, fs, where = 'pthread' }, threads, best = false) {
  const one = find(summary, host, workload, variant, malloc, fs, where, 1);
  const many = find(summary, host, workload, variant, malloc, fs, where, threads);
  if (one?.status !== 'ok' || many?.status !== 'ok') return null;
  return best ? one.usPerOpBest / many.usPerOpBest : one.usPerOp / many.usPerOp;
}
// The math workload: the machine's own ceiling for a speed-up (no memory or file traffic).
export const MATH = { workload: 'math', variant: 'standard', malloc: 'dlmalloc', fs: 'js' };

export const find = (summary, host, workload, variant, malloc, fileSystem, where, threads) =>
  summary.get([host, workload, variant, malloc, fileSystem, where, threads].join('|'));

export const fmt = (value, digits = 1) => (value === undefined || value === null ? '–' : value.toFixed(digits));
export const ratio = (value) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');
export const mib = (bytes) => fmt(bytes / 1048576, 1);
export const kib = (bytes) => fmt(bytes / 1024, 0);
export const cell = (row) => (row?.status === 'ok' ? `${fmt(row.median)} (${fmt(row.min)}–${fmt(row.max)})` : `**${row?.status ?? 'not run'}**`);

export function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}
