// The contention probe: a stand-in for ThreadSanitizer's runtime that counts instead of
// checking. The allocator's sources are compiled with -fsanitize=thread, which makes the
// compiler call a __tsan_* hook at every memory write, atomic operation and function entry
// and exit; this file (compiled without it) defines those hooks. The program around the
// allocator (bench/src/malloc.c) is not instrumented, so only the allocator's own work counts.
//
// What is counted, per thread, for each call into the allocator from outside it (an
// operation: malloc, free, realloc, a thread's heap being torn down):
//   - atomic read-modify-writes (exchange, compare-exchange, fetch-and-op), failed ones too;
//   - writes to a cache line of the allocator's own data (heaps, page descriptors, lists,
//     counters) whose last write came from another thread that is still running (a plain or
//     atomic store, or a read-modify-write): each one moves the line between cores on real
//     hardware, so the count is the same on 2 cores as on 16. A line an exited thread wrote
//     last (its heap's, taken over by a new thread) moves once, as any memory does when first
//     touched by another core, and is not counted. Writes into blocks (the free-list links)
//     are counted apart: the program's own writes to its blocks are not seen, so for them
//     "another thread wrote last" (running or not) only means that a block passed between
//     threads, as the program passes them;
//   - whether the operation stayed on its fast path: it called no other non-inlined function
//     of the allocator (the fast paths are inline in api.c; every slow path is out of line).
// The counts do not depend on timing except through the interleaving itself, so they mean
// something on a machine with fewer cores than threads.
//
// At exit the program prints one line, `contention: {...}` (JSON), with the counts and the
// allocator's lock counts (ws_alloc_get_stats) of its last repetition: the benchmark harness
// calls bench_repetition_starts as each begins, so a run with a warm-up counts what the
// benchmark times, after start-up. bench/runner/contention.mjs reads it.
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/alloc/internal.h"

enum { MAX_THREADS = 256, LINE_SHIFT = 6, TABLE_BITS = 22 };

typedef struct counts {
  uint64_t ops, fast_ops;
  uint64_t rmw_fast, rmw_slow;
  uint64_t shared_fast, shared_slow;   // writes to a line another thread wrote last
  uint64_t writes_fast, writes_slow;   // all writes, for scale
  uint64_t block_links, block_links_passed;  // writes into blocks; of those, after another thread's
} counts;

// One slot per thread, each on lines of its own, summed at exit (threads have been joined).
static struct {
  counts c;
  char pad[128 - sizeof(counts) % 128];
} per_thread[MAX_THREADS];
static _Atomic uint32_t threads_seen;
static _Atomic bool exited[MAX_THREADS];  // by thread number
static pthread_key_t exit_key;            // its destructor marks the thread exited
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void mark_exited(void *id) { atomic_store(&exited[(uintptr_t)id], true); }
static void make_exit_key(void) { pthread_key_create(&exit_key, mark_exited); }

// The last writer of each cache line, by a hash of its address: (line << 8) | thread. A
// collision forgets the other line's writer, which can only undercount.
static _Atomic uint64_t last_writer[1u << TABLE_BITS];

static _Thread_local struct {
  uint32_t id;       // 1-based: 0 means not yet numbered
  int depth;         // nesting of instrumented calls
  bool slow;         // the current operation entered a second function
  uint64_t rmw, shared, writes;  // the current operation's
  uint64_t block_links, block_links_passed;
} me;

static counts *mine(void) {
  if (me.id == 0) {
    me.id = atomic_fetch_add(&threads_seen, 1) + 1;
    if (me.id >= MAX_THREADS) {
      fprintf(stderr, "contention: more than %d threads\n", MAX_THREADS - 1);
      abort();
    }
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, (void *)(uintptr_t)me.id);
  }
  return &per_thread[me.id].c;
}

// Whether address lies in a run's or a large block's pages: the program's memory.
static bool in_block(const volatile void *address) {
  ws_page *head = ws_span_of((const void *)address);
  return head != NULL && (head->kind == WS_PAGE_RUN || head->kind == WS_PAGE_LARGE);
}

static void note_write(const volatile void *address) {
  mine();
  uint64_t line = (uint64_t)(uintptr_t)address >> LINE_SHIFT;
  uint64_t slot = (line * 0x9e3779b97f4a7c15ull) >> (64 - TABLE_BITS);
  uint64_t before = atomic_exchange_explicit(&last_writer[slot], (line << 8) | me.id, memory_order_relaxed);
  uint32_t writer = (uint32_t)(before & 0xff);
  bool passed = before >> 8 == line && writer != me.id;
  if (in_block(address)) {
    me.block_links++;
    me.block_links_passed += passed;
  } else {
    me.writes++;
    me.shared += passed && !atomic_load(&exited[writer]);
  }
}

static void note_rmw(const volatile void *address) {
  me.rmw++;
  note_write(address);
}

void __tsan_init(void) {}

void __tsan_func_entry(void *caller) {
  (void)caller;
  mine();
  if (me.depth++ == 0) {
    me.slow = false;
    me.rmw = me.shared = me.writes = me.block_links = me.block_links_passed = 0;
  } else {
    me.slow = true;
  }
}

void __tsan_func_exit(void) {
  if (--me.depth != 0) return;
  counts *c = mine();
  c->ops++;
  c->block_links += me.block_links;
  c->block_links_passed += me.block_links_passed;
  if (me.slow) {
    c->rmw_slow += me.rmw;
    c->shared_slow += me.shared;
    c->writes_slow += me.writes;
  } else {
    c->fast_ops++;
    c->rmw_fast += me.rmw;
    c->shared_fast += me.shared;
    c->writes_fast += me.writes;
  }
}

// ----- plain accesses -----------------------------------------------------------------------
#define PLAIN(size)                                                               \
  void __tsan_read##size(void *address) { (void)address; }                        \
  void __tsan_write##size(void *address) { note_write(address); }                 \
  void __tsan_unaligned_read##size(void *address) { (void)address; }              \
  void __tsan_unaligned_write##size(void *address) { note_write(address); }
PLAIN(1)
PLAIN(2)
PLAIN(4)
PLAIN(8)
PLAIN(16)
void __tsan_read_range(void *address, size_t size) { (void)address, (void)size; }
void __tsan_write_range(void *address, size_t size) {
  for (uintptr_t at = (uintptr_t)address; at < (uintptr_t)address + size; at = (at | 63) + 1) note_write((void *)at);
}
void __tsan_vptr_read(void **address) { (void)address; }
void __tsan_vptr_update(void **address, void *value) { (void)value, note_write(address); }

// ----- atomics: done for real (sequentially consistent, whatever was asked), and counted ------
#define ATOMICS(bits)                                                                              \
  typedef uint##bits##_t a##bits;                                                                  \
  a##bits __tsan_atomic##bits##_load(const volatile a##bits *a, int mo) {                          \
    (void)mo;                                                                                      \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                   \
  }                                                                                                \
  void __tsan_atomic##bits##_store(volatile a##bits *a, a##bits v, int mo) {                       \
    (void)mo;                                                                                      \
    note_write(a);                                                                                 \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                \
  a##bits __tsan_atomic##bits##_exchange(volatile a##bits *a, a##bits v, int mo) {                 \
    (void)mo;                                                                                      \
    note_rmw(a);                                                                                   \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                            \
  }                                                                                                \
  RMW(bits, fetch_add, __atomic_fetch_add)                                                         \
  RMW(bits, fetch_sub, __atomic_fetch_sub)                                                         \
  RMW(bits, fetch_and, __atomic_fetch_and)                                                         \
  RMW(bits, fetch_or, __atomic_fetch_or)                                                           \
  RMW(bits, fetch_xor, __atomic_fetch_xor)                                                         \
  RMW(bits, fetch_nand, __atomic_fetch_nand)                                                       \
  int __tsan_atomic##bits##_compare_exchange_strong(volatile a##bits *a, a##bits *expected,       \
                                                    a##bits v, int mo, int fail_mo) {              \
    (void)mo, (void)fail_mo;                                                                       \
    note_rmw(a);                                                                                   \
    return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
  }                                                                                                \
  int __tsan_atomic##bits##_compare_exchange_weak(volatile a##bits *a, a##bits *expected,         \
                                                  a##bits v, int mo, int fail_mo) {                \
    return __tsan_atomic##bits##_compare_exchange_strong(a, expected, v, mo, fail_mo);             \
  }                                                                                                \
  a##bits __tsan_atomic##bits##_compare_exchange_val(volatile a##bits *a, a##bits expected,       \
                                                     a##bits v, int mo, int fail_mo) {             \
    __tsan_atomic##bits##_compare_exchange_strong(a, &expected, v, mo, fail_mo);                   \
    return expected;                                                                               \
  }
#define RMW(bits, name, builtin)                                                      \
  a##bits __tsan_atomic##bits##_##name(volatile a##bits *a, a##bits v, int mo) {      \
    (void)mo;                                                                         \
    note_rmw(a);                                                                      \
    return builtin(a, v, __ATOMIC_SEQ_CST);                                           \
  }
ATOMICS(8)
ATOMICS(16)
ATOMICS(32)
ATOMICS(64)
void __tsan_atomic_thread_fence(int mo) { (void)mo, __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int mo) { (void)mo; }

// ----- the report -----------------------------------------------------------------------------
// Every thread's counts, summed: called while no other thread calls the allocator (before a
// repetition starts its threads, or at exit after they were joined).
static counts sum_threads(void) {
  counts total = {0};
  uint32_t seen = atomic_load(&threads_seen);
  for (uint32_t i = 1; i <= seen && i < MAX_THREADS; i++) {
    const counts *c = &per_thread[i].c;
    total.ops += c->ops, total.fast_ops += c->fast_ops;
    total.rmw_fast += c->rmw_fast, total.rmw_slow += c->rmw_slow;
    total.shared_fast += c->shared_fast, total.shared_slow += c->shared_slow;
    total.writes_fast += c->writes_fast, total.writes_slow += c->writes_slow;
    total.block_links += c->block_links, total.block_links_passed += c->block_links_passed;
  }
  return total;
}

// The allocator's statistics, taken as no operation of the program's: nested inside a
// pretend call, the calls it makes are not counted as operations.
static void allocator_stats(ws_alloc_stats *stats) {
  mine();
  me.depth++;
  ws_alloc_get_stats(stats);
  me.depth--;
}

static counts start_counts;
static ws_alloc_stats start_stats;
static uint64_t snapshot_pool_locks;  // what one snapshot takes itself

void bench_repetition_starts(int warmup) {
  (void)warmup;
  start_counts = sum_threads();
  ws_alloc_stats first;
  allocator_stats(&first);
  allocator_stats(&start_stats);
  snapshot_pool_locks = start_stats.pool_lock_acquisitions - first.pool_lock_acquisitions;
}

__attribute__((destructor)) static void report(void) {
  counts total = sum_threads(), *from = &start_counts;
  total.ops -= from->ops, total.fast_ops -= from->fast_ops;
  total.rmw_fast -= from->rmw_fast, total.rmw_slow -= from->rmw_slow;
  total.shared_fast -= from->shared_fast, total.shared_slow -= from->shared_slow;
  total.writes_fast -= from->writes_fast, total.writes_slow -= from->writes_slow;
  total.block_links -= from->block_links, total.block_links_passed -= from->block_links_passed;
  ws_alloc_stats stats;
  allocator_stats(&stats);
  stats.pool_lock_acquisitions -= start_stats.pool_lock_acquisitions + snapshot_pool_locks;  // not the snapshot's own
  stats.orphan_lock_acquisitions -= start_stats.orphan_lock_acquisitions;
  stats.growths -= start_stats.growths;
  fprintf(stderr,
          "contention: {\"ops\": %" PRIu64 ", \"fast_ops\": %" PRIu64 ", \"rmw_fast\": %" PRIu64
          ", \"rmw_slow\": %" PRIu64 ", \"shared_fast\": %" PRIu64 ", \"shared_slow\": %" PRIu64
          ", \"writes_fast\": %" PRIu64 ", \"writes_slow\": %" PRIu64 ", \"block_links\": %" PRIu64
          ", \"block_links_passed\": %" PRIu64 ", \"pool_locks\": %" PRIu64
          ", \"orphan_locks\": %" PRIu64 ", \"growths\": %" PRIu64 "}\n",
          total.ops, total.fast_ops, total.rmw_fast, total.rmw_slow, total.shared_fast, total.shared_slow,
          total.writes_fast, total.writes_slow, total.block_links, total.block_links_passed, stats.pool_lock_acquisitions, stats.orphan_lock_acquisitions,
          stats.growths);
}
