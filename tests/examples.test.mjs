// The examples: the parallel indexer run on Node over a host directory by its own script
// (examples/indexer/index-host-dir.mjs), its index checked word for word against one computed
// here, with 1 and 4 threads; its page over OPFS (examples/indexer/opfs.html) in Chromium; and
// the parallel gzip (examples/pgzip) with zlib-ng built through the CMake toolchain file, its
// .gz files unpacked by Node's own zlib byte for byte.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { BROWSER_TITLE, ROOT, run, runWasm } from './helpers.mjs';
import { toolchain, wasmBuildDir } from '../tools/toolchain.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-examples-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// A corpus: 40 files of words drawn from a small vocabulary (mixed case, punctuation), nested
// directories, and a hidden file the indexer skips.
function makeCorpus() {
  const dir = path.join(scratch, 'corpus');
  const words = ['Alpha', 'beta', 'GAMMA', 'delta', 'epsilon42', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'x'.repeat(70)];
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let f = 0; f < 40; f++) {
    const sub = path.join(dir, `part${f % 3}`, f % 2 ? 'odd' : '');
    fs.mkdirSync(sub, { recursive: true });
    const text = Array.from({ length: 50 + f * 7 }, () => words[next() % (words.length - (f % 4 ? 1 : 0))]).join(f % 5 ? ' ' : ',\n');
    fs.writeFileSync(path.join(sub, `doc${f}.txt`), text + '\n');
  }
  fs.writeFileSync(path.join(dir, '.hidden'), 'hidden hidden hidden');
  return dir;
}

// The index the program must write: tokens of ASCII letters and digits, lowercased, cut at 64.
function expectedIndex(dir) {
  const counts = new Map();
  const visit = (at) => {
    for (const name of fs.readdirSync(at)) {
      if (name.startsWith('.') || name === 'INDEX.txt') continue;
      const full = path.join(at, name);
      if (fs.statSync(full).isDirectory()) { visit(full); continue; }
      const seen = new Set();
      for (const token of fs.readFileSync(full, 'latin1').split(/[^A-Za-z0-9]+/).filter(Boolean)) {
        const word = token.toLowerCase().slice(0, 64);
        const entry = counts.get(word) ?? { count: 0, files: 0 };
        entry.count++;
        if (!seen.has(word)) { entry.files++; seen.add(word); }
        counts.set(word, entry);
      }
    }
  };
  visit(dir);
  return [...counts].sort(([a, x], [b, y]) => y.count - x.count || (a < b ? -1 : a > b ? 1 : 0))
    .map(([word, { count, files }]) => `${count} ${files} ${word}\n`).join('');
}

test('the indexer on Node over a host directory: the index it writes there is exact, at 1 and 4 threads', () => {
  const dir = makeCorpus();
  const expected = expectedIndex(dir);
  for (const threads of ['1', '4']) {
    fs.rmSync(path.join(dir, 'INDEX.txt'), { force: true });  // each run writes its own
    const result = run(process.execPath, [path.join(ROOT, 'examples/indexer/index-host-dir.mjs'), dir, threads]);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(result.stdout, new RegExp(`indexer: 40 files, \\d+ bytes, \\d+ distinct words, ${threads} threads`));
    assert.equal(fs.readFileSync(path.join(dir, 'INDEX.txt'), 'utf8'), expected);
  }
  // Threads share host descriptors (one opens, another closes); Node workers that tracked their
  // own made Node abort at exit now and then (1 in 5 to 20 runs at 4 threads): 12 more runs of
  // the program the script has just built, as the script runs it (without building it again).
  const program = path.join(wasmBuildDir(), 'examples', 'indexer-host.js');
  for (let again = 0; again < 12; again++) {
    const result = runWasm(program, ['/corpus', '/corpus/INDEX.txt', '4'], { cwd: dir });
    assert.equal(result.status, 0, `run ${again}: ${result.stdout}${result.stderr}`);
    assert.doesNotMatch(result.stderr, /unmanaged mode/);
  }
  const bad = run(process.execPath, [path.join(ROOT, 'examples/indexer/index-host-dir.mjs'), path.join(scratch, 'missing')]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /usage: .*DIR/);
});

test(`the indexer page over OPFS: files added through the JS API, an exact index, files kept across a reload in ${BROWSER_TITLE}`, async () => {
  const { build } = await import('../examples/indexer/opfs-page.mjs');
  const { launchBrowser } = await import('../bench/runner/hosts/browsers.mjs');
  const { startServer } = await import('../bench/runner/server.mjs');
  const dir = makeCorpus();
  const expected = expectedIndex(dir);
  const files = [];
  const collect = (at) => {
    for (const name of fs.readdirSync(at)) {
      const full = path.join(at, name);
      if (fs.statSync(full).isDirectory()) collect(full);
      else if (name !== 'INDEX.txt') files.push({ path: path.relative(dir, full), data: fs.readFileSync(full, 'latin1') });
    }
  };
  collect(dir);
  const browser = await launchBrowser();
  const server = await startServer({ '/': build() });
  try {
    const page = await browser.newPage();
    const ready = () => browser.waitFor(page, () => !document.getElementById('run').disabled, 60000);
    await page.goto(`${server.origin}/index.html`);
    await ready();
    const index = await page.evaluate(async (corpus) => {
      addFiles(corpus);
      return buildIndex(4);
    }, files);
    assert.equal(index, expected);
    await page.reload();
    await ready();
    assert.equal(await page.evaluate(() => listCorpus().length), 41);  // the 40 documents and .hidden
    assert.equal(await page.evaluate(() => buildIndex(1)), expected);
  } finally {
    await browser.close();
    await server.close();
  }
});

// Files for pgzip: text, random bytes (which do not compress), an empty file, one of 2 MB, and a
// subdirectory it must pass over.
function gzipInputs() {
  const base = fs.mkdtempSync(path.join(scratch, 'pgzip-'));
  const input = path.join(base, 'in');
  fs.mkdirSync(path.join(input, 'subdirectory'), { recursive: true });
  let seed = 99;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let f = 0; f < 24; f++) {
    const words = Array.from({ length: 2000 + f * 300 }, () => ['gzip', 'zlib', 'thread', 'host', 'file'][next() % 5]);
    fs.writeFileSync(path.join(input, `text${f}.txt`), words.join(f % 2 ? ' ' : '\n'));
  }
  fs.writeFileSync(path.join(input, 'random.bin'), Buffer.from(Array.from({ length: 300000 }, () => next() % 256)));
  fs.writeFileSync(path.join(input, 'empty'), '');
  fs.writeFileSync(path.join(input, 'large.txt'), 'the quick brown fox '.repeat(100000));
  return { base, input };
}

test('pgzip: zlib-ng configured with emcmake and the toolchain file, files of a host directory compressed on 1, 2 and 4 threads, each .gz unpacking to its input', () => {
  const { base, input } = gzipInputs();
  const names = fs.readdirSync(input).filter((name) => fs.statSync(path.join(input, name)).isFile());
  for (const threads of ['1', '2', '4']) {
    const output = path.join(base, `out${threads}`);
    const result = run(process.execPath, [path.join(ROOT, 'examples/pgzip/gzip-host-dir.mjs'), input, output, threads]);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(result.stdout, new RegExp(`pgzip: ${names.length} files, \\d+ bytes in, \\d+ bytes out, ${threads} threads, zlib [\\d.]+\\.zlib-ng`));
    assert.deepEqual(fs.readdirSync(output).sort(), names.map((name) => `${name}.gz`).sort());
    for (const name of names) {
      const packed = fs.readFileSync(path.join(output, `${name}.gz`));
      assert.deepEqual([...packed.subarray(0, 2)], [0x1f, 0x8b], `${name}.gz is a gzip stream`);
      assert.ok(zlib.gunzipSync(packed).equals(fs.readFileSync(path.join(input, name))), `${name}.gz unpacks to ${name}`);
    }
  }
  // zlib-ng was configured with the toolchain file, and every source compiled by the installed
  // driver it names.
  const build = path.join(wasmBuildDir(), 'pgzip', 'zlib-ng');
  const cache = fs.readFileSync(path.join(build, 'CMakeCache.txt'), 'utf8');
  assert.match(cache, /^CMAKE_TOOLCHAIN_FILE:\w+=.*\/lib\/cmake\/wasmscale\/wasmscale-toolchain\.cmake$/m);
  const rules = fs.readFileSync(path.join(build, 'CMakeFiles', 'zlib-ng.dir', 'build.make'), 'utf8');
  const compiles = rules.split('\n').filter((line) => / -c \S+\.c$/.test(line));
  assert.ok(compiles.length >= 20, `zlib-ng's compile rules: ${compiles.length}`);
  for (const line of compiles) {
    assert.match(line, /^\t\S+\/bin\/wasmscale-cc /, `compiled with wasmscale-cc (Emscripten ${toolchain().version}): ${line.slice(0, 200)}`);
  }
  const bad = run(process.execPath, [path.join(ROOT, 'examples/pgzip/gzip-host-dir.mjs'), path.join(base, 'missing'), path.join(base, 'x')]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /usage: .*INPUT_DIR OUTPUT_DIR/);
});
