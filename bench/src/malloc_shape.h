// The malloc workload's shape (bench/src/malloc.c), shared with bench/micro/class_floor.c, which
// counts what the workload's blocks need without any allocator: each thread keeps RING_SLOTS
// blocks alive, makes DEFAULT_TOTAL_STEPS / threads allocations at scale 1, and draws its sizes
// from its own random sequence.
#ifndef WASMSCALE_BENCH_MALLOC_SHAPE_H
#define WASMSCALE_BENCH_MALLOC_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

enum { RING_SLOTS = 1024 };
#define DEFAULT_TOTAL_STEPS 3e6

// A variant's request sizes, [*min_size, *min_size + *size_span); false for an unknown variant.
static inline bool malloc_variant_sizes(const char *variant, size_t *min_size, size_t *size_span) {
  if (strcmp(variant, "small") == 0) {
    *min_size = 16;
    *size_span = 512;
    return true;
  }
  if (strcmp(variant, "standard") == 0 || strcmp(variant, "cross") == 0) {
    *min_size = 1000;
    *size_span = 1024;
    return true;
  }
  return false;
}

// Where thread `index`'s random sequence starts; each draw is bench_mix64(state++).
static inline uint64_t malloc_thread_seed(int index) { return bench_mix64((uint64_t)index + 1) << 20; }

// The size of the block a draw makes (its upper half also makes the block's tag, malloc.c).
static inline size_t malloc_block_size(uint64_t draw, size_t min_size, size_t size_span) {
  return min_size + (size_t)(draw % size_span);
}

#endif
