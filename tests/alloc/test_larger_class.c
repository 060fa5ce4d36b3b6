// When the only way to serve a block is more memory, a heap serves it from a free block of a
// slightly larger class it already has. The thread frees every third one of its 1100-byte
// blocks (class 1152), takes every free span of the pool with large blocks, and then asks for
// 1000-byte blocks (class 1024, of which it has no run): they must come from the 1152-byte
// class's free blocks, with no new memory, and be counted as such. Requests aligned to 256
// bytes, which half the 1152-byte blocks miss, must still get an aligned block (from new memory).
#include <string.h>

#include "check.h"
#include "take_the_pool.h"
#include "wasmscale/alloc.h"

enum { DONORS = 256, ASKED = 60, ALIGNED = 8, DONOR_SIZE = 1100, DONOR_CLASS = 1152, SIZE = 1000 };

int main(void) {
  static void *donors[DONORS], *asked[ASKED], *large[POOL_MAX_LARGE];
  for (int i = 0; i < DONORS; i++) {
    donors[i] = WS(malloc)(DONOR_SIZE);
    CHECK(donors[i] != NULL && WS(malloc_usable_size)(donors[i]) == DONOR_CLASS);
  }
  for (int i = 0; i < DONORS; i += 3) WS(free)(donors[i]);
  int taken = take_the_pool(large);

  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  int larger = 0;
  for (int i = 0; i < ASKED; i++) {
    asked[i] = WS(malloc)(SIZE);
    CHECK(asked[i] != NULL);
    if (asked[i] == NULL) continue;
    larger += WS(malloc_usable_size)(asked[i]) == DONOR_CLASS;
    memset(asked[i], 0x5a, SIZE);
  }
  ws_alloc_get_stats(&after);

  static void *aligned[ALIGNED];  // still before any new memory
  for (int i = 0; i < ALIGNED; i++) {
    aligned[i] = WS(memalign)(256, SIZE);
    CHECK(aligned[i] != NULL && is_aligned(aligned[i], 256));
  }
  for (int i = 0; i < ALIGNED; i++) WS(free)(aligned[i]);
  // Only now: stdout's buffer may take new memory, which would spare the aligned requests.
  printf("larger class: %d of %d blocks from the larger class; memory %llu -> %llu bytes\n", larger, ASKED,
         (unsigned long long)before.bytes_reserved, (unsigned long long)after.bytes_reserved);
  CHECK(larger == ASKED);
  CHECK(after.larger_class_blocks - before.larger_class_blocks == ASKED);
  CHECK(after.bytes_reserved == before.bytes_reserved);

  for (int i = 0; i < ASKED; i++) WS(free)(asked[i]);
  for (int i = 0; i < DONORS; i++) {
    if (i % 3 != 0) WS(free)(donors[i]);
  }
  give_the_pool_back(large, taken);
  return check_summary("larger class");
}
