// Threads that come and go free and allocate large blocks (in Wasm, their stacks), and if the
// next thread's runs were cut from the hole the last one left, the next large block would no
// longer fit and memory would grow by all of it. Three defences, one test each:
//
// Runs are cut beside a hole, and memory grows for them rather than cut into it, up to 1 MiB per
// large block allocated (span.c, WS_HOLE_SPARING_PAGES): the main thread makes a hole between two
// large blocks, then allocates blocks needing half that much in runs; a large block the size of
// the hole must get the hole back. Beyond that much, runs take the hole: with the hole freed
// again, blocks needing about three times that much in runs must land in it too.
//
// Runs that need a large free span are cut from the one at the top of memory (span.c): the
// main thread makes a hole between two large blocks and a larger free span at the top, then
// allocates blocks needing more runs than any small free span holds; a large block the size of
// the hole must then get the hole back.
//
// A large free span stays whole while exited threads' heaps still hold memory to reclaim
// (slow_path.c, free_span_source): the main thread allocates a large block; a thread allocates
// BLOCKS blocks, hands them over and exits; the main thread frees the large block, then the
// thread's blocks (they wait on the exited heap's runs), then allocates as many blocks again
// and a large block of the first size. The runs for those blocks must come from the exited
// heap's, so the large block fits in its old place: the memory reserved must not grow.
#include "check.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "wasmscale/alloc.h"

enum { LARGE = 3 << 19 /* 1.5 MiB: well over the pool's largest bin (1 MiB) */, BLOCKS = 600, SIZE = 1500 };
enum { TOP = 5 << 20, MANY = 2000 /* about 190 pages of runs */ };

enum { HOLE = (2 << 20) + (1 << 14) /* no other large block here has this size */, SPARED = 1 << 20 };

static unsigned char *blocks[MANY];

static bool in_hole(const unsigned char *p, const unsigned char *hole) { return p >= hole && p < hole + HOLE; }

static void runs_spare_a_hole_then_take_it(void) {
  unsigned char *hole = WS(malloc)(HOLE), *after = WS(malloc)(HOLE);
  CHECK(hole != NULL && after != NULL);
  WS(free)(hole);
  enum { FEW = SPARED / 2 / SIZE };
  for (int i = 0; i < FEW; i++) CHECK((blocks[i] = WS(malloc)(SIZE)) != NULL && !in_hole(blocks[i], hole));
  unsigned char *again = WS(malloc)(HOLE);
  printf("large hole: a hole at %p, the next large block at %p\n", (void *)hole, (void *)again);
  CHECK(again == hole);
  for (int i = 0; i < FEW; i++) WS(free)(blocks[i]);
  WS(free)(again);
  enum { LOTS = MANY };  // about 3 MiB of runs
  int inside = 0;
  for (int i = 0; i < LOTS; i++) {
    CHECK((blocks[i] = WS(malloc)(SIZE)) != NULL);
    inside += in_hole(blocks[i], hole);
  }
  printf("large hole: %d of %d blocks in the hole once it is no longer spared\n", inside, (int)LOTS);
  CHECK(inside > 0);
  for (int i = 0; i < LOTS; i++) WS(free)(blocks[i]);
  WS(free)(after);
}

static void runs_leave_a_large_hole_whole(void) {
  unsigned char *hole = WS(malloc)(LARGE), *after = WS(malloc)(LARGE), *top = WS(malloc)(TOP);
  CHECK(hole != NULL && after != NULL && top != NULL);
  WS(free)(top);   // the pool's top: at least TOP free
  WS(free)(hole);  // a hole of LARGE between used memory
  for (int i = 0; i < MANY; i++) CHECK((blocks[i] = WS(malloc)(SIZE)) != NULL);
  unsigned char *again = WS(malloc)(LARGE);
  printf("large hole: a hole at %p, the next large block at %p\n", (void *)hole, (void *)again);
  CHECK(again == hole);
  WS(free)(again);
  WS(free)(after);
  for (int i = 0; i < MANY; i++) WS(free)(blocks[i]);
}

static void *allocating_thread(void *arg) {
  (void)arg;
  for (int i = 0; i < BLOCKS; i++) {
    blocks[i] = WS(malloc)(SIZE);
    if (blocks[i] != NULL) memset(blocks[i], 0xA5, SIZE);
  }
  return NULL;
}

int main(void) {
  printf("large hole: starting\n");  // stdout's buffer before the large block
  runs_spare_a_hole_then_take_it();
  runs_leave_a_large_hole_whole();
  unsigned char *large = WS(malloc)(LARGE);
  CHECK(large != NULL);
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, allocating_thread, NULL) == 0);
  CHECK(pthread_join(thread, NULL) == 0);
  WS(free)(large);
  for (int i = 0; i < BLOCKS; i++) {
    CHECK(blocks[i] != NULL && blocks[i][0] == 0xA5 && blocks[i][SIZE - 1] == 0xA5);
    WS(free)(blocks[i]);
  }

  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  for (int i = 0; i < BLOCKS; i++) {
    blocks[i] = WS(malloc)(SIZE);
    CHECK(blocks[i] != NULL);
  }
  large = WS(malloc)(LARGE);
  CHECK(large != NULL);
  ws_alloc_get_stats(&after);
  printf("large hole: reserved %llu -> %llu bytes\n", (unsigned long long)before.bytes_reserved,
         (unsigned long long)after.bytes_reserved);
  CHECK(after.bytes_reserved == before.bytes_reserved);

  WS(free)(large);
  for (int i = 0; i < BLOCKS; i++) WS(free)(blocks[i]);
  return check_summary("large hole");
}
