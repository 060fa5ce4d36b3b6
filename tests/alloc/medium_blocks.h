// Blocks of 1000-2023 bytes, the benchmark's standard and cross-thread sizes, whose classes have
// two-page runs of 16-32 blocks: shared by the tests that cycle through many of them.
#ifndef WASMSCALE_TEST_MEDIUM_BLOCKS_H
#define WASMSCALE_TEST_MEDIUM_BLOCKS_H

#include <stdint.h>

#include "check.h"

// Advances the generator *state (an LCG) and returns its new value.
static inline uint64_t next_random(uint64_t *state) {
  *state = *state * 6364136223846793005u + 1442695040888963407u;
  return *state;
}

// A block of a size drawn from `random`, its first and last byte set to `mark`; NULL (and a
// failed check) when the allocator has none.
static inline unsigned char *new_medium_block(uint64_t random, unsigned char mark) {
  size_t size = 1000 + (size_t)(random >> 33) % 1024;
  unsigned char *block = WS(malloc)(size);
  CHECK(block != NULL);
  if (block != NULL) block[0] = block[size - 1] = mark;
  return block;
}

#endif
