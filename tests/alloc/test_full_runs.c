// A heap's rules for its used-up runs (free.c), asked of the heap directly:
//   - in a class with WS_REJOIN_FULL_RUNS full runs or more, a full run rejoins its class list
//     only once a quarter of its blocks (rounded up) is back, and not one block sooner;
//   - a run whose blocks all came back leaves the class list when another run follows it (the
//     last run of a class stays, so that a class in use does not take and return a run over
//     and over);
//   - a heap that emptied its runs keeps few as spares (WS_SPARE_PAGES_MIN pages once it holds
//     nothing else).
// Native only (it reads the allocator's internals), through the ws_* names: a program of its
// own, whose one thread allocates blocks of one class in order, filling run after run.
#include "check.h"

#include "../../src/alloc/internal.h"

enum { BLOCK = 64, RUNS = WS_REJOIN_FULL_RUNS + 4 };

static void *blocks[RUNS][4096];

static ws_page *run_of(void *p) { return ws_span_of(p); }

// Allocates block after block until `count` runs are used up; returns the blocks per run.
static uint32_t fill_runs(int count) {
  uint32_t capacity = 0;
  for (int r = 0; r < count; r++) {
    blocks[r][0] = WS(malloc)(BLOCK);
    capacity = run_of(blocks[r][0])->capacity;
    CHECK(capacity <= 4096);
    for (uint32_t i = 1; i < capacity; i++) {
      blocks[r][i] = WS(malloc)(BLOCK);
      CHECK(run_of(blocks[r][i]) == run_of(blocks[r][0]));
    }
  }
  return capacity;
}

static void rejoin_after_a_quarter(void) {
  uint32_t capacity = fill_runs(RUNS);
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
  uint32_t capacity = fill_runs(2);
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

int main(void) {
  rejoin_after_a_quarter();
  emptied_run_leaves();
  return check_summary("full runs");
}
