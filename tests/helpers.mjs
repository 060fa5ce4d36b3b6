// Shared helpers for the node:test suites.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ChromiumHost } from '../bench/runner/hosts/chromium.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DRIVER = path.join(ROOT, 'bin', 'wasmscale-cc');

// Runs a command to completion; returns { status, stdout, stderr }.
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Runs an Emscripten 3.1.6 output script under Node.
export function runWasm(programJs, args = [], options = {}) {
  return run(process.execPath, ['--no-experimental-fetch', programJs, ...args], options);
}

// Headless Chromium for a test file: started before its tests, closed after them, serving the
// programs in programDir. Returns inChromium(programJs, args), which resolves to runWasm's
// shape ({ status, stdout, stderr }) with the page's console lines as stdout.
export function chromiumRunner(programDir) {
  let chromium;
  before(async () => {
    chromium = new ChromiumHost(programDir);
    await chromium.start();
  });
  after(async () => {
    await chromium?.close();
  });
  return async function inChromium(programJs, args = []) {
    const { lines, exitCode } = await chromium.run(programJs, args, { timeoutMs: 120000 });
    return { status: exitCode, stdout: lines.join('\n') + '\n', stderr: '' };
  };
}
