// The Emscripten releases wasmscale builds with (tools/toolchain.py): an emcc the driver cannot
// use is named; each release's outputs go to its own folder; and, for the release this run
// uses ($EMCC, else emcc on PATH), every syscall import its libc leaves is answered with libc's
// own signature, none by Emscripten's JS file system (tools/syscall_imports.py check).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toolchain, wasmBuildDir } from '../tools/toolchain.mjs';
import { DEBUG_LEVEL, DRIVER, ROOT, run } from './helpers.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-toolchain-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

// An executable at scratch/NAME with `text` as its content.
function fakeEmcc(name, text) {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, text, { mode: 0o755 });
  return file;
}

test('an emcc the driver cannot use is named in one line, with status 2', () => {
  const says = (version) => `#!/bin/sh\necho "emcc (Emscripten gcc/clang-like replacement + linker emulating GNU ld) ${version}"\n`;
  for (const [emcc, pattern] of [
    [fakeEmcc('old-emcc', says('2.0.34 (abc)')), /is Emscripten 2\.0\.34, older than 3\.1\.6, the oldest release/],
    [fakeEmcc('new-emcc', says('6.1.0 (abc)')),
     /is Emscripten 6\.1\.0, whose syscall ABI wasmscale has not been checked against \(known: 3\.1\.6, 4\.0\.23\)/],
    [fakeEmcc('mute-emcc', '#!/bin/sh\necho "no version here"; exit 3\n'),
     /--version did not name an Emscripten release \(exit 3: no version here\)/],
    [fakeEmcc('broken-emcc', 'not a program'), /cannot be run/],
  ]) {
    const result = run(DRIVER, ['-O2', 'x.c', '-o', path.join(scratch, 'never.js')], { env: { ...process.env, EMCC: emcc } });
    assert.equal(result.status, 2, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line of error, got: ${result.stderr}`);
    assert.match(lines[0], /^wasmscale-cc: /);
    assert.match(lines[0], pattern);
  }
});

// A release's own tree: emcc beside emcc.py and emscripten-version.txt (as emsdk lays it out).
// Its emcc fails if it is run at all, so every answer here comes from the version file.
function fakeTree(name, version) {
  const tree = path.join(scratch, name);
  fs.mkdirSync(tree);
  fs.writeFileSync(path.join(tree, 'emcc'), '#!/bin/sh\necho "this emcc was run" >&2; exit 7\n', { mode: 0o755 });
  fs.writeFileSync(path.join(tree, 'emcc.py'), '');
  fs.writeFileSync(path.join(tree, 'emscripten-version.txt'), version);
  return path.join(tree, 'emcc');
}

test("in a release's own tree the version comes from its emscripten-version.txt, without running emcc", () => {
  const driver = (emcc, args) => run(DRIVER, args, { env: { ...process.env, EMCC: emcc } });
  const known = fakeTree('tree-known', '4.0.23-git\n');
  const linked = path.join(scratch, 'linked-emcc');
  fs.symlinkSync(known, linked);  // found through the link, in the tree it points into
  for (const emcc of [known, linked]) {
    const printed = driver(emcc, ['--print-command', '-c', 'x.c']);
    assert.equal(printed.status, 0, printed.stderr);
    assert.equal(printed.stdout.trim().split(' ')[0], emcc);
  }
  for (const [version, pattern] of [
    ['"6.1.0"\n', /is Emscripten 6\.1\.0, whose syscall ABI wasmscale has not been checked against/],
    ['3.1.5\n', /is Emscripten 3\.1\.5, older than 3\.1\.6/],
    ['main\n', /emscripten-version\.txt does not name an Emscripten release \(main\)/],
  ]) {
    const result = driver(fakeTree(`tree-${version.replace(/\W/g, '')}`, version), ['-c', 'x.c']);
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, pattern);
  }
});

test('each release builds its libraries and peers in its own folder, build/emscripten-VERSION', () => {
  const { version, folder } = toolchain();
  assert.equal(folder, `emscripten-${version}${DEBUG_LEVEL ? `-debug${DEBUG_LEVEL}` : ''}`);
  const result = run(DRIVER, ['--print-command', '-pthread', 'x.c']);
  assert.equal(result.status, 0, result.stderr);
  for (const library of ['libwasmscale-alloc.a', 'libwasmscale-fs.a']) {
    const file = path.join(wasmBuildDir(), 'lib', 'wasm-mt', library);
    assert.ok(result.stdout.includes(file), `links ${file}: ${result.stdout}`);
    assert.ok(fs.existsSync(file), `${file} was built`);
  }
});

test("every syscall import of this release's libc is answered with libc's signature, none by the JS file system", (t) => {
  const result = run('python3', [path.join(ROOT, 'tools', 'syscall_imports.py'), 'check']);
  assert.equal(result.status, 0, (result.stdout + result.stderr).slice(-4000));
  assert.match(result.stdout, /syscall imports of Emscripten [\d.]+: \d+ \(\d+ wasmscale, .*none left to the JS file system/);
  t.diagnostic(result.stdout.trim());
});

// src/fs/linked.h is the one list of the file system's parts linked on request: the driver
// asks for each by the symbol it names there (tools/libraries.py reads it), and the core refers
// to each weakly. A name the library does not define would make a request that links nothing.
test("every part src/fs/linked.h names is defined by this release's file system library, and the driver asks for it", () => {
  const manifest = fs.readFileSync(path.join(ROOT, 'src', 'fs', 'linked.h'), 'utf8');
  const parts = [...manifest.matchAll(/^\s*WS_(BACKEND|PART)\((\w+), (\w+)\)/gm)].map(([, kind, name, symbol]) => ({ kind, name, symbol }));
  assert.ok(parts.filter((part) => part.kind === 'BACKEND').length >= 2 && parts.length >= 5, manifest);
  const printed = run(DRIVER, ['--print-command', '-pthread', '--backend=host', '--backend=opfs', '--mount=/data=.', 'x.c']);
  assert.equal(printed.status, 0, printed.stderr);
  const emnm = path.join(path.dirname(toolchain().emcc), 'emnm');
  for (const variant of ['wasm-mt', 'wasm-st']) {
    const library = path.join(wasmBuildDir(), 'lib', variant, 'libwasmscale-fs.a');
    const listed = run(emnm, ['--defined-only', library]);
    assert.equal(listed.status, 0, listed.stderr);
    const defined = new Set(listed.stdout.split('\n').map((line) => line.trim().split(/\s+/).at(-1)));
    for (const { symbol } of parts) assert.ok(defined.has(symbol), `${symbol} is defined in ${library}`);
  }
  for (const { kind, name, symbol } of parts) {
    if (kind === 'BACKEND' || name === 'mount' || name === 'js_api') {
      assert.ok(printed.stdout.includes(`-Wl,--undefined=${symbol}`), `the driver asks for ${name} by ${symbol}: ${printed.stdout}`);
    }
  }
});

// README's two commands on a fresh machine: set-up (which installs emcc) runs before anything
// compiles, for `make test` and `make bench` alike. Shown by make -n -B with a PATH that has
// node, python3 and make but no emcc (the recursive make is run, printing its commands too).
test('make test and make bench run set-up before anything compiles, with no emcc on PATH', () => {
  const bin = path.join(scratch, 'no-emcc-bin');
  fs.mkdirSync(bin, { recursive: true });
  for (const tool of ['node', 'python3', 'make']) {
    const found = run('sh', ['-c', `command -v ${tool}`]).stdout.trim();
    assert.ok(found, `${tool} is on PATH`);
    fs.symlinkSync(found, path.join(bin, tool));
  }
  for (const goal of ['test', 'bench']) {
    // A fresh shell's environment: no EMCC, and none of the make that may be running this test
    // (its command-line variables, EMCC= among them, reach children through MAKEFLAGS).
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(EMCC|MAKEFLAGS|MFLAGS|MAKELEVEL)$/.test(name)));
    const result = run('make', ['-n', '-B', goal], { cwd: ROOT, env: { ...env, PATH: bin } });
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.split('\n');
    const setup = lines.findIndex((line) => line.includes('scripts/setup.sh'));
    const compile = lines.findIndex((line) => /(^|\s|\/)emcc\s/.test(line));
    assert.ok(setup >= 0 && compile > setup, `make ${goal}: set-up at line ${setup}, first emcc at line ${compile}:\n` +
              lines.slice(0, 8).join('\n'));
    assert.equal(result.stderr, '', `make ${goal} parses quietly without emcc`);
  }
});
