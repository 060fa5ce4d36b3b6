// Shared helpers for the node:test suites.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
