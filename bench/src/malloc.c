// malloc: a fixed total number of allocations split evenly over N threads; each thread keeps
// RING_SLOTS blocks alive in a ring, freeing the oldest and allocating a new one each step
// (the shape of Emscripten's own malloc-multithreading benchmark).
//
// Variants:
//   standard  sizes 1000-2023 bytes, each thread frees its own blocks;
//   small     sizes 16-527 bytes, each thread frees its own blocks;
//   cross     sizes 1000-2023 bytes, blocks pass through a shared array by atomic exchange,
//             so most frees happen on a thread other than the one that allocated.
//
// Every block carries a header and a trailer derived from a per-allocation tag; whoever
// frees a block verifies both first, so a corrupting allocator fails the run loudly.
#include "harness.h"
#include "malloc_shape.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK_STEPS = 4096 };

// 8 bytes at the start of each block; the smallest block (16 bytes) still has room for the
// trailer byte after it.
typedef struct block_header {
  uint32_t size;
  uint32_t tag;  // never zero
} block_header;

static unsigned char trailer_of(block_header header) {
  return (unsigned char)(header.tag ^ (header.tag >> 8) ^ header.size);
}

typedef struct malloc_run {
  const bench_args *args;
  size_t min_size, size_span;
  int cross;
  uint64_t total_steps;
  _Atomic(void *) *shared;      // cross variant: RING_SLOTS * threads exchange slots
  _Atomic uint64_t written;     // sum of tags of every block allocated
  _Atomic uint64_t verified;    // sum of tags of every block verified and freed
  _Atomic uint64_t allocations;
} malloc_run;

typedef struct thread_state {
  malloc_run *run;
  void *ring[RING_SLOTS];
  uint64_t written, verified, allocations, rng;
} thread_state;

static void *new_block(thread_state *state) {
  malloc_run *run = state->run;
  uint64_t random = bench_mix64(state->rng++);
  size_t size = malloc_block_size(random, run->min_size, run->size_span);
  unsigned char *block = malloc(size);
  if (block == NULL) bench_fail("malloc(%zu) returned NULL", size);
  block_header header = {(uint32_t)size, (uint32_t)(random >> 32) | 1};
  memcpy(block, &header, sizeof header);
  block[size - 1] = trailer_of(header);
  state->written += header.tag;
  state->allocations++;
  return block;
}

static void free_block(thread_state *state, void *ptr) {
  if (ptr == NULL) return;
  malloc_run *run = state->run;
  unsigned char *bytes = ptr;
  block_header header;
  memcpy(&header, bytes, sizeof header);
  if (header.size < run->min_size || header.size >= run->min_size + run->size_span ||
      header.tag == 0 || bytes[header.size - 1] != trailer_of(header)) {
    bench_fail("malloc: block %p was corrupted while live (size field %u)", ptr, header.size);
  }
  state->verified += header.tag;
  free(ptr);
}

// One chunk of ring steps. Out of line and called through a volatile pointer so V8 tiers
// it up (see math.c).
static void ring_steps(thread_state *state, uint64_t begin, uint64_t end) {
  malloc_run *run = state->run;
  size_t shared_slots = (size_t)RING_SLOTS * (size_t)run->args->threads;
  for (uint64_t step = begin; step < end; step++) {
    void *fresh = new_block(state);
    if (run->cross) {
      size_t slot = (size_t)(bench_mix64(state->rng ^ 0xc0ffee) % shared_slots);
      free_block(state, atomic_exchange(&run->shared[slot], fresh));
    } else {
      void **slot = &state->ring[step % RING_SLOTS];
      free_block(state, *slot);
      *slot = fresh;
    }
  }
}

static void (*volatile steps_fn)(thread_state *, uint64_t, uint64_t) = ring_steps;

static void malloc_thread(int index, void *context) {
  malloc_run *run = context;
  thread_state *state = calloc(1, sizeof *state);
  if (state == NULL) bench_fail("malloc: no memory for thread state");
  state->run = run;
  state->rng = malloc_thread_seed(index);
  uint64_t begin, end;
  bench_split(run->total_steps, run->args->threads, index, &begin, &end);
  for (uint64_t at = begin; at < end; at += CHUNK_STEPS) {
    steps_fn(state, at, end - at < CHUNK_STEPS ? end : at + CHUNK_STEPS);
  }
  bench_sample_heap();  // the ring is full here: the most this thread holds
  for (int i = 0; i < RING_SLOTS; i++) free_block(state, state->ring[i]);
  atomic_fetch_add(&run->written, state->written);
  atomic_fetch_add(&run->verified, state->verified);
  atomic_fetch_add(&run->allocations, state->allocations);
  free(state);
}

static uint64_t malloc_rep(const bench_args *args, void *context) {
  malloc_run *run = context;
  atomic_store(&run->written, 0);
  atomic_store(&run->verified, 0);
  atomic_store(&run->allocations, 0);
  bench_run_threads(args->threads, malloc_thread, run);
  if (run->cross) {
    // Blocks still parked in the shared array are freed (and verified) here.
    thread_state *state = calloc(1, sizeof *state);
    if (state == NULL) bench_fail("malloc: no memory for thread state");
    state->run = run;
    for (size_t i = 0; i < (size_t)RING_SLOTS * (size_t)args->threads; i++) {
      free_block(state, atomic_exchange(&run->shared[i], NULL));
    }
    atomic_fetch_add(&run->verified, state->verified);
    free(state);
  }
  return atomic_load(&run->written);
}

static void malloc_verify(const bench_args *args, uint64_t checksum, void *context) {
  malloc_run *run = context;
  (void)args;
  uint64_t allocations = atomic_load(&run->allocations);
  if (allocations != run->total_steps) {
    bench_fail("malloc: %llu allocations made, %llu expected", (unsigned long long)allocations,
               (unsigned long long)run->total_steps);
  }
  if (atomic_load(&run->verified) != checksum) {
    bench_fail("malloc: blocks freed do not match blocks allocated (tag sums %016llx vs %016llx)",
               (unsigned long long)atomic_load(&run->verified), (unsigned long long)checksum);
  }
}

int main(int argc, char **argv) {
  bench_args args = bench_parse_args(argc, argv, "standard");
  malloc_run run = {.args = &args};
  if (!malloc_variant_sizes(args.variant, &run.min_size, &run.size_span)) {
    bench_fail("malloc: unknown variant '%s' (standard, small, cross)", args.variant);
  }
  if (strcmp(args.variant, "cross") == 0) {
    run.cross = 1;
    run.shared = calloc((size_t)RING_SLOTS * (size_t)args.threads, sizeof *run.shared);
    if (run.shared == NULL) bench_fail("malloc: no memory for the shared array");
  }
  run.total_steps = (uint64_t)(DEFAULT_TOTAL_STEPS * args.scale);
  bench_set_ops(run.total_steps);
  bench_main_loop(&args, malloc_rep, malloc_verify, &run);
  free(run.shared);
  return 0;
}
