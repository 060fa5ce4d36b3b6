// Runs the natively built benchmark program, with an allocator preloaded (LD_PRELOAD).
import { spawn } from 'node:child_process';

export class NativeHost {
  name = 'native';

  async start() {}

  async close() {}

  run(program, args, { timeoutMs, preload }) {
    return new Promise((resolve) => {
      const env = { ...process.env };
      if (preload) env.LD_PRELOAD = preload;
      const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
      let output = '';
      child.stdout.on('data', (data) => { output += data; });
      child.stderr.on('data', (data) => { output += data; });
      const timer = setTimeout(() => {
        output += `\n@@error timed out after ${timeoutMs} ms`;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.on('error', (error) => { output += `\n@@error cannot run ${program}: ${error.message}`; });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ lines: output.split('\n'), exitCode: code });
      });
    });
  }
}
