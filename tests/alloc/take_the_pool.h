// For the tests that need the next fresh run to find no free memory in the pool
// (test_larger_class.c, test_spares.c): large blocks for every free span of the pool that could
// hold a run of two pages. Include check.h first.
#ifndef WASMSCALE_TEST_TAKE_THE_POOL_H
#define WASMSCALE_TEST_TAKE_THE_POOL_H

#include <stddef.h>

#include "wasmscale/alloc.h"

enum { POOL_PAGE = 16 << 10, POOL_MEDIUM_MAX = 32 << 10, POOL_MAX_LARGE = 4096 };

// Fills `large` (room for POOL_MAX_LARGE) and returns how many blocks it took.
static int take_the_pool(void **large) {
  int count = 0;
  for (;;) {
    ws_alloc_stats stats;
    ws_alloc_get_stats(&stats);
    if (stats.pool_largest_free < 2 * POOL_PAGE || count == POOL_MAX_LARGE) return count;
    size_t size = stats.pool_largest_free > POOL_MEDIUM_MAX ? stats.pool_largest_free : POOL_MEDIUM_MAX + 1;
    large[count] = WS(malloc)(size);
    CHECK(large[count] != NULL);
    if (large[count] == NULL) return count;
    count++;
  }
}

static void give_the_pool_back(void **large, int taken) {
  for (int i = 0; i < taken; i++) WS(free)(large[i]);
}

#endif
