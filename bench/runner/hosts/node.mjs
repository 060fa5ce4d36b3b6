// Runs a benchmark program under Node, as Emscripten 3.1.6 output needs it.
import { runProcess } from './process.mjs';

export class NodeHost {
  name = 'node';

  async start() {}

  async close() {}

  // Resolves to { lines, exitCode } once the program exits or timeoutMs passes.
  run(programJs, args, { timeoutMs }) {
    // 3.1.6 output would otherwise try fetch() for the .wasm on Node 20.
    return runProcess(process.execPath, ['--no-experimental-fetch', programJs, ...args], { timeoutMs });
  }
}
