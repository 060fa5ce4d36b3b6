// Partly used runs move to the heaps that need them (orphan.c): thread A allocates BLOCKS
// blocks; the main thread frees three of every four (they wait on A's runs); A allocates a few
// more, and on its slow path sees far more free blocks than it needs and hands the surplus runs
// over. A then sleeps. Thread B allocates TAKEN blocks of the same size: it must adopt A's runs
// instead of taking new memory (without the hand-over A's free blocks could serve only A), the
// blocks must stay intact, and once everything is freed the counters must add up. While B lives,
// A frees its own blocks left in the runs B adopted: A keeps them, known as its own (kept.c:
// counted as passed by another thread, they would make the class look like one where threads
// pass blocks), and when it has served them and switches runs, its look for surplus runs
// treats the class as one where blocks are not passed (slow_path.c, look_for_surplus). The main
// thread, freeing B's blocks, keeps some, none as its own. Runs are adopted once at most, runs
// handed over and emptied are given back at a trim, and the peak of bytes in use is at least
// what A held.
#include "check.h"

#include <stdbool.h>
#include <string.h>

#include "../../src/alloc/internal.h"  // the heap's count of run switches per class, runs' descriptors
#include "turns.h"

enum { BLOCKS = 600, SIZE = 1500, CLASS_SIZE = 1536, MORE = 40, TAKEN = 300 };

static unsigned char *owned[BLOCKS], *more[MORE], *taken[TAKEN], *again[BLOCKS];
static ws_alloc_stats before_own_frees, after_own_frees;  // around A's frees of its own blocks
static uint64_t handed_over_after_own;  // runs A handed over while it served its kept blocks
// Stages: 1: A allocated; 2: main freed; 3: A allocated more; 4: B allocated; 5: main looked,
// A frees half its more blocks and its own; 6: A did, B may exit; 7: A may exit.

static void fill(unsigned char **blocks, int count, int pattern) {
  for (int i = 0; i < count; i++) {
    blocks[i] = WS(malloc)(SIZE);
    if (blocks[i]) memset(blocks[i], pattern, SIZE);
  }
}

static bool intact(unsigned char *block, int pattern) {
  return block != NULL && block[0] == pattern && block[SIZE / 2] == pattern && block[SIZE - 1] == pattern;
}

// A serves the `kept` blocks it has just kept, then switches runs once. A heap looks for surplus
// runs at every WS_SURPLUS_EVERY-th switch of a class, or every WS_PASSED_SURPLUS_EVERY-th where
// other heaps' blocks were kept since its last look; the count is set so that this switch looks
// only in the second case, and A holds runs with more free blocks than the smaller reserve kept
// there. Its own blocks are no sign of passing: nothing may be handed over.
static void serve_own_kept_blocks(uint64_t kept) {
  unsigned char *probe = WS(malloc)(SIZE);
  CHECK(probe != NULL);
  if (probe == NULL || kept == 0 || kept + 1 >= BLOCKS) return;
  _ws_current_heap->run_switches[ws_span_of(probe)->size_class] = WS_PASSED_SURPLUS_EVERY;
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  for (uint64_t i = 0; i <= kept; i++) again[i] = WS(malloc)(SIZE);  // the kept ones, then one run switch
  ws_alloc_get_stats(&after);
  handed_over_after_own = after.runs_handed_over - before.runs_handed_over;
  for (uint64_t i = 0; i <= kept; i++) WS(free)(again[i]);
  WS(free)(probe);
}

static void *owner_thread(void *arg) {
  (void)arg;
  fill(owned, BLOCKS, 0xA5);
  advance(1);
  wait_for(2);
  fill(more, MORE, 0x5A);  // through its slow path: the runs with free blocks beyond its needs go
  advance(3);
  wait_for(5);
  for (int i = 1; i < MORE; i += 2) {  // free blocks in A's runs, beyond the smaller reserve
    CHECK(intact(more[i], 0x5A));
    WS(free)(more[i]);
    more[i] = NULL;
  }
  ws_alloc_get_stats(&before_own_frees);
  for (int i = 0; i < BLOCKS; i += 4) {
    CHECK(intact(owned[i], 0xA5));
    WS(free)(owned[i]);
  }
  ws_alloc_get_stats(&after_own_frees);
  serve_own_kept_blocks(after_own_frees.kept_blocks - before_own_frees.kept_blocks);
  advance(6);
  wait_for(7);
  return NULL;
}

static void *taker_thread(void *arg) {
  (void)arg;
  fill(taken, TAKEN, 0x3C);
  advance(4);
  wait_for(6);
  return NULL;
}

// A thread allocates LEFT blocks of another class, frees three of every four and exits: its
// runs, partly used, are handed over. Frees of the rest then go back to those runs, not into
// the freeing heap's kept blocks (which would recycle them through the remote path for as long
// as the runs stay unadopted).
enum { LEFT = 64, LEFT_SIZE = 700 };
static unsigned char *left[LEFT];

static void *leaving_thread(void *arg) {
  (void)arg;
  for (int i = 0; i < LEFT; i++) left[i] = WS(malloc)(LEFT_SIZE);
  for (int i = 0; i < LEFT; i++) {
    if (i % 4 != 0) WS(free)(left[i]);
  }
  return NULL;
}

static void check_frees_into_handed_over_runs(void) {
  // The freeing thread needs a heap of its own (free alone makes none), and one with a run of
  // the class: the blocks are foreign to it all the same.
  unsigned char *mine = WS(malloc)(LEFT_SIZE);
  CHECK(mine != NULL);
  pthread_t leaving;
  CHECK(pthread_create(&leaving, NULL, leaving_thread, NULL) == 0);
  CHECK(pthread_join(leaving, NULL) == 0);
  ws_page *left_run = ws_span_of(left[0]);
  CHECK(left_run->kind == WS_PAGE_RUN && atomic_load(&left_run->owner) == &_ws_orphanage);
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  for (int i = 0; i < LEFT; i += 4) WS(free)(left[i]);
  ws_alloc_get_stats(&after);
  CHECK(after.cross_thread_frees - before.cross_thread_frees == LEFT / 4);
  CHECK(after.kept_blocks == before.kept_blocks);
  WS(free)(mine);
  // The handed-over runs are empty now, and nobody adopted them: a trim gives them back.
  WS(malloc_trim)(0);
  CHECK(left_run->kind != WS_PAGE_RUN);
}

int main(void) {
  pthread_t owner, taker;
  ws_alloc_stats start, before, after, end;
  printf("handoff: starting\n");  // stdout's buffer before the baseline
  // The main thread's heap, made first, lies below A's: told apart by address instead of by
  // identity, the blocks of A's runs it frees below would count as its own.
  unsigned char *early = WS(malloc)(16);
  CHECK(early != NULL);
  ws_alloc_get_stats(&start);
  CHECK(pthread_create(&owner, NULL, owner_thread, NULL) == 0);
  wait_for(1);
  for (int i = 0; i < BLOCKS; i++) {
    if (i % 4 == 0) continue;
    CHECK(intact(owned[i], 0xA5));
    WS(free)(owned[i]);
    owned[i] = NULL;
  }
  advance(2);
  wait_for(3);

  ws_alloc_get_stats(&before);
  CHECK(before.runs_handed_over - start.runs_handed_over >= 10);
  CHECK(pthread_create(&taker, NULL, taker_thread, NULL) == 0);
  wait_for(4);
  ws_alloc_get_stats(&after);
  // B's 300 blocks need 15 runs of 21; at most the one it starts with (and its heap's first
  // small run) may be new.
  printf("handoff: %llu runs handed over, %llu adopted; memory in runs %llu -> %llu bytes\n",
         (unsigned long long)(after.runs_handed_over - start.runs_handed_over),
         (unsigned long long)(after.runs_adopted - start.runs_adopted),
         (unsigned long long)run_bytes(&before), (unsigned long long)run_bytes(&after));
  CHECK(after.runs_adopted - before.runs_adopted >= 10);
  CHECK(after.runs_adopted - start.runs_adopted <= after.runs_handed_over - start.runs_handed_over);  // each once at most
  CHECK(run_bytes(&after) <= run_bytes(&before) + (64 << 10));

  advance(5);
  wait_for(6);
  CHECK(pthread_join(taker, NULL) == 0);
  uint64_t kept = after_own_frees.kept_blocks - before_own_frees.kept_blocks;
  uint64_t known_own = after_own_frees.kept_own_blocks - before_own_frees.kept_own_blocks;
  printf("handoff: A kept %llu of its own blocks in runs it handed over, %llu known as its own\n",
         (unsigned long long)kept, (unsigned long long)known_own);
  CHECK(kept > 0 && known_own == kept);
  printf("handoff: A handed %llu runs over at the switch after serving them\n", (unsigned long long)handed_over_after_own);
  CHECK(handed_over_after_own == 0);
  for (int i = 0; i < TAKEN; i++) CHECK(intact(taken[i], 0x3C));
  for (int i = 0; i < MORE; i += 2) CHECK(intact(more[i], 0x5A));
  // B's blocks lie in runs A handed over. Freed by the main thread, which now has a run of
  // their class too, some are kept, and none as its own.
  unsigned char *main_run = WS(malloc)(SIZE);
  ws_alloc_stats before_main_frees, after_main_frees;
  ws_alloc_get_stats(&before_main_frees);
  for (int i = 0; i < TAKEN; i++) WS(free)(taken[i]);
  ws_alloc_get_stats(&after_main_frees);
  CHECK(after_main_frees.kept_blocks > before_main_frees.kept_blocks);
  CHECK(after_main_frees.kept_own_blocks == before_main_frees.kept_own_blocks);
  WS(free)(main_run);
  for (int i = 0; i < MORE; i += 2) WS(free)(more[i]);
  advance(7);
  CHECK(pthread_join(owner, NULL) == 0);
  WS(malloc_trim)(0);  // takes in frees still waiting on exited threads' runs and on orphans
  ws_alloc_get_stats(&end);
  // Every free counted once, wherever its run went. Small and medium blocks only: in Wasm,
  // Emscripten frees an exited thread's stack (a large block) later, from the main thread.
  // (The C library keeps some memory of the threads it ran natively, about 25 KiB: far below
  // the 940 blocks, 1.4 MB, that went round.)
  uint64_t in_runs_start = start.bytes_in_use - start.large_in_use, in_runs_end = end.bytes_in_use - end.large_in_use;
  printf("handoff: in use in runs %llu -> %llu bytes\n", (unsigned long long)in_runs_start, (unsigned long long)in_runs_end);
  CHECK(in_runs_end >= in_runs_start && in_runs_end - in_runs_start < (64 << 10));
  check_frees_into_handed_over_runs();
  // Runs that changed heaps are counted by each heap as it takes and gives them: the peak of
  // bytes in use (each heap's highest holding, added up: an upper bound) is at least what A held
  // at stage 1, and at most what every heap could hold at once (the builtin heap's included).
  ws_alloc_stats last;
  ws_alloc_get_stats(&last);
  uint64_t heaps = last.heaps_live + last.heaps_abandoned + 1;
  printf("handoff: peak in use %llu bytes (A held %llu), reserved at most %llu, by %llu heaps\n",
         (unsigned long long)last.bytes_in_use_peak, (unsigned long long)(BLOCKS * CLASS_SIZE),
         (unsigned long long)last.bytes_reserved_peak, (unsigned long long)heaps);
  CHECK(last.bytes_in_use_peak >= BLOCKS * CLASS_SIZE && last.bytes_in_use_peak <= heaps * last.bytes_reserved_peak);
  WS(free)(early);
  return check_summary("handoff");
}
