// A thread that frees another thread's blocks keeps a bounded number of them and hands them
// out again itself: thread A allocates blocks and waits; thread B frees all of them, then
// allocates as many of the same size. B must keep exactly the bound (16 KiB of a class), its
// first allocations must be those blocks (the last kept first), and contents must survive the
// hand-over. Thread C then frees B's blocks and exits while still keeping some of A's: it must
// give them back, so that once A exits every run the test used returns to the pool. Then a
// thread that frees blocks of a class it never allocates itself keeps none of them, and one that
// frees many small blocks keeps no more than WS_KEEP_MAX_BLOCKS.
#include "check.h"

enum { BLOCKS = 200, SIZE = 1500, CLASS_SIZE = 1536, KEEP_BYTES = 16 << 10 };
enum { BOUND = KEEP_BYTES / CLASS_SIZE };

#include "sleeping_owner.h"

static int is_owned(const void *p) {
  for (int i = 0; i < BLOCKS; i++) {
    if (owned[i] == p) return 1;
  }
  return 0;
}

static void *freeing_thread(void *arg) {
  unsigned char **mine = arg;
  ws_alloc_stats before, after;
  void *held = WS(malloc)(SIZE);  // a heap keeps blocks only of a class it has a run of
  ws_alloc_get_stats(&before);
  for (int i = 0; i < BLOCKS; i++) {
    CHECK(owned[i] != NULL && owned[i][0] == 0xA5 && owned[i][SIZE - 1] == 0xA5);
    WS(free)(owned[i]);
  }
  ws_alloc_get_stats(&after);
  uint64_t kept = after.kept_blocks - before.kept_blocks;
  printf("kept: %llu of %d blocks freed kept (bound %d)\n", (unsigned long long)kept, BLOCKS, BOUND);
  CHECK(after.cross_thread_frees - before.cross_thread_frees == BLOCKS);
  CHECK(kept == BOUND);
  // A kept block is free: out of the bytes in use at once (the rest when A takes them in).
  CHECK(before.bytes_in_use - after.bytes_in_use == kept * CLASS_SIZE);

  // The kept blocks come back first, the last freed first; then the thread's own.
  int reused = 0;
  for (int i = 0; i < BLOCKS; i++) {
    mine[i] = WS(malloc)(SIZE);
    CHECK(mine[i] != NULL);
    if (mine[i] == NULL) continue;
    if (i < BOUND) CHECK(mine[i] == owned[BOUND - 1 - i]);
    reused += is_owned(mine[i]);
    memset(mine[i], i & 0xff, SIZE);
  }
  CHECK(reused >= BOUND);  // more may come from A's pending frees (steal.c)
  for (int i = 0; i < BLOCKS; i++) {
    CHECK(mine[i] == NULL || (mine[i][0] == (i & 0xff) && mine[i][SIZE - 1] == (i & 0xff)));
  }
  WS(free)(held);
  return NULL;
}

// Frees what B allocated (B has exited): A's blocks among them are kept, and must be given
// back when this thread exits.
static void *second_freer(void *arg) {
  unsigned char **mine = arg;
  ws_alloc_stats before, after;
  void *held = WS(malloc)(SIZE);  // as in freeing_thread
  ws_alloc_get_stats(&before);
  for (int i = 0; i < BLOCKS; i++) WS(free)(mine[i]);
  ws_alloc_get_stats(&after);
  CHECK(after.kept_blocks - before.kept_blocks > 0);
  WS(free)(held);
  return NULL;
}

// Frees blocks the main thread allocated, with a heap that has never had a run of their class:
// kept, they would sit here out of everyone's reach, so all go back to their owner.
static void *consuming_thread(void *arg) {
  unsigned char **blocks = arg;
  ws_alloc_stats before, after;
  WS(free)(WS(malloc)(16));
  ws_alloc_get_stats(&before);
  for (int i = 0; i < BLOCKS; i++) WS(free)(blocks[i]);
  ws_alloc_get_stats(&after);
  printf("kept: a thread that never allocates the class kept %llu of %d\n",
         (unsigned long long)(after.kept_blocks - before.kept_blocks), BLOCKS);
  CHECK(after.cross_thread_frees - before.cross_thread_frees == BLOCKS);
  CHECK(after.kept_blocks == before.kept_blocks);
  return NULL;
}

// Small blocks: the bound in bytes would be 512 of 32 bytes; at most WS_KEEP_MAX_BLOCKS (64) are
// kept, so that a class of many small blocks does not hold a long list out of its owner's reach.
enum { SMALL_SIZE = 32, SMALL_BOUND = 64 };

static void *small_freeing_thread(void *arg) {
  unsigned char **blocks = arg;
  ws_alloc_stats before, after;
  void *held = WS(malloc)(SMALL_SIZE);  // a run of the class
  ws_alloc_get_stats(&before);
  for (int i = 0; i < BLOCKS; i++) WS(free)(blocks[i]);
  ws_alloc_get_stats(&after);
  printf("kept: %llu of %d small blocks freed kept (bound %d)\n",
         (unsigned long long)(after.kept_blocks - before.kept_blocks), BLOCKS, SMALL_BOUND);
  CHECK(after.kept_blocks - before.kept_blocks == SMALL_BOUND);
  WS(free)(held);
  return NULL;
}

static uint64_t run_bytes_now(void) {
  ws_alloc_stats stats;
  ws_alloc_get_stats(&stats);
  return run_bytes(&stats);
}

static pthread_barrier_t both_passing;

static void *passing_thread(void *arg) {
  (void)arg;
  WS(free)(WS(malloc)(16));
  pthread_barrier_wait(&both_passing);  // two heaps at once, adopted later by A and B
  return NULL;
}

int main(void) {
  pthread_t owner, freer, second, passing[2];
  static unsigned char *mine[BLOCKS];
  // Before the baseline: stdout's buffer, and two threads that come and go together, so the
  // heap structs the test needs (never given back: see heap.c) are counted in it.
  printf("kept: starting\n");
  CHECK(pthread_barrier_init(&both_passing, NULL, 2) == 0);
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&passing[i], NULL, passing_thread, NULL) == 0);
  for (int i = 0; i < 2; i++) CHECK(pthread_join(passing[i], NULL) == 0);
  uint64_t start = run_bytes_now();
  start_owner(&owner);
  CHECK(pthread_create(&freer, NULL, freeing_thread, mine) == 0);
  CHECK(pthread_join(freer, NULL) == 0);
  CHECK(pthread_create(&second, NULL, second_freer, mine) == 0);
  CHECK(pthread_join(second, NULL) == 0);
  finish_owner(owner);

  // Every thread has exited: their heaps gave back what they kept and returned their emptied
  // runs. Kept blocks not given back would hold A's runs (32 KiB each).
  uint64_t end = run_bytes_now();
  printf("kept: memory in runs %llu -> %llu bytes\n", (unsigned long long)start, (unsigned long long)end);
  CHECK(end <= start + (16 << 10));

  pthread_t consumer;
  static unsigned char *produced[BLOCKS];
  for (int i = 0; i < BLOCKS; i++) CHECK((produced[i] = WS(malloc)(SIZE)) != NULL);
  CHECK(pthread_create(&consumer, NULL, consuming_thread, produced) == 0);
  CHECK(pthread_join(consumer, NULL) == 0);

  pthread_t small_freer;
  for (int i = 0; i < BLOCKS; i++) CHECK((produced[i] = WS(malloc)(SMALL_SIZE)) != NULL);
  CHECK(pthread_create(&small_freer, NULL, small_freeing_thread, produced) == 0);
  CHECK(pthread_join(small_freer, NULL) == 0);
  return check_summary("kept");
}
