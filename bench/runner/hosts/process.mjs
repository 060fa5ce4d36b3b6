// Runs a command to completion, collecting stdout and stderr as lines, killing it after a
// time limit (the runner then records a timeout instead of waiting forever).
import { spawn } from 'node:child_process';

export function runProcess(command, args, { timeoutMs, env = process.env, cwd }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env, cwd });
    let output = '';
    child.stdout.on('data', (data) => { output += data; });
    child.stderr.on('data', (data) => { output += data; });
    const timer = setTimeout(() => {
      output += `\n@@error timed out after ${timeoutMs} ms`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => { output += `\n@@error cannot run ${command}: ${error.message}`; });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ lines: output.split('\n'), exitCode: code });
    });
  });
}
