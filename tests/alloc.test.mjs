// The wasmscale allocator's tests: API semantics, multithreaded stress, thread churn, checked
// mode and out-of-memory, natively (plain, ASan+UBSan, TSan, libFuzzer) and in Wasm on Node.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALLOC_SOURCES, DEBUG_FLAGS, DRIVER, NATIVE_LIBRARIES, ROOT, run, runWasm } from './helpers.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wasmscale-alloc-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
const testSource = (name) => path.join(ROOT, 'tests', 'alloc', `${name}.c`);
const NATIVE_LIBRARY = path.join(NATIVE_LIBRARIES, 'libwasmscale-alloc.a');
// -fno-builtin: compilers may otherwise drop malloc/free pairs and stores before a free.
const TEST_FLAGS = ['-O1', '-g', '-fno-builtin', '-pthread', '-I' + path.join(ROOT, 'include'), '-Wno-free-nonheap-object', ...DEBUG_FLAGS];

function build(compiler, name, output, flags) {
  const result = run(compiler, [...TEST_FLAGS, ...flags, '-o', output]);
  assert.equal(result.status, 0, `${compiler} ${name}: ${result.stderr}`);
  return output;
}

// Against the installed library: the test's malloc is the allocator's.
const native = (name) => build('gcc', name, path.join(scratch, `${name}-native`), [testSource(name), NATIVE_LIBRARY]);
// Sanitizers bring their own malloc, so the allocator is compiled in under ws_* names.
const sanitized = (name, sanitizer, extra = []) => build('clang-14', name, path.join(scratch, `${name}-${sanitizer.split(',')[0]}`),
  [`-fsanitize=${sanitizer}`, '-fno-sanitize-recover=all', '-DWS_PREFIX_NAMES', ...extra, testSource(name), ...ALLOC_SOURCES]);

const WASM_THREADS = ['-pthread', '-sPROXY_TO_PTHREAD', '-sEXIT_RUNTIME=1', '-sPTHREAD_POOL_SIZE=6', '-Wno-pthreads-mem-growth'];
function wasm(name, malloc, flags) {
  const output = path.join(scratch, `${name}-${malloc}-${flags.includes('-pthread') ? 'mt' : 'st'}.js`);
  const result = run(DRIVER, [`--malloc=${malloc}`, '-O2', '-fno-builtin', '-sALLOW_MEMORY_GROWTH=1', ...flags, testSource(name), '-o', output]);
  assert.equal(result.status, 0, result.stderr);
  return output;
}

function expectPass(result, suite) {
  assert.equal(result.status, 0, result.stdout + result.stderr);
  assert.match(result.stdout, new RegExp(`${suite}: [1-9]\\d* passed, 0 failed`));
}

function expectTsanClean(result, suite) {
  assert.doesNotMatch(result.stderr, /ThreadSanitizer/, result.stderr.slice(0, 4000));
  expectPass(result, suite);
}

// A threaded test natively against the library, under TSan (no report) and in Wasm.
function expectPassNativeTsanWasm(name, suite) {
  expectPass(run(native(name), []), suite);
  expectTsanClean(run(sanitized(name, 'thread'), []), suite);
  expectPass(runWasm(wasm(name, 'wasmscale', WASM_THREADS)), suite);
}

test('API semantics, natively against the library', () => expectPass(run(native('test_api'), []), 'api'));

test('API semantics under ASan and UBSan', () => expectPass(run(sanitized('test_api', 'address,undefined'), []), 'api'));

test('API semantics in Wasm, with and without pthreads', () => {
  expectPass(runWasm(wasm('test_api', 'wasmscale', [])), 'api');
  expectPass(runWasm(wasm('test_api', 'wasmscale', WASM_THREADS)), 'api');
});

test('multithreaded stress, natively under ASan+UBSan and under TSan', () => {
  expectPass(run(sanitized('test_stress', 'address,undefined'), ['8', '6', '100']), 'stress');
  expectTsanClean(run(sanitized('test_stress', 'thread'), ['4', '6', '60']), 'stress');
});

test('multithreaded stress in Wasm with 4 threads', () => {
  expectPass(runWasm(wasm('test_stress', 'wasmscale', WASM_THREADS), ['4', '6', '100']), 'stress');
});

test('in Wasm the allocator shares sbrk with other code on other threads', () => {
  expectPass(runWasm(wasm('test_sbrk', 'wasmscale', WASM_THREADS)), 'sbrk');
});

test('in Wasm, a thread refreshes its view of memory another thread has just grown before atomics on it', () => {
  expectPass(runWasm(wasm('test_grown_memory', 'wasmscale', WASM_THREADS)), 'grown memory');
});

test('a large block\'s hole stays whole: runs come from the top of memory and from exited threads\' heaps first', () => {
  expectPassNativeTsanWasm('test_large_hole', 'large hole');
});

test('memory does not grow across 200 rounds of threads that come and go', () => {
  expectPassNativeTsanWasm('test_churn', 'churn');
});

test('blocks freed into a sleeping thread\'s runs are reused by others, natively, under TSan and in Wasm', () => {
  expectPassNativeTsanWasm('test_reuse', 'reuse');
});

test('a thread keeps a bounded number of the blocks it frees for other threads (only of classes it allocates), and gives them back as it exits', () => {
  expectPassNativeTsanWasm('test_kept', 'kept');
});

test('a heap with many more free blocks than it needs hands runs over to the heaps that need them, and knows its own blocks left in them when it frees them (no sign that threads pass blocks)', () => {
  expectPassNativeTsanWasm('test_handoff', 'handoff');
});

test('where threads pass blocks, a heap keeps a smaller reserve and hands the rest of its free runs over, natively, under TSan and in Wasm', () => {
  expectPassNativeTsanWasm('test_passed_surplus', 'passed surplus');
});

test('a thread reuses the runs it empties instead of trading them through the pool, and an idle one keeps few, natively, under TSan and in Wasm', () => {
  expectPassNativeTsanWasm('test_spares', 'spares');
});

test('the slow paths take a shared lock only when there is work for it: once to grow, none for no orphans, once for an exiting thread, rarely for churning small classes, natively, under TSan and in Wasm', () => {
  expectPassNativeTsanWasm('test_lock_counts', 'lock counts');
});

test('blocks freed in a random order: used-up runs wait at the back instead of serving a block or two each, natively, under TSan and in Wasm', () => {
  expectPassNativeTsanWasm('test_random_frees', 'random frees');
});

test('rather than take more memory, a heap serves a block from a slightly larger class\'s free blocks (aligned ones only from classes that keep the alignment), natively, under ASan+UBSan and in Wasm', () => {
  expectPass(run(native('test_larger_class'), []), 'larger class');
  expectPass(run(sanitized('test_larger_class', 'address,undefined'), []), 'larger class');
  expectPass(runWasm(wasm('test_larger_class', 'wasmscale', [])), 'larger class');
});

// Natively only: the test needs two neighbouring freed blocks to form one free span, which they
// do natively; in Wasm (3.1.6, measured 2026-11-26) they stayed two spans, so the layout it
// checks does not arise there.
test('a large block under the largest bin comes from the smallest free span it fits, not from a hole kept for larger blocks, natively and under ASan+UBSan', () => {
  expectPass(run(native('test_span_fit'), []), 'span fit');
  expectPass(run(sanitized('test_span_fit', 'address,undefined'), []), 'span fit');
});

// Through the ws_* names only: each reads the allocator's figures or its pool from an empty
// start, which a program whose C library shares the allocator never has.
test('the span pool places spans and counts memory by its rules: growth, trim, runs at the top, the smallest hole, hole sparing, realloc in place, page-map pages (ASan+UBSan)', () => {
  expectPass(run(sanitized('test_span_policy', 'address,undefined'), []), 'span policy');
});

test('freed memory comes back whichever thread frees it, malloc_trim returns spares, and mallinfo adds up (ASan+UBSan and TSan)', () => {
  expectPass(run(sanitized('test_accounting', 'address,undefined'), []), 'accounting');
  expectTsanClean(run(sanitized('test_accounting', 'thread'), []), 'accounting');
});

test('the span pool shares the break with another sbrk user: it tries four times, never hands out the other user\'s bytes, and keeps what a failed try got (ASan+UBSan)', () => {
  expectPass(run(sanitized('test_shared_break', 'address,undefined', ['-Wl,--wrap=ws_prim_grow']), []), 'shared break');
});

test('a full run rejoins its class list with a quarter of its blocks back where a class has many, an emptied run leaves the list unless it is the last, and an emptied heap keeps few spares (ASan+UBSan)', () => {
  expectPass(run(sanitized('test_full_runs', 'address,undefined'), []), 'full runs');
});

const BAD_FREES = ['invalid-pointer', 'large-double-free', 'large-interior-pointer'];
test('without checked mode, a free of a pointer never returned, a large block freed twice and a pointer into a large block each stop the program with one line, natively and in Wasm', () => {
  const nativeProgram = native('test_bad_free');
  const wasmProgram = wasm('test_bad_free', 'wasmscale', []);
  for (const misuse of BAD_FREES) {
    for (const result of [run(nativeProgram, [misuse]), runWasm(wasmProgram, [misuse])]) {
      assert.notEqual(result.status, 0, `${misuse} must stop the program`);
      assert.match(result.stderr, /^wasmscale: free\(\) of a pointer this allocator never returned \(address 0x[0-9a-f]+\)$/m, `${misuse}: ${result.stderr}`);
    }
  }
  expectPass(run(nativeProgram, ['none']), 'bad free');
  expectPass(runWasm(wasmProgram, ['none']), 'bad free');
});

const MISUSES = {
  'double-free': /^wasmscale: double free \(address 0x[0-9a-f]+\)$/m,
  'large-double-free': /^wasmscale: double free \(address 0x[0-9a-f]+\)$/m,
  'invalid-pointer': /^wasmscale: free\(\) of a pointer this allocator never returned \(address 0x[0-9a-f]+\)$/m,
  'interior-pointer': /^wasmscale: free\(\) of a pointer this allocator never returned \(address 0x[0-9a-f]+\)$/m,
  overflow: /^wasmscale: write past the end of a block \(address 0x[0-9a-f]+\)$/m,
  'large-overflow': /^wasmscale: write past the end of a block \(address 0x[0-9a-f]+\)$/m,
  underflow: /^wasmscale: write before the start of a block \(address 0x[0-9a-f]+\)$/m,
  'use-after-free': /^wasmscale: write to a freed block \(address 0x[0-9a-f]+\)$/m,
};

test('checked mode stops each misuse with one line naming it, natively and in Wasm', (t) => {
  const nativeChecked = build('gcc', 'test_checked', path.join(scratch, 'test_checked-native'),
                              ['-DWS_CHECKED=1', testSource('test_checked'), ...ALLOC_SOURCES]);
  const wasmChecked = wasm('test_checked', 'wasmscale-checked', []);
  for (const [misuse, message] of Object.entries(MISUSES)) {
    for (const result of [run(nativeChecked, [misuse]), runWasm(wasmChecked, [misuse])]) {
      assert.notEqual(result.status, 0, `${misuse} must stop the program`);
      assert.match(result.stderr, message, `${misuse}: ${result.stderr}`);
    }
  }
  expectPass(run(nativeChecked, ['none']), 'checked');
  expectPass(runWasm(wasmChecked, ['none']), 'checked');
  t.diagnostic(`checked mode: ${Object.keys(MISUSES).length} misuse classes caught natively and in Wasm; valid uses clean`);
});

test('checked mode runs valid C and C++ programs clean: threads, std::thread, iostream, fstream, std::filesystem', (t) => {
  const flags = ['--malloc=wasmscale-checked', '-O2', '-pthread', '-sPROXY_TO_PTHREAD', '-sEXIT_RUNTIME=1',
                 '-sALLOW_MEMORY_GROWTH=1', '-Wno-pthreads-mem-growth'];
  const programs = [
    ['cxx_program.cpp', ['-std=c++17'], /^checked c\+\+: total 8000, 2 directories$/m],
    ['hello_threads.c', [], /^sum 250008 250008 250008, file ok$/m],
  ];
  for (const [source, extra, expected] of programs) {
    const output = path.join(scratch, `checked-${source}.js`);
    const built = run(DRIVER, [...flags, ...extra, path.join(ROOT, 'tests', 'fixtures', source), '-o', output]);
    assert.equal(built.status, 0, built.stderr);
    const result = runWasm(output, [], { cwd: scratch });
    assert.equal(result.status, 0, `${source}: ${result.stdout}${result.stderr}`);
    assert.doesNotMatch(result.stderr, /wasmscale:/);
    assert.match(result.stdout, expected);
  }
  t.diagnostic(`checked mode: ${programs.length} valid programs (C, C++) ran with 0 false positives`);
});

test('freed memory serves larger blocks from any thread: one block of 1..48 MiB at a time, and 8 MiB after 4 threads took and freed all memory in 1 MiB blocks (Wasm, 64 MiB limit)', () => {
  const limited = [...WASM_THREADS, '-sMAXIMUM_MEMORY=64MB', '-sABORTING_MALLOC=0'];
  const result = runWasm(wasm('test_large_reuse', 'wasmscale', limited));
  assert.match(result.stdout, /one block at a time reached 48 MiB/, result.stdout + result.stderr);
  expectPass(result, 'large reuse');
});

test('out of memory in Wasm gives NULL and ENOMEM, never an abort or corruption', () => {
  const small = ['-sMAXIMUM_MEMORY=32MB', '-sABORTING_MALLOC=0'];
  expectPass(runWasm(wasm('test_oom', 'wasmscale', small)), 'oom');
  const fixed = path.join(scratch, 'test_oom-fixed.js');
  const result = run(DRIVER, ['--malloc=wasmscale', '-O2', '-fno-builtin', '-sINITIAL_MEMORY=32MB', '-sABORTING_MALLOC=0',
                              testSource('test_oom'), '-o', fixed]);
  assert.equal(result.status, 0, result.stderr);
  expectPass(runWasm(fixed), 'oom');
});

test('libFuzzer: random malloc/free/realloc/memalign sequences against a shadow model', () => {
  const fuzzer = sanitized('fuzz_alloc', 'fuzzer,address,undefined');
  const corpus = fs.mkdtempSync(path.join(scratch, 'corpus-'));
  // A fixed seed for repeatability, or one from the environment to explore further.
  const seed = process.env.WASMSCALE_FUZZ_SEED || '1';
  const result = run(fuzzer, [`-seed=${seed}`, '-max_total_time=15', '-rss_limit_mb=4096', `-artifact_prefix=${scratch}/`, corpus]);
  assert.equal(result.status, 0, result.stderr.slice(-4000));
  assert.match(result.stderr, /Done \d+ runs/);
});

test('C++ new and delete go through the allocator', () => {
  const source = path.join(scratch, 'new_delete.cpp');
  fs.writeFileSync(source, `#include <cstdio>
#include <vector>
#include "wasmscale/alloc.h"
int main() {
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  std::vector<int *> v;
  for (int i = 0; i < 1000; i++) v.push_back(new int[i + 1]);
  for (int *p : v) delete[] p;
  ws_alloc_get_stats(&after);
  std::printf("allocations %llu\\n", (unsigned long long)(after.allocations - before.allocations));
  return after.allocations - before.allocations >= 1000 ? 0 : 1;
}
`);
  const output = path.join(scratch, 'new_delete.js');
  const result = run(DRIVER, ['--malloc=wasmscale', '-O2', '-pthread', '-sEXIT_RUNTIME=1', source, '-o', output]);
  assert.equal(result.status, 0, result.stderr);
  const ran = runWasm(output);
  assert.equal(ran.status, 0, ran.stdout + ran.stderr);
});
