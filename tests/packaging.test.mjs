// Files packaged at build time for wasmscale's file system (wasmscale-cc --preload-file and
// --embed-file, as emcc's flags): whole directories and single files, read from 4 threads,
// on Node and in a headless browser (Chromium or Firefox); the program's listing is checked against the host's
// files, byte for byte through a checksum. And what goes wrong is named.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toolchain } from '../tools/toolchain.mjs';
import { BROWSER_TITLE, DRIVER, browserRunner, run, runWasm } from './helpers.mjs';
import { expectOutput, fsPrograms } from './fs/programs.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-packaging-'));
const { wasm } = fsPrograms(scratch);
const AGREE = /packaged: (\d+) files, all threads agree/;

const inBrowser = browserRunner(scratch);
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// assets/: text, 300 KB of binary, an empty file, an empty directory, a name with '@', a hidden
// file and a file --exclude-file leaves out. What emcc's file packager does with them is the
// rule: hidden files are packaged, empty directories are not.
const assets = path.join(scratch, 'assets');
fs.mkdirSync(path.join(assets, 'sub', 'deeper'), { recursive: true });
fs.mkdirSync(path.join(assets, 'empty'));
fs.writeFileSync(path.join(assets, 'a.txt'), 'hello, packaged world\n');
fs.writeFileSync(path.join(assets, 'sub', 'b.bin'), Buffer.from(Array.from({ length: 300000 }, (_, i) => (i * 7919) >> 3)));
fs.writeFileSync(path.join(assets, 'sub', 'deeper', 'zero'), '');
fs.writeFileSync(path.join(assets, 'at@sign'), '@');
fs.writeFileSync(path.join(assets, '.hidden'), 'packaged too');
fs.writeFileSync(path.join(assets, 'sub', 'scratch.tmp'), 'excluded');

function fnv1a(data) {
  let hash = 2166136261;
  for (const byte of data) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

// The lines tests/fs/packaged.c prints for host `source` packaged at `target`.
function expectedLines(source, target) {
  if (fs.statSync(source).isFile()) {
    const data = fs.readFileSync(source);
    return [`file ${target} ${data.length} ${fnv1a(data)}`];
  }
  const inside = fs.readdirSync(source).filter((name) => !name.endsWith('.tmp'))
    .flatMap((name) => expectedLines(path.join(source, name), `${target}/${name}`));
  return inside.some((line) => line.startsWith('file ')) ? [`dir ${target}`, ...inside] : [];
}

function listing(stdout) {
  return stdout.split('\n').filter((line) => /^(dir|file|missing) /.test(line)).sort();
}

// Built from scratch/ as the working directory, so relative SRC paths are the user's.
const FLAGS = ['--preload-file', 'assets@/pre', '--embed-file=assets/sub@/emb', '--embed-file', 'assets/a.txt@/etc/',
  '--preload-file', 'assets/at@@sign@/single/at@@sign', '--exclude-file', '*.tmp'];
// The package kept in IndexedDB after the first load: pages only (on Node the loader refuses it, as emcc's does).
const PAGE_FLAGS = [...FLAGS, '--use-preload-cache'];
const ROOTS = ['/pre', '/emb', '/etc/a.txt', '/single'];
const expected = [
  ...expectedLines(assets, '/pre'), ...expectedLines(path.join(assets, 'sub'), '/emb'),
  ...expectedLines(path.join(assets, 'a.txt'), '/etc/a.txt'),
  'dir /single', ...expectedLines(path.join(assets, 'at@sign'), '/single/at@sign'),
].sort();

function build(flags = FLAGS) {
  const cwd = process.cwd();
  process.chdir(scratch);  // the driver resolves SRC against the working directory
  try {
    return wasm('packaged', flags);
  } finally {
    process.chdir(cwd);
  }
}

// As with emcc, a program finds its preload package through Module.locateFile, else relative
// to the working directory on Node (to the page in a browser): the programs run from theirs.
test('--preload-file and --embed-file on Node: directories and files, 4 threads read the same bytes', () => {
  const result = runWasm(build(), ROOTS, { cwd: scratch });
  expectOutput(result, AGREE);
  assert.deepEqual(listing(result.stdout), expected);
  assert.ok(!result.stdout.includes('scratch.tmp'), 'an excluded file was packaged');
  assert.ok(fs.existsSync(build().replace(/\.js$/, '.data')), 'the preload package sits beside the program');
});

test(`--preload-file and --embed-file in ${BROWSER_TITLE}: the package is fetched before main (and cached)`, async () => {
  const result = await inBrowser(build(PAGE_FLAGS), ROOTS);
  expectOutput(result, AGREE);
  assert.deepEqual(listing(result.stdout), expected);
});

test('a missing package is named at start-up; a missing source, at build time', () => {
  const program = build();
  const moved = path.join(scratch, 'elsewhere');
  fs.mkdirSync(moved, { recursive: true });
  for (const ext of ['.js', '.wasm', ...(toolchain().worker_js ? ['.worker.js'] : [])]) {  // all but the .data
    const file = program.replace(/\.js$/, ext);
    fs.copyFileSync(file, path.join(moved, path.basename(file)));
  }
  const result = runWasm(path.join(moved, path.basename(program)), ROOTS, { cwd: moved });
  assert.notEqual(result.status, 0);
  assert.match(result.stderr, /wasmscale: --preload-file package packaged\d*\.data not found \(from /);

  const missing = run(DRIVER, ['--preload-file', 'no-such-dir@/x', path.join(scratch, 'x.c')], { cwd: scratch });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^wasmscale-cc: the file packager failed: .*no-such-dir.* does not exist$/m);
  fs.writeFileSync(path.join(scratch, 'outside.txt'), 'outside the working directory');
  const outside = run(DRIVER, ['--embed-file', '../outside.txt', path.join(scratch, 'x.c')], { cwd: assets });
  assert.equal(outside.status, 2);
  assert.match(outside.stderr, /^wasmscale-cc: the file packager failed: .*"\.\.\/outside\.txt" which is (below|not contained within) the current directory/m);
});
