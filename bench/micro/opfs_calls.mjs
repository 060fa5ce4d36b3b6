// What each OPFS call costs in Chromium, from a dedicated worker, and what the smallfile cycle
// (create, write, close, reopen, read, close, unlink) costs as the fewest OPFS calls can make
// it: with one access handle kept from the create to the unlink (how wasmscale's OPFS backend
// makes it), and with a handle opened at each open (how a backend that holds none between opens
// must make it). The OPFS backend's per-call target is set against these (docs/decisions.md).
//
// usage: node bench/micro/opfs_calls.mjs [ROUNDS]   (prints µs per call; run on an idle machine)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser } from '../runner/hosts/browsers.mjs';
import { startServer } from '../runner/server.mjs';
import { median } from '../runner/summary.mjs';

const ROUNDS = Number(process.argv[2] || 5);

// The worker's program: each measure() runs `cycles` times and gives µs per cycle.
function workerProgram() {
  const data = new Uint8Array(100).fill(7), back = new Uint8Array(101);
  async function measure(name, cycles, body) {
    for (let i = 0; i < 20; i++) await body(`warm-${name}-${i}`);
    const start = performance.now();
    for (let i = 0; i < cycles; i++) await body(`${name}-${i}`);
    return [name, (performance.now() - start) * 1000 / cycles];
  }
  onmessage = () => measureAll().then((rows) => postMessage(rows), (e) => postMessage(String(e)));
  async function measureAll() {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('opfs-calls', { create: true });
    const held = await (await dir.getFileHandle('held', { create: true })).createSyncAccessHandle();
    held.write(data, { at: 0 });
    const other = await dir.getFileHandle('other', { create: true });
    const rows = [
      await measure('getFileHandle of a missing name (NotFoundError)', 300, async (name) => {
        try { await dir.getFileHandle(name); } catch (e) { if (e.name !== 'NotFoundError') throw e; }
      }),
      await measure('getFileHandle of an existing name', 300, () => dir.getFileHandle('held')),
      await measure('getFileHandle create + removeEntry', 200, async (name) => {
        await dir.getFileHandle(name, { create: true });
        await dir.removeEntry(name);
      }),
      await measure('createSyncAccessHandle + close', 200, async () => {
        const sync = await other.createSyncAccessHandle();
        sync.close();
      }),
      await measure('write 100 bytes', 2000, async () => { held.write(data, { at: 0 }); }),
      await measure('read 100 bytes', 2000, async () => { held.read(back, { at: 0 }); }),
      await measure('getSize', 2000, async () => { held.getSize(); }),
      await measure('truncate 100 -> 0 -> 100', 500, async () => { held.truncate(0); held.truncate(100); }),
      await measure('flush', 500, async () => { held.flush(); }),
      await measure('smallfile cycle, one handle from create to unlink', 200, async (name) => {
        const handle = await dir.getFileHandle(name, { create: true });
        const sync = await handle.createSyncAccessHandle();
        sync.write(data, { at: 0 });
        sync.read(back, { at: 0 });
        sync.close();
        await dir.removeEntry(name);
      }),
      await measure('smallfile cycle, a handle per open', 200, async (name) => {
        const handle = await dir.getFileHandle(name, { create: true });
        let sync = await handle.createSyncAccessHandle();
        sync.write(data, { at: 0 });
        sync.flush();
        sync.close();
        sync = await handle.createSyncAccessHandle();
        sync.read(back, { at: 0 });
        sync.close();
        await dir.removeEntry(name);
      }),
    ];
    held.close();
    await root.removeEntry('opfs-calls', { recursive: true });
    return rows;
  }
}

const site = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-opfs-calls-'));
fs.writeFileSync(path.join(site, 'worker.js'), `(${workerProgram})();`);
fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><script>
  window.run = () => new Promise((resolve, reject) => {
    const worker = new Worker('worker.js');
    worker.onmessage = (event) => { worker.terminate(); resolve(event.data); };
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage('go');
  });
</script>`);
const server = await startServer({ '/': site });
const browser = await launchBrowser('chromium');
try {
  const page = await browser.newPage();
  await page.goto(`${server.origin}/index.html`);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const rows = await page.evaluate(() => window.run());
    if (!Array.isArray(rows)) throw new Error(`the worker failed: ${rows}`);
    rounds.push(rows);
  }
  const fixed = (v) => v.toFixed(1);
  console.log(`µs per call, median (min-max) of ${ROUNDS} rounds, Chromium, dedicated worker`);
  rounds[0].forEach(([name], row) => {
    const values = rounds.map((r) => r[row][1]);
    console.log(`${fixed(median(values)).padStart(8)} (${fixed(Math.min(...values))}-${fixed(Math.max(...values))})  ${name}`);
  });
} finally {
  await browser.close();
  await server.close();
  fs.rmSync(site, { recursive: true, force: true });
}
