// The Emscripten release a build means, for Node scripts (tests, benchmarks, examples): what
// tools/toolchain.py says of $EMCC (or emcc on PATH), and the folder its outputs go to.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let known;

// { emcc, version, folder, release, mimalloc, worker_js, wasmfs_backends }; throws with tools/toolchain.py's one line.
export function toolchain() {
  if (!known) {
    try {
      known = JSON.parse(execFileSync('python3', [path.join(ROOT, 'tools', 'toolchain.py'), 'json'],
                                      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    } catch (error) {
      throw new Error((error.stderr || error.message).trim());
    }
  }
  return known;
}

// build/emscripten-VERSION: where this release's libraries, peers and programs are built.
export function wasmBuildDir() {
  return path.join(ROOT, 'build', toolchain().folder);
}
