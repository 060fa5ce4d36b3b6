// A heap's rules for its used-up runs (free.c), asked of the heap directly:
//   - in a class with WS_REJOIN_FULL_RUNS full runs or more, a full run rejoins its class list
//     only once a quarter of its blocks (rounded up) is back, and not one block sooner;
//   - a run whose blocks all came back leaves the class list when another run follows it (the
//     last run of a class stays, so that a class in use does not take and return a run over
//     and over);
//   - a heap that emptied its runs keeps few as spares (WS_SPARE_PAGES_MIN pages once it holds
//     nothing else);
//   - before memory grows, every full run with a block back rejoins, and the one with the most
//     free blocks serves;
//   - a block waiting in a heap's delayed list whose run the heap has handed over since goes to
//     the run's new owner, not onto the heap's free list;
//   - where blocks are freed oldest first, used-up runs stop waiting at the back of the list;
//   - a look for surplus hands over a run with one block in use.
// Native only (it reads the allocator's internals), through the ws_* names: a program of its
// own, whose one thread allocates blocks of one class in order, filling run after run.
#include "check.h"

#include "medium_blocks.h"

#include "../../src/alloc/internal.h"

enum { BLOCK = 64, RUNS = WS_REJOIN_FULL_RUNS + 4 };
enum { ODD_BLOCK = 96 };  // 170 to a run: a quarter rounded up (43) is not a quarter rounded down

static void *blocks[RUNS][4096];

static ws_page *run_of(void *p) { return ws_span_of(p); }

// Allocates blocks of `size` bytes until `count` runs are used up; returns the blocks per run.
static uint32_t fill_runs(int count, size_t size) {
  uint32_t capacity = 0;
  for (int r = 0; r < count; r++) {
    blocks[r][0] = WS(malloc)(size);
    capacity = run_of(blocks[r][0])->capacity;
    CHECK(capacity <= 4096);
    for (uint32_t i = 1; i < capacity; i++) {
      blocks[r][i] = WS(malloc)(size);
      CHECK(run_of(blocks[r][i]) == run_of(blocks[r][0]));
    }
  }
  return capacity;
}

static void rejoin_after_a_quarter(size_t size) {
  uint32_t capacity = fill_runs(RUNS, size);
  ws_heap *heap = _ws_current_heap;
  ws_page *run = run_of(blocks[0][0]);
  unsigned size_class = run->size_class;
  CHECK(run->in_full && heap->full_runs[size_class] >= WS_REJOIN_FULL_RUNS);
  uint32_t quarter = 0;
  while (4 * quarter < capacity) quarter++;  // a quarter of the blocks, rounded up
  for (uint32_t i = 0; i < quarter; i++) {
    CHECK(run->in_full);
    WS(free)(blocks[0][i]);
  }
  CHECK(!run->in_full);
  printf("full runs: %u of the %u blocks of a full run brought it back, among %u full runs\n", quarter, capacity,
         (unsigned)heap->full_runs[size_class] + 1);
  for (uint32_t i = quarter; i < capacity; i++) WS(free)(blocks[0][i]);
  for (int r = 1; r < RUNS; r++) {
    for (uint32_t i = 0; i < capacity; i++) WS(free)(blocks[r][i]);
  }
  // Emptied, the heap keeps few of its runs as spares: what it holds bounds them, down to
  // WS_SPARE_PAGES_MIN pages.
  CHECK(heap->spare_pages > 0 && heap->spare_pages <= WS_SPARE_PAGES_MIN);
}

static void emptied_run_leaves(void) {
  uint32_t capacity = fill_runs(2, BLOCK);
  ws_heap *heap = _ws_current_heap;
  ws_page *first = run_of(blocks[0][0]);
  blocks[2][0] = WS(malloc)(BLOCK);  // a third run now serves
  ws_page *third = run_of(blocks[2][0]);
  WS(free)(blocks[0][0]);  // the first rejoins, behind the serving run
  CHECK(heap->avail[first->size_class] == third && third->next == first);
  WS(free)(blocks[2][0]);  // the serving run is empty, and another run follows it
  CHECK(heap->avail[first->size_class] == first);
  for (uint32_t i = 1; i < capacity; i++) WS(free)(blocks[0][i]);  // now the last run of its class
  CHECK(heap->avail[first->size_class] == first);
  for (uint32_t i = 0; i < capacity; i++) WS(free)(blocks[1][i]);
}

static void every_full_run_rejoins(void) {
  uint32_t capacity = fill_runs(RUNS, BLOCK);  // many full runs: a free brings one back only with a quarter
  ws_heap *heap = _ws_current_heap;
  ws_page *older = run_of(blocks[1][0]), *newer = run_of(blocks[2][0]);  // the newer first on the full list
  for (int i = 0; i < 5; i++) WS(free)(blocks[1][i]);
  WS(free)(blocks[2][0]);
  CHECK(older->in_full && newer->in_full);
  CHECK(_ws_rejoin_full_runs(heap, older->size_class) == older);
  CHECK(!older->in_full && !newer->in_full);
  for (int r = 0; r < RUNS; r++) {
    for (uint32_t i = r == 1 ? 5 : r == 2 ? 1 : 0; i < capacity; i++) WS(free)(blocks[r][i]);
  }
}

// Last: it leaves a run with the orphans.
static void delayed_block_of_a_handed_over_run(void) {
  fill_runs(2, BLOCK);
  ws_heap *heap = _ws_current_heap;
  ws_page *run = run_of(blocks[0][0]);
  WS(free)(blocks[0][0]);  // back on the class list
  CHECK(!run->in_full);
  // What a thread that freed blocks[0][1] into the run while it was full left: the block in
  // this heap's delayed list. Then the heap hands the run over (a look for surplus would).
  ws_block *block = blocks[0][1];
  block->next = NULL;
  atomic_store(&heap->delayed_free, (uintptr_t)block);
  ws_page *batch = NULL;
  _ws_orphan_run(heap, run, &batch);
  _ws_hand_over(batch);
  _ws_collect_delayed(heap);
  CHECK(atomic_load(ws_thread_free(run)) == (uintptr_t)block);  // the new owner collects it
  CHECK(run->free != block && run->free->next != block);
}

// Blocks of random sizes freed oldest first (the standard workload's ring): a used-up run sent
// to the back of its class list has nothing back by its turn, so each class's score of waiting
// falls below zero and its used-up runs are marked full at once instead (slow_path.c). A
// single-size ring would not show it: its runs' turns come round as their blocks die.
static void oldest_first_frees_stop_waiting(void) {
  enum { RING = 1024, ROUNDS = 20 };
  static unsigned char *ring[RING];
  uint64_t state = 0x853c49e6748fea9bu;
  for (int step = 0; step < ROUNDS * RING; step++) {
    WS(free)(ring[step % RING]);
    ring[step % RING] = new_medium_block(next_random(&state), 1);
  }
  int classes = 0, negative = 0;
  for (unsigned c = ws_size_class(1000); c <= ws_size_class(2023); c++) {
    classes++;
    negative += _ws_current_heap->waiting_pays[c] < 0;
  }
  printf("full runs: with blocks freed oldest first, %d of %d classes stopped waiting\n", negative, classes);
  // Not every one: below zero, every WS_WAITING_PROBE-th used-up run waits all the same, and
  // the score climbs back whenever one of those finds blocks (the sizes' smallest class has too
  // few blocks to score at all).
  CHECK(negative >= classes * 2 / 3);
  for (int i = 0; i < RING; i++) WS(free)(ring[i]);
}

// A look for surplus hands over every partly used run after the serving one beyond the reserve,
// one with a single block in use too (orphan.c); only an empty one goes back instead.
enum { HANDED_BLOCK = 160 };
static void a_run_with_one_block_in_use_is_handed_over(void) {
  uint32_t capacity = fill_runs(2, HANDED_BLOCK);
  for (uint32_t i = 1; i < capacity; i++) WS(free)(blocks[0][i]);  // run 0: one block in use
  ws_heap *heap = _ws_current_heap;
  ws_page *serving = run_of(blocks[1][0]), *left = run_of(blocks[0][0]);
  CHECK(heap->avail[serving->size_class] == serving && serving->next == left && left->used == 1);
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  _ws_hand_off_surplus(heap, serving, 0);
  ws_alloc_get_stats(&after);
  CHECK(after.runs_handed_over - before.runs_handed_over == 1);
  CHECK(atomic_load(&left->owner) == &_ws_orphanage);
  WS(free)(blocks[0][0]);  // back to the orphan, which a trim then gives back
  for (uint32_t i = 0; i < capacity; i++) WS(free)(blocks[1][i]);
  WS(malloc_trim)(0);
}

int main(void) {
  rejoin_after_a_quarter(BLOCK);
  rejoin_after_a_quarter(ODD_BLOCK);
  emptied_run_leaves();
  every_full_run_rejoins();
  delayed_block_of_a_handed_over_run();
  oldest_first_frees_stop_waiting();
  a_run_with_one_block_in_use_is_handed_over();
  return check_summary("full runs");
}
