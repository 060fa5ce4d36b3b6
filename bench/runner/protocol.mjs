// Parses what a benchmark program prints (see bench/src/harness.h) into one outcome.
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
