// What one of Node's synchronous fs calls costs, the way the host backend makes it (a name
// beneath a held directory, through /proc) and the way a path-based peer does (an absolute
// path). The host backend's per-call budget follows from these (docs/decisions.md).
//
// usage: node bench/micro/node_fs_calls.mjs   (prints µs per call; run on an idle machine)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const O_PATH = 0x200000;
const CALLS = 100_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-fs-calls-'));
const held = fs.openSync(dir, O_PATH | fs.constants.O_DIRECTORY);
fs.writeFileSync(path.join(dir, 'f'), 'x'.repeat(100));

function time(name, call) {
  for (let i = 0; i < 1000; i++) call();
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) call();
  console.log(`${(Number(process.hrtime.bigint() - start) / CALLS / 1000).toFixed(2).padStart(6)} µs  ${name}`);
}

const names = {
  'absolute path': path.join(dir, 'f'),
  '/proc/self/fd/N/name': `/proc/self/fd/${held}/f`,
  '/proc/PID/fd/N/name': `/proc/${process.pid}/fd/${held}/f`,
};
for (const [how, name] of Object.entries(names)) {
  time(`lstat, ${how}`, () => fs.lstatSync(name, { bigint: true }));
  time(`lstat of a missing name, ${how}, thrown`, () => { try { fs.lstatSync(`${name}-missing`); } catch {} });
  time(`lstat of a missing name, ${how}, throwIfNoEntry: false`, () => fs.lstatSync(`${name}-missing`, { throwIfNoEntry: false }));
  time(`open + close, ${how}`, () => fs.closeSync(fs.openSync(name, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW)));
}
// The smallfile workload's cycle as the fewest host calls can make it: a floor for any backend
// that creates and removes the file on the host (docs/decisions.md, the host backend's floor).
const buffer = new Uint8Array(200);
for (const [how, name] of Object.entries(names)) {
  const cycle = `${name}-cycle`;
  time(`smallfile cycle (7 calls), ${how}`, () => {
    let file = fs.openSync(cycle, 'wx');
    fs.writeSync(file, buffer, 0, 100, 0);
    fs.closeSync(file);
    file = fs.openSync(cycle, 'r');
    fs.readSync(file, buffer, 0, 101, 0);
    fs.closeSync(file);
    fs.unlinkSync(cycle);
  });
}
const fd = fs.openSync(path.join(dir, 'f'), 'r+');
const memory = new Uint8Array(1 << 20);
time('fstat', () => fs.fstatSync(fd, { bigint: true }));
time('pread 100 bytes into a long-lived view', () => fs.readSync(fd, memory, 64, 100, 0));
time('pread 100 bytes into a fresh view', () => fs.readSync(fd, new Uint8Array(memory.buffer, 64, 100), 0, 100, 0));
time('pwrite 100 bytes', () => fs.writeSync(fd, memory, 64, 100, 0));
fs.closeSync(fd);
fs.closeSync(held);
fs.rmSync(dir, { recursive: true, force: true });
