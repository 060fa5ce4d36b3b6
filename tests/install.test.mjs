// `make install`, as a project that uses wasmscale sees it. The install is made from a copy of
// the checkout that is deleted before anything uses it, into a staging folder (DESTDIR) that is
// then moved elsewhere: the drivers, pkg-config and CMake must all work from the moved prefix,
// and building with the installed driver must write nothing into it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toolchain } from '../tools/toolchain.mjs';
import { ROOT, run, runWasm } from './helpers.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-install-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
const prefix = path.join(scratch, 'moved-prefix');
const checkoutCopy = path.join(scratch, 'checkout');
const APP = path.join(ROOT, 'tests', 'fixtures', 'installed_app.c');
const CXX_APP = path.join(ROOT, 'tests', 'fixtures', 'cxx_program.cpp');
const VARIANTS = ['wasm-mt', 'wasm-st', 'wasm-mt-checked', 'wasm-st-checked'];

// The environment of a user's build: the release under test, and a cache of its own.
function userEnv(extra = {}) {
  return { ...process.env, EMCC: toolchain().emcc, XDG_CACHE_HOME: path.join(scratch, 'cache'), ...extra };
}

// The fixture's line: both threads' sums, and at least their blocks counted by wasmscale's allocator.
function assertAppRan(result) {
  const match = /^total (\d+), allocations (\d+)\n$/.exec(result.stdout);
  assert.ok(match, `the program's line: ${result.stdout}${result.stderr}`);
  assert.equal(Number(match[1]), 2000, 'both threads summed their blocks');
  assert.ok(Number(match[2]) >= 2000, `wasmscale's allocator counted the blocks (${match[2]})`);
}

function must(result, what) {
  assert.equal(result.status, 0, `${what}: ${(result.stdout + result.stderr).slice(-3000)}`);
  return result;
}

// Every file under dir (links not followed) with its size and modification time.
function snapshot(dir) {
  const files = {};
  for (const entry of fs.readdirSync(dir, { recursive: true })) {
    const stat = fs.lstatSync(path.join(dir, entry));
    files[entry] = `${stat.size} ${stat.mtimeMs}`;
  }
  return files;
}

// A checkout's tracked and new files, and this release's built libraries with their objects
// (timestamps kept, so that make finds them up to date instead of rebuilding).
function copyCheckout() {
  const listed = must(run('git', ['-C', ROOT, 'ls-files', '--cached', '--others', '--exclude-standard', '-z']), 'git ls-files');
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    if (!fs.existsSync(path.join(ROOT, file))) continue;  // deleted, not yet committed
    fs.cpSync(path.join(ROOT, file), path.join(checkoutCopy, file), { preserveTimestamps: true, verbatimSymlinks: true });
  }
  for (const built of ['lib', 'obj']) {
    const from = path.join(ROOT, 'build', toolchain().folder, built);
    fs.cpSync(from, path.join(checkoutCopy, 'build', toolchain().folder, built), { recursive: true, preserveTimestamps: true });
  }
}

before(() => {
  must(run('make', ['-C', ROOT, '--no-print-directory', 'wasm-libs'], { env: userEnv() }), 'make wasm-libs');
  copyCheckout();
  const staging = path.join(scratch, 'staging');
  const installed = run('make', ['-C', checkoutCopy, '--no-print-directory', 'install', 'PREFIX=/opt/wasmscale',
                                 `DESTDIR=${staging}`], { env: userEnv() });
  must(installed, 'make install');
  assert.match(installed.stdout, new RegExp(`wasmscale \\S+ for Emscripten ${toolchain().version.replace(/\./g, '\\.')} in `));
  fs.renameSync(path.join(staging, 'opt', 'wasmscale'), prefix);
  fs.rmSync(checkoutCopy, { recursive: true });
});

test('make install puts the drivers, headers, every variant of both libraries, pkg-config and CMake files', () => {
  const release = path.join(prefix, 'lib', 'wasmscale', toolchain().release);
  const expected = ['bin/wasmscale-cc', 'bin/wasmscale-c++', 'include/wasmscale/alloc.h', 'include/wasmscale/fs.h',
    'lib/cmake/wasmscale/wasmscale-config.cmake', 'lib/cmake/wasmscale/wasmscale-config-version.cmake',
    'lib/cmake/wasmscale/wasmscale-toolchain.cmake',
    ...['', '-st', '-checked', '-st-checked'].flatMap((suffix) => [`wasmscale${suffix}`, `wasmscale-alloc${suffix}`]),
    'wasmscale-fs', 'wasmscale-fs-st'].map((name) => (name.includes('/') ? name : `lib/pkgconfig/${name}.pc`));
  for (const name of expected) assert.ok(fs.existsSync(path.join(prefix, name)), `${name} installed`);
  for (const variant of VARIANTS) {
    assert.ok(fs.statSync(path.join(release, variant, 'libwasmscale-alloc.a')).size > 0, `${variant} allocator`);
    assert.equal(fs.existsSync(path.join(release, variant, 'libwasmscale-fs.a')), !variant.endsWith('-checked'),
                 `${variant} file system (none checked)`);
  }
});

test('no installed file names the checkout or the staging folder', () => {
  for (const entry of fs.readdirSync(prefix, { recursive: true })) {
    const file = path.join(prefix, entry);
    if (!fs.lstatSync(file).isFile()) continue;
    const text = fs.readFileSync(file, 'latin1');
    for (const place of [ROOT, checkoutCopy, 'staging']) {
      assert.ok(!text.includes(place), `${entry} names ${place}`);
    }
  }
});

test('the installed driver builds and runs a multithreaded program, writing nothing into the prefix', () => {
  const before = snapshot(prefix);
  const out = path.join(scratch, 'driver', 'app.js');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  // --mount makes the driver generate a file: it goes to the user's cache.
  must(run(path.join(prefix, 'bin', 'wasmscale-cc'), ['-O2', '-pthread', '-sEXIT_RUNTIME=1', '-sPROXY_TO_PTHREAD',
    `--mount=/host=${scratch}`, APP, '-o', out], { env: userEnv(), cwd: scratch }), 'wasmscale-cc');
  assertAppRan(must(runWasm(out), 'the program'));
  assert.deepEqual(snapshot(prefix), before, 'nothing in the prefix changed');
  assert.ok(fs.readdirSync(path.join(scratch, 'cache', 'wasmscale', toolchain().folder, 'mounts')).length > 0,
            'the generated mount file is in the cache');
});

test('an installed driver asked for a release it has no libraries for names the release and what is installed', () => {
  fs.rmSync(path.join(prefix, 'lib', 'wasmscale', toolchain().release), { recursive: true });
  try {
    const result = run(path.join(prefix, 'bin', 'wasmscale-cc'), [APP, '-o', path.join(scratch, 'never.js')], { env: userEnv() });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr.trim(), new RegExp(`^wasmscale-cc: wasm-st/libwasmscale-alloc\\.a for Emscripten ` +
      `${toolchain().version.replace(/\./g, '\\.')} is not installed in .* \\(installed: none\\); install it with ` +
      '`make install EMCC=.*` from wasmscale\'s checkout$'));
  } finally {
    reinstall();
  }
});

// Puts this release's libraries back into the prefix for the tests that follow.
function reinstall() {
  for (const variant of VARIANTS) {
    for (const kind of ['alloc', 'fs']) {
      const from = path.join(ROOT, 'build', toolchain().folder, 'lib', variant, `libwasmscale-${kind}.a`);
      if (kind === 'fs' && variant.endsWith('-checked')) continue;
      const to = path.join(prefix, 'lib', 'wasmscale', toolchain().release, variant, `libwasmscale-${kind}.a`);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
    }
  }
}

test('pkg-config: emcc with the flags of wasmscale (threads) and wasmscale-st links both libraries', () => {
  const env = userEnv({ PKG_CONFIG_PATH: path.join(prefix, 'lib', 'pkgconfig') });
  for (const [module, threads] of [['wasmscale', ['-pthread', '-sPROXY_TO_PTHREAD']], ['wasmscale-st', []]]) {
    const flags = must(run('pkg-config', ['--cflags', '--libs', module], { env }), `pkg-config ${module}`).stdout.trim().split(/\s+/);
    const out = path.join(scratch, 'pkg-config', `${module}.js`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    must(run(toolchain().emcc, ['-O2', ...threads, '-sEXIT_RUNTIME=1', APP, ...flags, '-o', out], { env }), `emcc ${module}`);
    assertAppRan(must(runWasm(out), `the ${module} program`));
  }
});

// Configures and builds a CMake project in scratch/NAME with Emscripten's emcmake.
function cmakeProject(name, listsText, configureArgs, env = userEnv()) {
  const source = path.join(scratch, name);
  fs.mkdirSync(source, { recursive: true });
  fs.writeFileSync(path.join(source, 'CMakeLists.txt'), listsText);
  const build = path.join(source, 'build');
  const emcmake = path.join(path.dirname(toolchain().emcc), 'emcmake');
  const configured = run(emcmake, ['cmake', '-S', source, '-B', build, ...configureArgs], { env });
  if (configured.status !== 0) return configured;
  return run('cmake', ['--build', build], { env });
}

// CMake's output with its line wrapping undone.
function oneLine(result) {
  return `${result.stdout}${result.stderr}`.replace(/\s+/g, ' ');
}

const FIND_PACKAGE = (variant) => `cmake_minimum_required(VERSION 3.13)
project(app C)
${variant ? `set(WASMSCALE_VARIANT ${variant})\n` : ''}find_package(wasmscale 0.1 REQUIRED)
add_executable(app ${APP})
target_link_libraries(app PRIVATE wasmscale::alloc wasmscale::fs)
target_link_options(app PRIVATE -sEXIT_RUNTIME=1 -sPTHREAD_POOL_SIZE=2)
`;

test('CMake: find_package(wasmscale) gives wasmscale::alloc and wasmscale::fs, multithreaded by default', () => {
  must(cmakeProject('cmake-package', FIND_PACKAGE(null), [`-Dwasmscale_DIR=${path.join(prefix, 'lib', 'cmake', 'wasmscale')}`]),
       'the CMake project');
  assertAppRan(must(runWasm(path.join(scratch, 'cmake-package', 'build', 'app.js')), 'the CMake program'));
});

test('CMake: a variant that does not exist, or is not installed, fails find_package naming it', () => {
  // The prefix as a root of CMake's search, the other way past Emscripten's sysroot-only search.
  const packageDir = `-DCMAKE_FIND_ROOT_PATH=${prefix}`;
  const unknown = cmakeProject('cmake-unknown', FIND_PACKAGE('mt-fast'), [packageDir]);
  assert.notEqual(unknown.status, 0);
  assert.match(oneLine(unknown), /unknown WASMSCALE_VARIANT 'mt-fast': expected one of mt, st, mt-checked, st-checked/);
  const library = path.join(prefix, 'lib', 'wasmscale', toolchain().release, 'wasm-st-checked', 'libwasmscale-alloc.a');
  fs.rmSync(library);
  try {
    const missing = cmakeProject('cmake-missing', FIND_PACKAGE('st-checked'), [packageDir]);
    assert.notEqual(missing.status, 0);
    assert.match(oneLine(missing),
                 new RegExp(`variant 'st-checked' for Emscripten ${toolchain().version.replace(/\./g, '\\.')} is not installed`));
  } finally {
    reinstall();
  }
});

test('CMake: the toolchain file builds C and C++ targets and static libraries through the installed drivers', () => {
  const lists = `cmake_minimum_required(VERSION 3.13)
project(apps C CXX)
add_compile_options(-pthread)
add_link_options(-pthread -sEXIT_RUNTIME=1 -sPROXY_TO_PTHREAD)
add_library(archived STATIC ${APP})
add_executable(app ${APP})
add_executable(cxxapp ${CXX_APP})
target_compile_features(cxxapp PRIVATE cxx_std_17)
target_link_options(cxxapp PRIVATE --malloc=wasmscale-checked -sALLOW_MEMORY_GROWTH=1 -Wno-pthreads-mem-growth)
`;
  must(cmakeProject('cmake-toolchain', lists,
                    [`-DCMAKE_TOOLCHAIN_FILE=${path.join(prefix, 'lib', 'cmake', 'wasmscale', 'wasmscale-toolchain.cmake')}`]),
       'the CMake project');
  const build = path.join(scratch, 'cmake-toolchain', 'build');
  for (const [target, driver] of [['app', 'wasmscale-cc'], ['cxxapp', 'wasmscale-c++']]) {
    const linkLine = fs.readFileSync(path.join(build, 'CMakeFiles', `${target}.dir`, 'link.txt'), 'utf8');
    assert.ok(linkLine.startsWith(`${path.join(prefix, 'bin', driver)} `), `${target} links with ${driver}: ${linkLine}`);
  }
  assert.ok(fs.statSync(path.join(build, 'libarchived.a')).size > 0, 'a static library, archived by the release\'s emar');
  assertAppRan(must(runWasm(path.join(build, 'app.js')), 'the C program'));
  assert.match(must(runWasm(path.join(build, 'cxxapp.js')), 'the C++ program').stdout,
               /^checked c\+\+: total 8000, 2 directories$/m);
});
