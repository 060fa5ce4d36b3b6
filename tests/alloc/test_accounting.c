// Memory comes back and the figures say so: freed blocks are handed out again, whichever thread
// frees them, so a program that frees what it allocates keeps its memory, and a block freed
// while its owner idles serves another thread; malloc_trim gives the pool the runs a thread
// keeps as spares; mallinfo of an allocator that has handed out nothing is all zeros, and its
// figures stop at INT_MAX. Its own program, through the ws_* names (ASan+UBSan and TSan):
// nothing else may allocate from the allocator, or the figures would not start at zero.
#include "check.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "wasmscale/alloc.h"

enum { BLOCKS = 4000, BLOCK = 64, ROUNDS = 200 };

static ws_alloc_stats stats(void) {
  ws_alloc_stats s;
  ws_alloc_get_stats(&s);
  return s;
}

static void nothing_handed_out(void) {
  struct mallinfo info = WS(mallinfo)();
  CHECK(info.arena == 0 && info.uordblks == 0 && info.fordblks == 0 && info.hblkhd == 0 && info.keepcost == 0);
}

static void *free_all(void *blocks) {
  for (int i = 0; i < BLOCKS; i++) WS(free)(((void **)blocks)[i]);
  return NULL;
}

// Blocks another thread frees come back to their owner, those freed into runs the owner had
// put aside as full included (the first such free of a run goes through the owner's delayed
// list): round after round, the owner's memory does not grow.
static void remote_frees_into_full_runs(void) {
  static void *blocks[BLOCKS];
  uint64_t first_round = 0;
  for (int round = 0; round < ROUNDS; round++) {
    for (int i = 0; i < BLOCKS; i++) {
      blocks[i] = WS(malloc)(BLOCK);
      CHECK(blocks[i] != NULL);
    }
    pthread_t freer;
    CHECK(pthread_create(&freer, NULL, free_all, blocks) == 0);  // a thread that never allocates
    pthread_join(freer, NULL);
    if (round == 0) first_round = stats().bytes_reserved;
  }
  ws_alloc_stats after = stats();
  CHECK(after.runs_marked_full >= ROUNDS);  // the path this is about was taken
  CHECK(after.bytes_reserved == first_round);
}

// A block its owner frees is handed out again: a thread that keeps freeing what it allocates
// keeps its memory.
static void local_frees_reused(void) {
  enum { SIZES = 3 };
  for (int i = 0; i < SIZES; i++) WS(free)(WS(malloc)(BLOCK + i * 100));  // each class has its run
  void *last = WS(malloc)(BLOCK);
  WS(free)(last);
  uint64_t reserved = stats().bytes_reserved;
  for (int i = 0; i < 100 * BLOCKS; i++) {
    void *p = WS(malloc)(BLOCK + i % SIZES * 100);
    CHECK(p != NULL);
    WS(free)(p);
  }
  CHECK(stats().bytes_reserved == reserved);
  void *again = WS(malloc)(BLOCK);
  CHECK(again == last);  // its class's most recently freed block
  WS(free)(again);
}

// A block another thread freed while its owner idles is reused by a third thread that needs a
// block of its class, before new memory is taken (steal.c): here the one block pending anywhere.
static void *free_one(void *block) {
  WS(free)(block);
  return NULL;
}

static void *allocate_one(void *result) {
  *(void **)result = WS(malloc)(BLOCK);
  return NULL;
}

static void pending_free_borrowed(void) {
  void *mine = WS(malloc)(BLOCK), *theirs = NULL;
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, free_one, mine) == 0);  // a thread that never allocates
  pthread_join(thread, NULL);
  CHECK(pthread_create(&thread, NULL, allocate_one, &theirs) == 0);
  pthread_join(thread, NULL);
  CHECK(theirs == mine);
  CHECK(stats().borrowed_blocks == 1);
  WS(free)(theirs);
}

// Runs a thread emptied wait as its spares (free.c); malloc_trim gives them to the pool.
static void trim_returns_spares(void) {
  static void *blocks[BLOCKS];
  for (int i = 0; i < BLOCKS; i++) blocks[i] = WS(malloc)(256);
  for (int i = BLOCKS - 1; i >= 0; i--) WS(free)(blocks[i]);
  ws_alloc_stats before = stats();
  WS(malloc_trim)(0);
  ws_alloc_stats after = stats();
  uint64_t held_before = before.bytes_reserved - before.bytes_pool_free;
  uint64_t held_after = after.bytes_reserved - after.bytes_pool_free;
  CHECK(held_after < held_before);
  WS(malloc_trim)(0);  // nothing more to give
  CHECK(stats().bytes_reserved - stats().bytes_pool_free == held_after);
}

static void mallinfo_clamps(void) {
  size_t size = (size_t)5 << 29;  // 2.5 GiB: reserved, never touched
  void *huge = WS(malloc)(size);
  CHECK(huge != NULL);
  struct mallinfo info = WS(mallinfo)();
  CHECK(info.arena == INT_MAX && info.hblkhd == INT_MAX && info.uordblks == INT_MAX);
  WS(free)(huge);
}

int main(void) {
  nothing_handed_out();
  pending_free_borrowed();
  local_frees_reused();
  remote_frees_into_full_runs();
  trim_returns_spares();
  mallinfo_clamps();
  return check_summary("accounting");
}
