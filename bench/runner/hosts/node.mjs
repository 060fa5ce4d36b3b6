// Runs a benchmark program under Node, as Emscripten 3.1.6 output needs it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from './process.mjs';

export class NodeHost {
  name = 'node';

  // The host-file configurations keep their files in a directory made for this run, named in
  // WASMSCALE_BENCH_HOST_DIR (bench/src/host_dir.pre.js mounts it) and the programs' working
  // directory (-sNODERAWFS uses it as it is).
  async start() {
    this.hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-bench-files-'));
    this.env = { ...process.env, WASMSCALE_BENCH_HOST_DIR: this.hostDir };
  }

  async close() {
    if (this.hostDir) fs.rmSync(this.hostDir, { recursive: true, force: true });
  }

  // Resolves to { lines, exitCode } once the program exits or timeoutMs passes.
  run(programJs, args, { timeoutMs }) {
    // 3.1.6 output would otherwise try fetch() for the .wasm on Node 20.
    return runProcess(process.execPath, ['--no-experimental-fetch', programJs, ...args],
                      { timeoutMs, env: this.env, cwd: this.hostDir });
  }
}
