// The memory the malloc workload's blocks need (bench/src/malloc.c: a ring of RING_SLOTS live
// blocks per thread, the oldest freed as each new one is made) in an allocator that keeps each
// size class's memory for that class, as the wasmscale allocator does while a class's serving
// run never empties: the sum over classes of each class's highest live bytes. Printed beside
// the highest live bytes of all classes together, which is what an allocator that moves memory
// between classes (dlmalloc's best fit with coalescing) needs at least. The blocks are rounded
// to the allocator's own classes (src/alloc/internal.h); no run, page or metadata is counted.
//
// usage: cc -O2 -Isrc/alloc -Iinclude bench/micro/class_floor.c -o build/class-floor
//        build/class-floor small|standard [THREADS] [SCALE]
// Each thread's blocks are counted apart (every thread has its heap); the totals add them. The
// cross variant passes blocks between threads, which this count does not follow.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/malloc_shape.h"
#include "internal.h"

typedef struct floor_counts {
  uint64_t class_peaks;    // sum over classes of the class's highest live bytes
  uint64_t live_peak;      // highest live bytes, all classes together (rounded to classes)
  uint64_t requested_peak; // the same in bytes requested
  unsigned classes;        // classes that held a block
} floor_counts;

static floor_counts count_thread(int index, uint64_t steps, size_t min_size, size_t size_span) {
  static size_t ring[RING_SLOTS];
  uint64_t live[WS_CLASSES] = {0}, class_peak[WS_CLASSES] = {0};
  uint64_t live_bytes = 0, requested = 0;
  floor_counts counts = {0};
  memset(ring, 0, sizeof ring);
  uint64_t rng = malloc_thread_seed(index);
  for (uint64_t step = 0; step < steps; step++) {
    size_t size = malloc_block_size(bench_mix64(rng++), min_size, size_span);
    size_t *slot = &ring[step % RING_SLOTS];
    if (*slot != 0) {
      unsigned old = ws_size_class(*slot);
      live[old] -= ws_class_size(old);
      live_bytes -= ws_class_size(old);
      requested -= *slot;
    }
    unsigned size_class = ws_size_class(size);
    *slot = size;
    live[size_class] += ws_class_size(size_class);
    live_bytes += ws_class_size(size_class);
    requested += size;
    if (live[size_class] > class_peak[size_class]) class_peak[size_class] = live[size_class];
    if (live_bytes > counts.live_peak) counts.live_peak = live_bytes;
    if (requested > counts.requested_peak) counts.requested_peak = requested;
  }
  for (unsigned c = 0; c < WS_CLASSES; c++) {
    counts.class_peaks += class_peak[c];
    counts.classes += class_peak[c] != 0;
  }
  return counts;
}

int main(int argc, char **argv) {
  size_t min_size, size_span;
  if (argc < 2 || strcmp(argv[1], "cross") == 0 || !malloc_variant_sizes(argv[1], &min_size, &size_span)) {
    fprintf(stderr, "usage: %s small|standard [THREADS] [SCALE]\n", argv[0]);
    return 2;
  }
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  double scale = argc > 3 ? atof(argv[3]) : 1.0;
  if (threads < 1 || scale <= 0) {
    fprintf(stderr, "%s: THREADS must be at least 1 and SCALE above 0\n", argv[0]);
    return 2;
  }
  uint64_t total_steps = (uint64_t)(DEFAULT_TOTAL_STEPS * scale);
  floor_counts sum = {0};
  for (int t = 0; t < threads; t++) {
    uint64_t begin, end;
    bench_split(total_steps, threads, t, &begin, &end);
    floor_counts one = count_thread(t, end - begin, min_size, size_span);
    sum.class_peaks += one.class_peaks;
    sum.live_peak += one.live_peak;
    sum.requested_peak += one.requested_peak;
    if (one.classes > sum.classes) sum.classes = one.classes;
  }
  printf("%s, %d thread(s), %llu steps: %u classes\n", argv[1], threads, (unsigned long long)total_steps, sum.classes);
  printf("  highest live bytes, requested:           %10llu\n", (unsigned long long)sum.requested_peak);
  printf("  highest live bytes, rounded to classes:  %10llu\n", (unsigned long long)sum.live_peak);
  printf("  sum of each class's highest live bytes:  %10llu (%.2fx the line above)\n",
         (unsigned long long)sum.class_peaks, (double)sum.class_peaks / (double)sum.live_peak);
  return 0;
}
