// The slow paths take a shared lock only when there is work for it (the contention targets:
// docs/benchmarks.md, "The contention probe"):
//   - growing memory for a block takes the pool lock once, however many sources it tries first;
//   - giving back what has no orphan to look at takes no orphan lock;
//   - an exiting thread gives its runs and spares back under one pool lock, and hands its runs
//     with free blocks over under one orphan lock;
//   - a thread whose blocks of 256-527 bytes come and go keeps the runs it empties as spares
//     instead of trading them through the pool;
//   - while an exited thread's heap waits for an adopter, a fresh run's look for a short free
//     span takes no lock where only long ones are free.
// Counts come from ws_alloc_get_stats, whose own snapshot takes the pool lock too (measured).
#include "check.h"

#include <pthread.h>
#include <stdint.h>

#include "wasmscale/alloc.h"

static ws_alloc_stats stats(void) {
  ws_alloc_stats s;
  ws_alloc_get_stats(&s);
  return s;
}

static uint64_t snapshot_locks;  // what a snapshot itself takes

static void measure_snapshot(void) {
  WS(free)(WS(malloc)(16));  // the thread's heap exists
  ws_alloc_stats first = stats();
  snapshot_locks = stats().pool_lock_acquisitions - first.pool_lock_acquisitions;
  CHECK(snapshot_locks >= 1);
}

// Memory in runs that heaps hold: reserved, less the pool and large blocks.
static uint64_t held_by_heaps(const ws_alloc_stats *s) { return s->bytes_reserved - s->bytes_pool_free - s->large_in_use; }

// Pool lock acquisitions between two snapshots, less the second's own.
static uint64_t pool_locks_between(const ws_alloc_stats *before, const ws_alloc_stats *after) {
  return after->pool_lock_acquisitions - before->pool_lock_acquisitions - snapshot_locks;
}

static uint64_t pool_locks_since(const ws_alloc_stats *before) {
  ws_alloc_stats now = stats();
  return pool_locks_between(before, &now);
}

static void growing_takes_the_pool_lock_once(void) {
  ws_alloc_stats before = stats();
  void *block = WS(malloc)(4 << 20);  // more than the pool has: it grows
  CHECK(block != NULL);
  ws_alloc_stats after = stats();
  CHECK(after.growths > before.growths);
  CHECK(pool_locks_between(&before, &after) == 1);
  before = stats();
  WS(free)(block);
  CHECK(pool_locks_since(&before) == 1);
}

// Runs of a class cut one after another from memory that grows 64 KiB at a time: each run takes
// the lock once, whether the pool had its pages or had to grow for them (the tries of free
// memory before growing find the pool's free pages too few without the lock).
static void runs_from_new_memory_take_the_lock_once_each(void) {
  enum { BLOCKS = 32 * 200 };  // 1 KiB blocks: 32 to a two-page run, 200 runs
  static void *blocks[BLOCKS];
  ws_alloc_stats before = stats();
  for (int i = 0; i < BLOCKS; i++) CHECK((blocks[i] = WS(malloc)(1024)) != NULL);
  uint64_t locks = pool_locks_since(&before);
  printf("200 runs of new memory took the pool lock %llu times\n", (unsigned long long)locks);
  CHECK(locks <= 200 + 20);  // and a few runs of other classes: the thread's own
  for (int i = 0; i < BLOCKS; i++) WS(free)(blocks[i]);
}

static void trimming_without_orphans_takes_no_orphan_lock(void) {
  ws_alloc_stats before = stats();
  WS(malloc_trim)(0);
  CHECK(stats().orphan_lock_acquisitions == before.orphan_lock_acquisitions);
}

static pthread_barrier_t step;

static void *fill_free_and_wait(void *arg) {
  (void)arg;
  enum { BLOCKS = 3000 };
  static _Thread_local void *blocks[BLOCKS];
  for (int i = 0; i < BLOCKS; i++) CHECK((blocks[i] = WS(malloc)(1500)) != NULL);
  for (int i = 0; i < BLOCKS; i++) WS(free)(blocks[i]);
  void *last = WS(malloc)(1500);  // a run of the class stays in use, others as spares
  pthread_barrier_wait(&step);
  pthread_barrier_wait(&step);  // main has looked
  WS(free)(last);
  return NULL;
}

static void an_exiting_thread_gives_back_under_one_lock(void) {
  CHECK(pthread_barrier_init(&step, NULL, 2) == 0);
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, fill_free_and_wait, NULL) == 0);
  pthread_barrier_wait(&step);
  ws_alloc_stats before = stats();
  uint64_t held = held_by_heaps(&before);
  pthread_barrier_wait(&step);
  pthread_join(thread, NULL);
  ws_alloc_stats after = stats();
  printf("an exiting thread gave back %llu bytes under %llu pool lock(s)\n",
         (unsigned long long)(held - held_by_heaps(&after)),
         (unsigned long long)pool_locks_between(&before, &after));
  // Where the runtime allocates thread stacks with malloc (Emscripten 4.x frees one as its
  // thread is joined), the stack, a large block, goes back under a lock of its own.
  uint64_t stacks_freed = after.large_in_use < before.large_in_use;
  CHECK(pool_locks_between(&before, &after) == 1 + stacks_freed);
  CHECK(held_by_heaps(&after) < held);  // it did give back
  pthread_barrier_destroy(&step);
}

// Runs of three classes, each left with every other block in use (main frees them later): the
// exiting thread hands them all over.
enum { HALF_USED_BLOCKS = 3 * 256 };
static void *half_used[HALF_USED_BLOCKS];

static void *leave_half_used_runs(void *arg) {
  (void)arg;
  static const size_t sizes[3] = {64, 192, 400};
  void *all[2 * HALF_USED_BLOCKS];
  for (int i = 0; i < 2 * HALF_USED_BLOCKS; i++) CHECK((all[i] = WS(malloc)(sizes[i % 3])) != NULL);
  for (int i = 0; i < 2 * HALF_USED_BLOCKS; i++) {
    if (i % 2 == 0) half_used[i / 2] = all[i];
    else WS(free)(all[i]);
  }
  return NULL;
}

static void an_exiting_thread_hands_over_under_one_lock(void) {
  ws_alloc_stats before = stats();
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, leave_half_used_runs, NULL) == 0);
  pthread_join(thread, NULL);
  ws_alloc_stats after = stats();
  uint64_t runs = after.runs_handed_over - before.runs_handed_over;
  uint64_t locks = after.orphan_lock_acquisitions - before.orphan_lock_acquisitions;
  printf("an exiting thread handed over %llu runs under %llu orphan lock(s)\n", (unsigned long long)runs,
         (unsigned long long)locks);
  CHECK(runs >= 6);
  CHECK(locks == 2);  // the hand-over, and the look for orphans it emptied meanwhile
  for (int i = 0; i < HALF_USED_BLOCKS; i++) WS(free)(half_used[i]);
}

// The benchmark's small-block workload on one thread: 1024 live blocks of 16-527 bytes, the
// oldest freed for each new one. The classes of 256-527 bytes have two-page runs of about 64
// blocks, which each hold about that many: a second run comes and goes in each.
static void *small_block_ring(void *arg) {
  enum { RING = 1024, STEPS = 400000 };
  static _Thread_local void *ring[RING];
  uint64_t state = (uintptr_t)arg + 1;
  for (int i = 0; i < STEPS; i++) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    WS(free)(ring[i % RING]);
    CHECK((ring[i % RING] = WS(malloc)(16 + (size_t)(state >> 33) % 512)) != NULL);
  }
  for (int i = 0; i < RING; i++) WS(free)(ring[i]);
  return NULL;
}

static void churning_small_classes_keep_their_runs(void) {
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, small_block_ring, NULL) == 0);  // warms the heap up
  pthread_join(thread, NULL);
  ws_alloc_stats before = stats();
  CHECK(pthread_create(&thread, NULL, small_block_ring, NULL) == 0);  // adopts it
  pthread_join(thread, NULL);
  uint64_t locks = pool_locks_since(&before);
  printf("800000 small-block calls took the pool lock %llu times\n", (unsigned long long)locks);
  CHECK(locks < 40);
}

static void *exit_at_once(void *arg) {
  (void)arg;
  WS(free)(WS(malloc)(64));
  return NULL;
}

// While an exited thread's heap waits to be adopted, a fresh run first looks for a free span
// short of the last bin's (slow_path.c's free_span_source), and the pool here holds only a long
// one (a large block's): that look finds the bins it may take from empty without the lock.
static void runs_beside_an_abandoned_heap_take_the_lock_once_each(void) {
  enum { BLOCKS = 32 * 100 };  // 1 KiB blocks: 32 to a two-page run, 100 runs
  static void *blocks[BLOCKS];
  void *large = WS(malloc)(16 << 20);
  CHECK(large != NULL);
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, exit_at_once, NULL) == 0);
  pthread_join(thread, NULL);  // its heap now waits for a thread to adopt it
  WS(free)(large);
  ws_alloc_stats before = stats();
  for (int i = 0; i < BLOCKS; i++) CHECK((blocks[i] = WS(malloc)(1024)) != NULL);
  uint64_t locks = pool_locks_since(&before);
  printf("100 runs beside an abandoned heap took the pool lock %llu times\n", (unsigned long long)locks);
  CHECK(locks <= 100 + 10);
  for (int i = 0; i < BLOCKS; i++) WS(free)(blocks[i]);
}

int main(void) {
  measure_snapshot();
  growing_takes_the_pool_lock_once();
  runs_from_new_memory_take_the_lock_once_each();
  trimming_without_orphans_takes_no_orphan_lock();
  an_exiting_thread_gives_back_under_one_lock();
  an_exiting_thread_hands_over_under_one_lock();
  churning_small_classes_keep_their_runs();
  runs_beside_an_abandoned_heap_take_the_lock_once_each();
  return check_summary("lock counts");
}
