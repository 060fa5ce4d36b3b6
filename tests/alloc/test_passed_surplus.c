// Where threads pass blocks, a heap keeps less in reserve (slow_path.c, look_for_surplus). A thread
// fills RUNS runs of one class, then frees FREED blocks in each but the last, so its class
// list holds RUNS - 1 runs with FREED free blocks each beside the one serving. The usual
// reserve keeps runs until two runs' worth (42 blocks) is kept: all of them; the quarter of a
// run kept where blocks are passed: only the first. The thread then allocates until the slow
// path switches runs once, which looks for surplus. Two threads, each with a heap of its own:
// without passing, nothing is handed over; having first freed (and so kept) one block another
// thread allocated, all but the first of those runs are.
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "turns.h"

// 1500 bytes: the class of 1536, 21 blocks to a run of two pages.
enum { SIZE = 1500, PER_RUN = 21, RUNS = 5, FILLED = RUNS * PER_RUN - 5, FREED = 12, MORE = 6 };

typedef struct pattern {
  unsigned char *foreign;  // a block of another thread to free first, or NULL
  uint64_t handed_over;    // runs handed over while allocating MORE blocks
  int stay_until;          // stage to wait for before exiting (0: exit at once)
} pattern;

static void *run_pattern(void *arg) {
  pattern *p = arg;
  unsigned char *blocks[FILLED], *more[MORE];
  for (int i = 0; i < FILLED; i++) {
    blocks[i] = WS(malloc)(SIZE);
    CHECK(blocks[i] != NULL);
    if (blocks[i] != NULL) memset(blocks[i], i & 0xff, SIZE);
  }
  // Blocks come out of a fresh run in address order, so block i lies in run i / PER_RUN.
  for (int run = 0; run < RUNS - 1; run++) {
    for (int i = 0; i < FREED; i++) {
      WS(free)(blocks[run * PER_RUN + i]);
      blocks[run * PER_RUN + i] = NULL;
    }
  }
  if (p->foreign != NULL) WS(free)(p->foreign);  // kept: this heap has runs of the class
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  for (int i = 0; i < MORE; i++) more[i] = WS(malloc)(SIZE);
  ws_alloc_get_stats(&after);
  p->handed_over = after.runs_handed_over - before.runs_handed_over;
  for (int i = 0; i < FILLED; i++) {
    if (blocks[i] == NULL) continue;
    CHECK(blocks[i][0] == (i & 0xff) && blocks[i][SIZE - 1] == (i & 0xff));
    WS(free)(blocks[i]);
  }
  for (int i = 0; i < MORE; i++) WS(free)(more[i]);
  if (p->stay_until != 0) {
    advance(p->stay_until - 1);
    wait_for(p->stay_until);
  }
  return NULL;
}

int main(void) {
  printf("passed surplus: starting\n");  // stdout's buffer before any thread runs
  // The first thread stays until the second is done, so the second gets a heap of its own,
  // not the first one's (whose switch counts have moved on).
  pattern alone = {.stay_until = 2};
  pthread_t first, second;
  CHECK(pthread_create(&first, NULL, run_pattern, &alone) == 0);
  wait_for(1);
  pattern passed = {.foreign = WS(malloc)(SIZE)};
  CHECK(passed.foreign != NULL);
  CHECK(pthread_create(&second, NULL, run_pattern, &passed) == 0);
  CHECK(pthread_join(second, NULL) == 0);
  advance(2);
  CHECK(pthread_join(first, NULL) == 0);
  printf("passed surplus: runs handed over %llu without passed blocks, %llu with\n",
         (unsigned long long)alone.handed_over, (unsigned long long)passed.handed_over);
  CHECK(alone.handed_over == 0);
  CHECK(passed.handed_over == RUNS - 2);
  return check_summary("passed surplus");
}
