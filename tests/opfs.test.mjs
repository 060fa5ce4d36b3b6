// The OPFS backend in a headless browser (tests/fs/opfs.c; Chromium, or Firefox with
// WASMSCALE_BROWSER=firefox, named in each test's title): files survive a page reload (also
// through Emscripten's IDBFS pattern, tests/fs/idbfs.c), 4
// threads on their own files and on one shared file, the main thread itself calling OPFS
// (it spins instead of sleeping: no deadlock), a pthread using OPFS while the main thread
// spins in Wasm or waits in pthread_join (no hang: nothing waits on the main thread), a full quota gives ENOSPC without losing what
// was accepted, and a file another page holds gives EBUSY with a message instead of a hang (and
// the I/O worker's exclusive create, called directly, gives EEXIST for what is already there).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser } from '../bench/runner/hosts/browsers.mjs';
import { startServer } from '../bench/runner/server.mjs';
import { BROWSER_TITLE, DRIVER, ROOT, run, runWasm } from './helpers.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-opfs-'));
const FLAGS = ['--fs=wasmscale', '--backend=opfs', '-O2', '-pthread', '-sEXIT_RUNTIME=1', '-sPTHREAD_POOL_SIZE=6',
  '-sALLOW_MEMORY_GROWTH=1', '-Wno-pthreads-mem-growth', path.join(ROOT, 'tests', 'fs', 'opfs.c')];
let browser, server;

function build(name, extra) {
  const output = path.join(scratch, `${name}.js`);
  const result = run(DRIVER, [...FLAGS, ...extra, '-o', output]);
  assert.equal(result.status, 0, result.stderr);
  return output;
}

before(async () => {
  build('proxied', ['-sPROXY_TO_PTHREAD']);
  const idbfs = run(DRIVER, [...FLAGS.slice(0, -1), '-sPROXY_TO_PTHREAD', '--pre-js', path.join(ROOT, 'tests', 'fs', 'idbfs.pre.js'),
                             path.join(ROOT, 'tests', 'fs', 'idbfs.c'), '-o', path.join(scratch, 'idbfs.js')]);
  assert.equal(idbfs.status, 0, idbfs.stderr);
  build('main-thread', []);  // main() on the page's main thread
  browser = await launchBrowser();
  server = await startServer({ '/programs/': scratch, '/harness/': path.join(ROOT, 'bench', 'runner', 'hosts') });
});

after(async () => {
  await browser?.close();
  await server?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

// Collects `page`'s console lines; returns next(until), a promise of the lines so far once a
// line matches `until` (default: the exit report). It lasts across reloads of the page.
function watch(page) {
  const lines = [];
  let waiter = null;
  page.on('console', (message) => {
    lines.push(message.text());
    if (waiter && waiter.until.test(message.text())) waiter.resolve(lines.slice());
  });
  page.on('pageerror', (error) => {
    if (!String(error.message).includes('ExitStatus')) lines.push(`@@abort ${error.message}`);
  });
  return (until = /^@@(exit|abort)/, timeoutMs = 60000) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; console:\n${lines.join('\n')}`)), timeoutMs);
    waiter = { until, resolve: (seen) => { clearTimeout(timer); resolve(seen); } };
  });
}

// The harness page that runs `program` (a build in scratch) with `args`.
function programUrl(program, args) {
  const query = new URLSearchParams({ program: `/programs/${program}.js`, args: JSON.stringify(args) });
  return `${server.origin}/harness/page.html?${query}`;
}

async function runInPage(page, program, args) {
  const exited = watch(page)();
  await page.goto(programUrl(program, args));
  return exited;
}

// Runs `use(page)` in a fresh page, closed afterwards.
async function inNewPage(use, within = browser) {
  const page = await within.newPage();
  try {
    return await use(page);
  } finally {
    await page.close();
  }
}

function assertExit(lines, pattern) {
  const text = lines.join('\n');
  assert.ok(lines.includes('@@exit 0'), text.slice(-3000));
  assert.match(text, pattern);
}

test(`files written, fsynced and renamed survive a page reload in ${BROWSER_TITLE}`, () => inNewPage(async (page) => {
  const next = watch(page);
  const written = next(/^@@(written|failed|exit|abort)/);
  await page.goto(programUrl('proxied', ['persist']));
  const before = await written;
  assert.equal(before.at(-1), '@@written', before.join('\n'));
  const exited = next();
  await page.reload();  // the program is still running, with two files open
  assertExit(await exited, /persist: checked after reload/);
}));

test(`Emscripten's IDBFS pattern (mount in preRun, syncfs) keeps files across page loads, in OPFS, in ${BROWSER_TITLE}`,
  () => inNewPage(async (page) => {
    const first = await runInPage(page, 'idbfs', []);
    assertExit(first, /^idbfs: run 1, synced yes$/m);
    assert.ok(first.includes('idbfs: populated, null'), first.join('\n'));
    assertExit(await runInPage(page, 'idbfs', []), /^idbfs: run 2, synced yes$/m);
  }));

test(`4 threads write their own files and append to one shared file in ${BROWSER_TITLE}`, () => inNewPage(async (page) => {
  assertExit(await runInPage(page, 'proxied', ['threads', '4']), /threads: 4 threads/);
}));

test(`the page's main thread uses OPFS itself, beside 4 threads, without deadlock in ${BROWSER_TITLE}`, () => inNewPage(async (page) => {
  assertExit(await runInPage(page, 'main-thread', ['threads', '4']), /threads: 4 threads/);
}));

test(`a pthread uses OPFS while the main thread spins in Wasm, then while it waits in pthread_join, in ${BROWSER_TITLE}`,
  () => inNewPage(async (page) => {
    assertExit(await runInPage(page, 'main-thread', ['mainbusy']), /mainbusy: 8 files written and read back while the main thread spun/);
  }));

test(`a file another page holds: stat works, open gives EBUSY with a message; an exclusive create finds what is there in ${BROWSER_TITLE}`, async () => {
  const holder = await browser.newPage();
  const page = await browser.newPage();
  try {
    await holder.goto(`${server.origin}/harness/page.html?program=/none`);
    await holder.evaluate(() => new Promise((resolve, reject) => {
      const source = `(async () => {
        const root = await navigator.storage.getDirectory();
        const dir = await root.getDirectoryHandle('wasmscale-test', { create: true });
        const file = await dir.getFileHandle('held.txt', { create: true });
        self.handle = await file.createSyncAccessHandle();
        self.handle.truncate(0);
        self.handle.write(new TextEncoder().encode('held!'), { at: 0 });
        self.handle.flush();
        postMessage('held');
      })().catch((e) => postMessage(String(e)));`;
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
      window.holder = worker;
      worker.onmessage = (event) => (event.data === 'held' ? resolve() : reject(new Error(event.data)));
    }));
    const lines = await runInPage(page, 'proxied', ['busy']);
    assertExit(lines, /busy: EBUSY/);
    assert.match(lines.join('\n'), /OPFS file \/wasmscale-test\/held\.txt is open in another tab or worker.*EBUSY/);
  } finally {
    await page.close();
    await holder.close();
  }
});

test(`a full quota gives ENOSPC and keeps every byte write() accepted in ${BROWSER_TITLE}`, async () => {
  const limited = await launchBrowser(undefined, { quotaBytes: 6 * 1024 * 1024 });
  try {
    await inNewPage(async (page) => {
      assertExit(await runInPage(page, 'proxied', ['quota']), /quota: ENOSPC after \d+ bytes/);
    }, limited);
  } finally {
    await limited.close();
  }
});

test('without a browser, mounting OPFS gives ENODEV', () => {
  const result = runWasm(path.join(scratch, 'proxied.js'), ['nodev']);
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /nodev: mount gives ENODEV/);
});

test('the driver refuses the OPFS backend without -pthread', () => {
  const result = run(DRIVER, ['--fs=wasmscale', '--backend=opfs', path.join(ROOT, 'tests', 'fs', 'opfs.c'),
    '-o', path.join(scratch, 'single.js')]);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /OPFS backend needs -pthread/);
});
