// bin/wasmscale-cc: its options, its errors, and real builds with every allocator and file system.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toolchain, wasmBuildDir } from '../tools/toolchain.mjs';
import { CXX_DRIVER, DRIVER, ROOT, run, runWasm } from './helpers.mjs';

const FIXTURE = path.join(ROOT, 'tests', 'fixtures', 'hello_threads.c');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-driver-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function expectUsageError(args, pattern, env = {}) {
  const result = run(DRIVER, args, { env: { ...process.env, ...env } });
  assert.equal(result.status, 2, `exit status for ${args.join(' ')}: ${result.stderr}`);
  const lines = result.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line of error, got: ${result.stderr}`);
  assert.match(lines[0], /^wasmscale-cc: /);
  assert.match(lines[0], pattern);
}

test('--help documents every option and value', () => {
  const result = run(DRIVER, ['--help']);
  assert.equal(result.status, 0);
  for (const word of ['--malloc=NAME', '--fs=NAME', 'dlmalloc', 'emmalloc', 'mimalloc', 'wasmscale', 'wasmscale-checked', 'js', 'wasmfs', '--print-command', 'EMCC']) {
    assert.ok(result.stdout.includes(word), `help mentions ${word}`);
  }
});

test('unknown or missing option values are one-line errors with status 2', () => {
  expectUsageError(['--malloc=tcmalloc', 'x.c'], /unknown --malloc value 'tcmalloc'.*dlmalloc, emmalloc, mimalloc, wasmscale/);
  expectUsageError(['--fs=idbfs', 'x.c'], /unknown --fs value 'idbfs'.*js, wasmfs/);
  expectUsageError(['--malloc'], /--malloc needs a value/);
  expectUsageError(['-sMALLOC=tcmalloc', 'x.c'],
                   /unknown -sMALLOC value 'tcmalloc': expected one of dlmalloc, emmalloc, mimalloc, wasmscale, wasmscale-checked, none/);
  expectUsageError(['-s', 'MALLOC=tcmalloc', 'x.c'], /unknown -sMALLOC value 'tcmalloc'/);
  expectUsageError(['-s'], /-s needs a setting/);
  expectUsageError(['--mount'], /--mount needs a value: --mount=VIRTUAL=HOST_DIR/);
  expectUsageError(['--mount=/data=d', '--mount=/data=e', 'x.c'], /\/data is mounted twice/);
  for (const form of [['-sFORCE_FILESYSTEM'], ['-sFORCE_FILESYSTEM=1'], ['-s', 'FORCE_FILESYSTEM=1'], ['-s', 'FORCE_FILESYSTEM'],
                      ['-sFORCE_FILESYSTEM=true']]) {
    expectUsageError([...form, 'x.c'], /'-sFORCE_FILESYSTEM(=1|=true)?' needs Emscripten's JS file system/);
  }
  expectUsageError(['--preload-file'], /--preload-file needs a value: SRC\[@DST\]/);
  expectUsageError(['--exclude-file'], /--exclude-file needs a value: PATTERN/);
  expectUsageError(['-sLZ4', '--preload-file', 'x@/x', 'x.c'], /'-sLZ4' decompresses packaged files inside Emscripten's JS file system/);
  expectUsageError(['--use-preload-plugins', 'x.c'], /'--use-preload-plugins' decodes packaged images and audio for Emscripten's JS/);
  expectUsageError(['--backend=nfs', 'x.c'], /unknown --backend value 'nfs': expected one of host/);
  expectUsageError(['--fs=js', '--backend=host', 'x.c'], /--backend needs --fs=wasmscale/);
  expectUsageError(['--fs=wasmscale', '-lnodefs.js', 'x.c'], /'-lnodefs.js' needs Emscripten's JS file system/);
  expectUsageError(['-lidbfs.js', 'x.c'], /'-lidbfs.js' needs Emscripten's JS file system.*FS.mount\(IDBFS, \.\.\.\) takes --backend=opfs/);
  expectUsageError(['--malloc=wasmscale', '-fsanitize=leak,undefined', 'x.c'],
                   /--malloc=wasmscale cannot be combined with -fsanitize=leak, whose runtime brings its own malloc/);
});

test('a missing emcc is named, with status 2', () => {
  expectUsageError(['x.c'], /emcc not found .*no-such-emcc/, { EMCC: '/nonexistent/no-such-emcc' });
});

// 3.1.6's mimalloc peer is compiled from crates.io's sources; later releases bring their own.
const OWN_MIMALLOC = toolchain().mimalloc === 'emcc' &&
  `Emscripten ${toolchain().version} has its own mimalloc (-sMALLOC=mimalloc): no peer is fetched or built`;

test('--malloc=mimalloc with a release that has its own links it, and builds no peer', { skip: !OWN_MIMALLOC &&
  `Emscripten ${toolchain().version} has no mimalloc of its own: the peer is built (tests below)` }, () => {
  const result = run(DRIVER, ['--malloc=mimalloc', '--print-command', '-pthread', 'x.c'],
                     { env: { ...process.env, CARGO: '/nonexistent/cargo' } });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /-sMALLOC=mimalloc/);
  assert.doesNotMatch(result.stdout, /libmimalloc-peer/);
});

test('a missing cargo is named when mimalloc must be fetched, with status 2', { skip: OWN_MIMALLOC }, () => {
  const buildDir = fs.mkdtempSync(path.join(scratch, 'empty-build-'));
  const result = run(DRIVER, ['--malloc=mimalloc', FIXTURE, '-o', path.join(scratch, 'never.js')],
                     { env: { ...process.env, WASMSCALE_BUILD_DIR: buildDir, CARGO: '/nonexistent/cargo' } });
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /cargo not found \(\/nonexistent\/cargo\)/);
});

test('flags map onto emcc settings at link time only', () => {
  const printed = (args) => {
    const result = run(DRIVER, ['--print-command', ...args]);
    assert.equal(result.status, 0, result.stderr);
    return result.stdout.trim().split(' ');
  };
  const defaults = printed(['x.c']);
  assert.ok(defaults.includes('-sMALLOC=none') && defaults.some((arg) => arg.endsWith('wasm-st/libwasmscale-alloc.a')),
            `wasmscale's allocator is the default: ${defaults.join(' ')}`);
  assert.ok(printed(['--malloc=dlmalloc', 'x.c']).includes('-sMALLOC=dlmalloc'));
  assert.ok(printed(['-pthread', 'x.c']).some((arg) => arg.endsWith('wasm-mt/libwasmscale-alloc.a')),
            'a -pthread program gets the threaded build');
  assert.ok(!defaults.includes('-sWASMFS') && defaults.at(-1).endsWith('wasm-st/libwasmscale-fs.a'),
            `wasmscale's file system is the default: ${defaults.join(' ')}`);
  assert.ok(!printed(['--fs=js', 'x.c']).some((arg) => arg.includes('libwasmscale-fs')), '--fs=js links no wasmscale FS');
  assert.ok(printed(['--malloc=emmalloc', 'x.c']).includes('-sMALLOC=emmalloc'));
  assert.ok(printed(['--fs', 'wasmfs', 'x.c']).includes('-sWASMFS'));
  const compileOnly = printed(['--malloc=emmalloc', '--fs=wasmfs', '-c', 'x.c']);
  assert.ok(!compileOnly.some((arg) => arg.startsWith('-sMALLOC') || arg === '-sWASMFS'), compileOnly.join(' '));
  const compile = printed(['-O2', '-c', 'x.c', '-o', 'x.o']);
  assert.equal(compile[1], `-I${path.join(ROOT, 'include')}`, "wasmscale's headers are on the include path");
  assert.deepEqual(compile.slice(2), ['-O2', '-c', 'x.c', '-o', 'x.o'], 'other arguments pass through in order');
  const wasmscale = printed(['--malloc=wasmscale', '-pthread', 'x.c']);
  assert.ok(wasmscale.includes('-sMALLOC=none') && wasmscale.some((arg) => arg.endsWith('wasm-mt/libwasmscale-alloc.a')),
            wasmscale.join(' '));
  assert.ok(printed(['--malloc=wasmscale-checked', 'x.c']).some((arg) => arg.endsWith('wasm-st-checked/libwasmscale-alloc.a')));
  // emcc's own settings, in each form emcc takes: -sX, -sX=1, -sX=true, -s X, -s X=1.
  for (const form of [['-pthread'], ['-sUSE_PTHREADS'], ['-sUSE_PTHREADS=1'], ['-sUSE_PTHREADS=true'], ['-s', 'USE_PTHREADS'],
                      ['-s', 'USE_PTHREADS=1']]) {
    assert.ok(printed([...form, 'x.c']).some((arg) => arg.endsWith('wasm-mt/libwasmscale-alloc.a')), `${form.join(' ')}: threaded build`);
  }
  assert.ok(printed(['-sUSE_PTHREADS=0', 'x.c']).some((arg) => arg.endsWith('wasm-st/libwasmscale-alloc.a')));
  assert.ok(printed(['-sFORCE_FILESYSTEM=0', 'x.c']).some((arg) => arg.endsWith('libwasmscale-fs.a')), 'FORCE_FILESYSTEM=0 is no request');
  for (const form of [['-sMALLOC=emmalloc'], ['-s', 'MALLOC=emmalloc']]) {
    const command = printed([...form, 'x.c']);
    assert.ok(command.includes('-sMALLOC=emmalloc') && !command.some((arg) => arg.includes('libwasmscale-alloc')), command.join(' '));
  }
  // -sMALLOC= names every allocator --malloc= does, wasmscale's too: one word changes in a build file.
  for (const name of ['wasmscale', 'wasmscale-checked', 'dlmalloc']) {
    assert.deepEqual(printed([`-sMALLOC=${name}`, '-pthread', 'x.c']), printed([`--malloc=${name}`, '-pthread', 'x.c']), name);
  }
  const none = printed(['-sMALLOC=none', 'x.c']);
  assert.ok(none.includes('-sMALLOC=none') && !none.some((arg) => arg.includes('libwasmscale-alloc')), none.join(' '));
  for (const form of [['-sWASMFS'], ['-s', 'WASMFS=1']]) assert.ok(printed([...form, 'x.c']).includes('-sWASMFS'));
  assert.ok(printed(['-s', 'EXPORTED_FUNCTIONS=_main', 'x.c']).includes('-sEXPORTED_FUNCTIONS=_main'), '-s X=Y reaches emcc joined');
  // -sNODERAWFS is Emscripten's for --fs=js, a host root (--mount=/=.) for --fs=wasmscale.
  assert.ok(printed(['--fs=js', '-sNODERAWFS', 'x.c']).includes('-sNODERAWFS'));
  const rawfs = printed(['-sNODERAWFS', 'x.c']);
  assert.ok(!rawfs.includes('-sNODERAWFS') && rawfs.includes('-Wl,--undefined=_ws_fs_mount_startup_dirs'), rawfs.join(' '));
  const mounts = fs.readFileSync(rawfs[rawfs.indexOf('-Wl,--undefined=_ws_fs_mount_startup_dirs') - 1], 'utf8');
  assert.match(mounts, /Module\['wasmscaleMounts'\] = \[\["\/", "\."\]\];/);
  assert.ok(!printed(['-sNODERAWFS=0', 'x.c']).some((arg) => arg.includes('mount')), '-sNODERAWFS=0 mounts nothing');
  // AddressSanitizer's runtime is malloc then: no allocator of ours (the file system stays).
  const asan = printed(['-fsanitize=address', 'x.c']);
  assert.ok(!asan.some((arg) => arg.startsWith('-sMALLOC') || arg.includes('libwasmscale-alloc')) &&
            asan.some((arg) => arg.endsWith('libwasmscale-fs.a')), asan.join(' '));
  const ours = (args) => printed(args).some((arg) => arg.endsWith('libwasmscale-alloc.a'));
  assert.ok(ours(['-fsanitize=address', '-fno-sanitize=address', 'x.c']), 'the later flag wins');
  assert.ok(ours(['-fsanitize=undefined', 'x.c']), 'UBSan keeps the chosen allocator');
});

// main() on the main thread: with -sPROXY_TO_PTHREAD, Emscripten 4.0.23's ASan abort on that
// pthread leaves Node running after the report, with emcc alone too (docs/decisions.md).
test('-fsanitize=address builds with the file system and reports a heap overflow', () => {
  const out = path.join(scratch, 'asan.js');
  const flags = ['-pthread', '-sEXIT_RUNTIME=1', '-sPTHREAD_POOL_SIZE=2'];
  const build = run(DRIVER, ['-fsanitize=address', ...flags, path.join(ROOT, 'tests', 'fixtures', 'heap_overflow.c'), '-o', out]);
  assert.equal(build.status, 0, build.stderr);
  const result = runWasm(out);
  assert.match(result.stdout, /^file ok$/m, result.stderr);
  assert.match(`${result.stdout}${result.stderr}`, /AddressSanitizer: heap-buffer-overflow/);
  assert.notEqual(result.status, 0);
});

const builds = [
  { malloc: 'dlmalloc', fs: 'js', pthread: true },
  { malloc: 'emmalloc', fs: 'wasmfs', pthread: true },
  { malloc: 'mimalloc', fs: 'js', pthread: true },
  { malloc: 'mimalloc', fs: 'wasmfs', pthread: false },
  { malloc: 'wasmscale', fs: 'wasmfs', pthread: true },
  { malloc: 'wasmscale', fs: 'js', pthread: false },
  { malloc: 'dlmalloc', fs: 'wasmscale', pthread: false },
  { malloc: 'mimalloc', fs: 'wasmscale', pthread: true },
  { malloc: 'wasmscale', fs: 'wasmscale', pthread: true },
];
for (const { malloc, fs: fileSystem, pthread } of builds) {
  test(`builds and runs from another directory: --malloc=${malloc} --fs=${fileSystem}${pthread ? ' -pthread' : ''}`, () => {
    const out = path.join(scratch, `${malloc}-${fileSystem}-${pthread ? 'mt' : 'st'}.js`);
    const flags = pthread ? ['-pthread', '-sPROXY_TO_PTHREAD', '-sEXIT_RUNTIME=1', '-sPTHREAD_POOL_SIZE=4', '-sALLOW_MEMORY_GROWTH=1', '-Wno-pthreads-mem-growth'] : ['-sALLOW_MEMORY_GROWTH=1'];
    const build = run(DRIVER, [`--malloc=${malloc}`, `--fs=${fileSystem}`, '-O2', ...flags, FIXTURE, '-o', out], { cwd: scratch });
    assert.equal(build.status, 0, build.stderr);
    const js = fs.readFileSync(out, 'utf8');
    // The JS FS puts its MEMFS into the .js; WasmFS and wasmscale keep files in Wasm (wasmscale's
    // .js names MEMFS only as a mount type of Emscripten's FS API).
    assert.equal(/MEMFS\.(ops_table|createNode)\b/.test(js), fileSystem === 'js', `MEMFS in the .js for --fs=${fileSystem}`);
    const result = runWasm(out, [], { cwd: scratch });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^sum 250008 250008 250008, file ok$/m);
  });
}

test('the mimalloc peer is built once and reused', { skip: OWN_MIMALLOC }, () => {
  const library = path.join(wasmBuildDir(), 'peers', 'mimalloc', 'libmimalloc-peer-mt.a');
  assert.ok(fs.existsSync(library), `${library} exists after a mimalloc build`);
  const before = fs.statSync(library).mtimeMs;
  const result = run(DRIVER, ['--malloc=mimalloc', '--print-command', '-pthread', 'x.c']);
  assert.equal(result.status, 0, result.stderr);
  assert.ok(result.stdout.includes(library), 'links the cached library');
  assert.equal(fs.statSync(library).mtimeMs, before, 'not rebuilt');
});

// em++'s counterpart: every source is C++ (as em++ compiles a .c file), for CMAKE_CXX_COMPILER.
test('wasmscale-c++ compiles through em++: a .c source is C++, with the allocator and file system chosen as by wasmscale-cc', () => {
  const source = path.join(ROOT, 'tests', 'fixtures', 'cxx_as_c.c');
  const flags = ['-O2', '-pthread', '-sPROXY_TO_PTHREAD', '-sEXIT_RUNTIME=1', source];
  const asC = run(DRIVER, [...flags, '-o', path.join(scratch, 'as-c.js')]);
  assert.notEqual(asC.status, 0, 'wasmscale-cc compiles a .c file as C, where this source does not build');
  const output = path.join(scratch, 'as-cxx.js');
  const built = run(CXX_DRIVER, [...flags, '-o', output]);
  assert.equal(built.status, 0, built.stderr);
  const result = runWasm(output, [], { cwd: scratch });
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^c\+\+ from a \.c file: 3 names, ws_alloc_get_stats counted \d+ allocations$/m);
  const printed = run(CXX_DRIVER, ['--print-command', '-sMALLOC=emmalloc', 'x.c']);
  assert.match(printed.stdout, /^\S*em\+\+ .*-sMALLOC=emmalloc/);
  const refused = run(CXX_DRIVER, ['--malloc=tcmalloc', 'x.c']);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /^wasmscale-c\+\+: unknown --malloc value 'tcmalloc'/);
});
