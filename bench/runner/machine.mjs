// Describes the machine and toolchain a benchmark ran on, for the report.
import os from 'node:os';
import { execFileSync } from 'node:child_process';

function firstLine(command, args) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0].trim();
  } catch {
    return 'not available';
  }
}

export function describeMachine() {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memory_bytes: os.totalmem(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    emcc: firstLine(process.env.EMCC || 'emcc', ['--version']),
    chromium: firstLine(process.env.CHROMIUM || '/usr/bin/chromium', ['--version']),
  };
}
