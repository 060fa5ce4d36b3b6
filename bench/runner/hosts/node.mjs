// Runs a benchmark program under Node, as Emscripten 3.1.6 output needs it.
import { spawn } from 'node:child_process';

export class NodeHost {
  name = 'node';

  async start() {}

  async close() {}

  // Resolves to { lines, exitCode } once the program exits or timeoutMs passes.
  run(programJs, args, { timeoutMs }) {
    return new Promise((resolve) => {
      // 3.1.6 output would otherwise try fetch() for the .wasm on Node 20.
      const child = spawn(process.execPath, ['--no-experimental-fetch', programJs, ...args],
                          { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (data) => { output += data; });
      child.stderr.on('data', (data) => { output += data; });
      const timer = setTimeout(() => {
        output += `\n@@error timed out after ${timeoutMs} ms`;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ lines: output.split('\n'), exitCode: code });
      });
    });
  }
}
