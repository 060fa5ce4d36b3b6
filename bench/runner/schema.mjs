// The shape of bench/results/<timestamp>.json, checked before it is written and by the tests.
import { PROBE_FIELDS } from './protocol.mjs';

export const SCHEMA = 'wasmscale-bench/2';  // 2: records name their round

const nullableNumber = (value) => value === null || (typeof value === 'number' && Number.isFinite(value) && value >= 0);
const RECORD_FIELDS = {
  workload: (v) => ['math', 'malloc', 'fs', 'pgzip'].includes(v),
  variant: (v) => typeof v === 'string' && v.length > 0,
  host: (v) => ['node', 'chromium', 'native'].includes(v),
  threads: (v) => Number.isInteger(v) && v >= 1,
  malloc: (v) => typeof v === 'string' && v.length > 0,
  fs: (v) => typeof v === 'string' && v.length > 0,
  where: (v) => ['main', 'pthread'].includes(v),
  scale: (v) => typeof v === 'number' && v > 0,
  round: (v) => Number.isInteger(v) && v >= 1,  // the suite's pass that ran it (run.mjs)
  rep: (v) => Number.isInteger(v) && v >= 0,
  ms: nullableNumber,
  ops: nullableNumber,
  peak_bytes: nullableNumber,
  wasm_bytes: (v) => v === null || (Number.isInteger(v) && v > 0),  // null: a native program
  checksum: (v) => v === null || /^[0-9a-f]{16}$/.test(v),
  ok: (v) => typeof v === 'boolean',
  status: (v) => ['ok', 'failed', 'unsupported'].includes(v),
  reason: (v) => v === null || typeof v === 'string',
  known_issue: (v) => v === null || typeof v === 'string',
};
export const RECORD_KEYS = Object.keys(RECORD_FIELDS);

// The contention probe's records (contention.mjs), when the run had them.
function contentionProblems(records) {
  if (!Array.isArray(records) || records.length === 0) return ['contention is not a list of records'];
  return records.flatMap((record, index) => {
    const problems = [];
    if (!['standard', 'small', 'cross'].includes(record.variant)) problems.push(`contention ${index}: variant ${record.variant}`);
    if (!Number.isInteger(record.threads) || record.threads < 1) problems.push(`contention ${index}: threads ${record.threads}`);
    for (const field of PROBE_FIELDS) {
      if (!Number.isInteger(record[field]) || record[field] < 0) problems.push(`contention ${index}: ${field} = ${record[field]}`);
    }
    if (record.fast_ops > record.ops || record.ops === 0) problems.push(`contention ${index}: fast_ops ${record.fast_ops} of ${record.ops}`);
    return problems;
  });
}

// Returns a list of problems; empty when the results are valid.
export function validateResults(results) {
  const problems = [];
  if (results?.schema !== SCHEMA) problems.push(`schema is ${results?.schema}, expected ${SCHEMA}`);
  for (const key of ['started', 'finished']) {
    if (Number.isNaN(Date.parse(results?.[key]))) problems.push(`${key} is not a date`);
  }
  if (typeof results?.machine?.cores !== 'number') problems.push('machine.cores is missing');
  if ('toolchain' in (results ?? {}) && !/^\d+\.\d+\.\d+$/.test(results.toolchain)) problems.push('toolchain is not a release number');
  if ('threads' in (results ?? {}) && !(Array.isArray(results.threads) && results.threads.every((n) => Number.isInteger(n) && n >= 1))) {
    problems.push('threads is not a list of thread counts');
  }
  if ('contention' in (results ?? {})) problems.push(...contentionProblems(results.contention));
  if (!Array.isArray(results?.records) || results.records.length === 0) {
    problems.push('records is empty');
    return problems;
  }
  results.records.forEach((record, index) => {
    for (const [key, valid] of Object.entries(RECORD_FIELDS)) {
      if (!(key in record)) problems.push(`record ${index}: ${key} is missing`);
      else if (!valid(record[key])) problems.push(`record ${index}: ${key} = ${JSON.stringify(record[key])} is invalid`);
    }
    if (record.ok && (record.ms === null || record.ops === null || record.status !== 'ok')) {
      problems.push(`record ${index}: ok but without a measurement`);
    }
    if (!record.ok && !record.reason) problems.push(`record ${index}: not ok but no reason given`);
    if (record.known_issue && record.status !== 'failed') problems.push(`record ${index}: known_issue on a run that did not fail`);
  });
  return problems;
}
