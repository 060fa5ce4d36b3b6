// Where threads pass blocks, a heap keeps less in reserve (slow_path.c, look_for_surplus). A thread
// fills RUNS runs of one class, then frees FREED blocks in each but the last, so its class
// list holds RUNS - 1 runs with FREED free blocks each beside the one serving. The usual
// reserve keeps runs until two runs' worth (42 blocks) is kept: all of them; the quarter of a
// run kept where blocks are passed: only the first. The thread then allocates until the slow
// path switches runs once, which looks for surplus. Two threads, each with a heap of its own:
// without passing, nothing is handed over; having first freed (and so kept) one block another
// thread allocated, all but the first of those runs are. A third thread, without passing, fills
// two runs more and switches runs at a count where a heap looks however blocks go (every
// WS_SURPLUS_EVERY switches): of the five runs beside the serving one, 12 free blocks each,
// the usual reserve keeps four (48 blocks, the first count past 42) and hands the fifth over.
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "turns.h"

#include "../../src/alloc/internal.h"  // the heap's count of run switches per class

// 1500 bytes: the class of 1536, 21 blocks to a run of two pages.
enum { SIZE = 1500, PER_RUN = 21, RUNS = 5, FREED = 12, MORE = 6, MOST_RUNS = RUNS + 2 };

typedef struct pattern {
  unsigned char *foreign;  // a block of another thread to free first, or NULL
  int runs;                // runs filled (the last one but for 5 blocks), FREED freed in the others
  int switches;            // the class's run switches so far to set before allocating MORE, or -1
  uint64_t handed_over;    // runs handed over while allocating MORE blocks
  int ready;               // stage to move on to when done (0: exit at once)...
  int exit_at;             // ...and the stage to wait for before exiting
} pattern;

static void *run_pattern(void *arg) {
  pattern *p = arg;
  const int filled = p->runs * PER_RUN - 5;
  unsigned char *blocks[MOST_RUNS * PER_RUN], *more[MORE];
  for (int i = 0; i < filled; i++) {
    blocks[i] = WS(malloc)(SIZE);
    CHECK(blocks[i] != NULL);
    if (blocks[i] != NULL) memset(blocks[i], i & 0xff, SIZE);
  }
  // Blocks come out of a fresh run in address order, so block i lies in run i / PER_RUN.
  for (int run = 0; run < p->runs - 1; run++) {
    for (int i = 0; i < FREED; i++) {
      WS(free)(blocks[run * PER_RUN + i]);
      blocks[run * PER_RUN + i] = NULL;
    }
  }
  if (p->foreign != NULL) WS(free)(p->foreign);  // kept: this heap has runs of the class
  if (p->switches >= 0) _ws_current_heap->run_switches[ws_span_of(blocks[filled - 1])->size_class] = (uint8_t)p->switches;
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  for (int i = 0; i < MORE; i++) more[i] = WS(malloc)(SIZE);
  ws_alloc_get_stats(&after);
  p->handed_over = after.runs_handed_over - before.runs_handed_over;
  for (int i = 0; i < filled; i++) {
    if (blocks[i] == NULL) continue;
    CHECK(blocks[i][0] == (i & 0xff) && blocks[i][SIZE - 1] == (i & 0xff));
    WS(free)(blocks[i]);
  }
  for (int i = 0; i < MORE; i++) WS(free)(more[i]);
  if (p->ready != 0) {
    advance(p->ready);
    wait_for(p->exit_at);
  }
  return NULL;
}

int main(void) {
  printf("passed surplus: starting\n");  // stdout's buffer before any thread runs
  // The first thread stays until the second is done, so the second gets a heap of its own,
  // not the first one's (whose switch counts have moved on).
  pattern alone = {.runs = RUNS, .switches = -1, .ready = 1, .exit_at = 3};
  pthread_t first, second;
  CHECK(pthread_create(&first, NULL, run_pattern, &alone) == 0);
  wait_for(1);
  pattern passed = {.foreign = WS(malloc)(SIZE), .runs = RUNS, .switches = -1, .ready = 2, .exit_at = 3};
  CHECK(passed.foreign != NULL);
  CHECK(pthread_create(&second, NULL, run_pattern, &passed) == 0);
  wait_for(2);
  // The third, too, gets a heap of its own while the others stay.
  pattern looking = {.runs = MOST_RUNS, .switches = WS_SURPLUS_EVERY};
  pthread_t third;
  CHECK(pthread_create(&third, NULL, run_pattern, &looking) == 0);
  CHECK(pthread_join(third, NULL) == 0);
  advance(3);
  CHECK(pthread_join(second, NULL) == 0);
  CHECK(pthread_join(first, NULL) == 0);
  printf("passed surplus: runs handed over %llu without passed blocks, %llu with; %llu at a look without\n",
         (unsigned long long)alone.handed_over, (unsigned long long)passed.handed_over,
         (unsigned long long)looking.handed_over);
  CHECK(alone.handed_over == 0);
  CHECK(passed.handed_over == RUNS - 2);
  CHECK(looking.handed_over == 1);
  return check_summary("passed surplus");
}
