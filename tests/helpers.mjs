// Shared helpers for the node:test suites.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BrowserHost } from '../bench/runner/hosts/browser.mjs';
import { BROWSER, TITLES } from '../bench/runner/hosts/browsers.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DRIVER = path.join(ROOT, 'bin', 'wasmscale-cc');
export const CXX_DRIVER = path.join(ROOT, 'bin', 'wasmscale-c++');  // the same driver through em++

// WS_DEBUG=1 or 2: the suite runs against the debug build (src/platform/debug.h). The driver and
// make pick its libraries by the same variable; sources a test compiles itself get DEBUG_FLAGS,
// and native libraries come from NATIVE_LIBRARIES.
export const DEBUG_LEVEL = ['1', '2'].includes(process.env.WS_DEBUG) ? Number(process.env.WS_DEBUG) : 0;
export const DEBUG_FLAGS = DEBUG_LEVEL ? [`-DWS_DEBUG=${DEBUG_LEVEL}`] : [];
export const NATIVE_LIBRARIES = path.join(ROOT, 'build', ...(DEBUG_LEVEL ? [`debug${DEBUG_LEVEL}`] : []), 'lib', 'native');

// The allocator natively, for tests that compile it in (under sanitizers, at a debug level).
export const ALLOC_SOURCES = [
  ...fs.readdirSync(path.join(ROOT, 'src/alloc')).filter((f) => f.endsWith('.c')).map((f) => path.join(ROOT, 'src/alloc', f)),
  path.join(ROOT, 'src/platform/common.c'), path.join(ROOT, 'src/platform/posix/prim.c'),
];

// Long enough for the slowest program the suites run (libFuzzer, sanitized stress tests).
const RUN_TIMEOUT_MS = 300_000;

// Runs a command to completion; returns { status, stdout, stderr }. A command that hangs (a
// deadlock) is killed after options.timeout ms and fails the test with its output so far,
// instead of holding up the whole suite.
export function run(command, args, options = {}) {
  const timeout = options.timeout ?? RUN_TIMEOUT_MS;
  const result = spawnSync(command, args, { encoding: 'utf8', ...options, timeout });
  if (result.error?.code === 'ETIMEDOUT') {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.slice(-4000);
    throw new Error(`${[command, ...args].join(' ').slice(0, 300)}: did not finish within ${timeout / 1000} s ` +
                    `(hung?); its output so far:\n${output}`);
  }
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Runs an Emscripten 3.1.6 output script under Node.
export function runWasm(programJs, args = [], options = {}) {
  return run(process.execPath, ['--no-experimental-fetch', programJs, ...args], options);
}

// The browser of this run (WASMSCALE_BROWSER: chromium, the default, or firefox), by name, for
// test titles: make test runs the browser tests once in each.
export const BROWSER_TITLE = TITLES[BROWSER];

// The headless browser for a test file: started before its tests, closed after them, serving
// the programs in programDir. Returns inBrowser(programJs, args), which resolves to runWasm's
// shape ({ status, stdout, stderr }) with the page's console lines as stdout, and has .page.
export function browserRunner(programDir) {
  let host;
  before(async () => {
    host = new BrowserHost(BROWSER, programDir);
    await host.start();
  });
  after(async () => {
    await host?.close();
  });
  async function inBrowser(programJs, args = []) {
    const { lines, exitCode } = await host.run(programJs, args, { timeoutMs: 120000 });
    return { status: exitCode, stdout: lines.join('\n') + '\n', stderr: '' };
  }
  // inBrowser.page(pageFile, ready, read): an .html in programDir opened itself (BrowserHost.inspect).
  inBrowser.page = (pageFile, ready, read) => host.inspect(pageFile, ready, read, { timeoutMs: 120000 });
  return inBrowser;
}
