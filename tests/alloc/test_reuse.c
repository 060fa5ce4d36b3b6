// Blocks freed by other threads are reused while their owner sleeps: thread A allocates and
// then waits; the main thread frees all of A's blocks (they wait, uncollected, on A's runs);
// thread C, which has a block of that size of its own, then allocates more. C must take those
// blocks instead of new memory, their contents must stay intact through the hand-overs, and
// the counters must add up once everything is freed. Having served them, C keeps the next
// block of another heap it frees, as any heap holding no kept blocks does.
#include "check.h"

enum { BLOCKS = 2000, SIZE = 1500, TAKEN = BLOCKS / 2 };

#include "sleeping_owner.h"

#include "../../src/alloc/internal.h"  // C's kept blocks

static unsigned char *foreign;  // a block of the main thread's, freed by C at the end
static uint64_t foreign_kept;    // whether C kept it (kept_blocks counted 1)
static unsigned char *drained[BLOCKS];

static pthread_barrier_t taker_ready, frees_done;

static void *taker_thread(void *arg) {
  unsigned char **taken = arg;
  unsigned char *own = WS(malloc)(SIZE);  // a run of its own: kept.c keeps only for classes a heap has
  CHECK(own != NULL);
  pthread_barrier_wait(&taker_ready);
  pthread_barrier_wait(&frees_done);
  for (int i = 0; i < TAKEN; i++) {
    taken[i] = WS(malloc)(SIZE);
    if (taken[i]) memset(taken[i], (int)(i & 0xff), SIZE);
  }
  // C serves the rest of what it borrowed, then frees another heap's block of the class: it
  // holds none now, so that one is kept (kept.c's bound counts what was put in, borrowed blocks
  // included, against what was handed out).
  const ws_page *stand_in = &_ws_current_heap->kept[ws_span_of(foreign)->size_class];
  int count = 0;
  while (count < BLOCKS && stand_in->free != NULL) drained[count++] = WS(malloc)(SIZE);
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  WS(free)(foreign);
  ws_alloc_get_stats(&after);
  foreign_kept = after.kept_blocks - before.kept_blocks;
  for (int i = 0; i < count; i++) WS(free)(drained[i]);
  WS(free)(own);
  return NULL;
}

int main(void) {
  pthread_t owner, taker;
  foreign = WS(malloc)(SIZE);
  CHECK(foreign != NULL);
  start_owner(&owner);
  static unsigned char *taken[TAKEN];
  CHECK(pthread_barrier_init(&taker_ready, NULL, 2) == 0 && pthread_barrier_init(&frees_done, NULL, 2) == 0);
  CHECK(pthread_create(&taker, NULL, taker_thread, taken) == 0);
  pthread_barrier_wait(&taker_ready);
  for (int i = 0; i < BLOCKS; i++) {
    CHECK(owned[i] != NULL && owned[i][0] == 0xA5 && owned[i][SIZE - 1] == 0xA5);
    WS(free)(owned[i]);
  }
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  pthread_barrier_wait(&frees_done);
  CHECK(pthread_join(taker, NULL) == 0);
  ws_alloc_get_stats(&after);
  printf("reuse: %llu blocks reused, memory in runs %llu -> %llu bytes\n",
         (unsigned long long)(after.borrowed_blocks - before.borrowed_blocks),
         (unsigned long long)run_bytes(&before), (unsigned long long)run_bytes(&after));
  // Most of them came from A's pending frees (the search for them is bounded, so the first few
  // may still take a new run), and memory grew by far less than TAKEN blocks would need.
  CHECK(after.borrowed_blocks - before.borrowed_blocks >= TAKEN / 2);
  CHECK(run_bytes(&after) - run_bytes(&before) < (uint64_t)TAKEN * SIZE / 4);
  CHECK(foreign_kept == 1);

  for (int i = 0; i < TAKEN; i++) {
    CHECK(taken[i] != NULL && taken[i][0] == (i & 0xff) && taken[i][SIZE - 1] == (i & 0xff));
    WS(free)(taken[i]);
  }
  finish_owner(owner);

  // A has exited and its heap was tidied: every block is accounted free again. (What is left
  // in use is this thread's own and the runtime's, well under one block per reused block.)
  ws_alloc_get_stats(&after);
  CHECK(after.bytes_in_use - after.large_in_use < (uint64_t)TAKEN * SIZE / 10);
  return check_summary("reuse");
}
