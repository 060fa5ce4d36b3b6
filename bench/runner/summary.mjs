// Condenses results records into one row per configuration, and the table helpers the report
// and the targets share.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b), middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Groups records by configuration: { key -> { ...config, n, median, min, max, usPerOp, peak, wasm, status, reason } }.
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
    if (ok.length === 0 || failures.length > 0) {
      summary.set(key, { ...base, n: 0, status: failures[0].status, reason: failures[0].reason, knownIssue: failures[0].known_issue });
      continue;
    }
    const times = ok.map((r) => r.ms);
    const med = median(times);
    summary.set(key, { ...base, n: ok.length, status: 'ok', median: med, min: Math.min(...times), max: Math.max(...times),
                       usPerOp: (med * 1000) / ok[0].ops, peak: Math.max(...ok.map((r) => r.peak_bytes)) });
  }
  return summary;
}

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
