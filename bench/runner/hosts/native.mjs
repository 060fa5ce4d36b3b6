// Runs the natively built benchmark program, with an allocator preloaded (LD_PRELOAD).
import { runProcess } from './process.mjs';

export class NativeHost {
  name = 'native';

  async start() {}

  async close() {}

  run(program, args, { timeoutMs, preload }) {
    const env = preload ? { ...process.env, LD_PRELOAD: preload } : process.env;
    return runProcess(program, args, { timeoutMs, env });
  }
}
