// Blocks freed by other threads are reused while their owner sleeps: thread A allocates and
// then waits; the main thread frees all of A's blocks (they wait, uncollected, on A's runs);
// thread C then allocates blocks of the same size. C must take those blocks instead of new
// memory, their contents must stay intact through the hand-overs, and the counters must add
// up once everything is freed.
#include "check.h"

enum { BLOCKS = 2000, SIZE = 1500, TAKEN = BLOCKS / 2 };

#include "sleeping_owner.h"

static void *taker_thread(void *arg) {
  unsigned char **taken = arg;
  for (int i = 0; i < TAKEN; i++) {
    taken[i] = WS(malloc)(SIZE);
    if (taken[i]) memset(taken[i], (int)(i & 0xff), SIZE);
  }
  return NULL;
}

int main(void) {
  pthread_t owner, taker;
  start_owner(&owner);
  for (int i = 0; i < BLOCKS; i++) {
    CHECK(owned[i] != NULL && owned[i][0] == 0xA5 && owned[i][SIZE - 1] == 0xA5);
    WS(free)(owned[i]);
  }
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);

  static unsigned char *taken[TAKEN];
  CHECK(pthread_create(&taker, NULL, taker_thread, taken) == 0);
  CHECK(pthread_join(taker, NULL) == 0);
  ws_alloc_get_stats(&after);
  printf("reuse: %llu blocks reused, memory in runs %llu -> %llu bytes\n",
         (unsigned long long)(after.borrowed_blocks - before.borrowed_blocks),
         (unsigned long long)run_bytes(&before), (unsigned long long)run_bytes(&after));
  // Most of them came from A's pending frees (the search for them is bounded, so the first few
  // may still take a new run), and memory grew by far less than TAKEN blocks would need.
  CHECK(after.borrowed_blocks - before.borrowed_blocks >= TAKEN / 2);
  CHECK(run_bytes(&after) - run_bytes(&before) < (uint64_t)TAKEN * SIZE / 4);

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
