// math: a fixed total amount of pure arithmetic split evenly over N threads.
// It touches no memory beyond the stack, so it shows how well the host runs threads in
// parallel at all: the ceiling the malloc and fs workloads are measured against.
#include "harness.h"

#include <stdatomic.h>
#include <string.h>

enum { CHUNK_ITERATIONS = 20000 };
#define DEFAULT_TOTAL_ITERATIONS 12e6

typedef struct math_run {
  uint64_t total;
  int threads;
  _Atomic uint64_t checksum;  // wrapping sum of every thread's partial result
} math_run;

// Each iteration depends only on its index (integer mixing, then Newton steps toward a
// square root), so the total does not depend on how the range is split.
static uint64_t math_chunk(uint64_t begin, uint64_t end) {
  uint64_t acc = 0;
  for (uint64_t i = begin; i < end; i++) {
    uint64_t h = bench_mix64(i);
    double x = (double)(h >> 40) + 1.0;
    double root = x * 0.5 + 0.5;
    for (int step = 0; step < 6; step++) root = 0.5 * (root + x / root);
    acc += h ^ (uint64_t)(root * 65536.0);
  }
  return acc;
}

// Called through a volatile pointer so it stays an out-of-line function that V8 re-enters
// (and so tiers up) once per chunk; one long-running call would stay in the baseline tier.
static uint64_t (*volatile chunk_fn)(uint64_t, uint64_t) = math_chunk;

static uint64_t sum_range(uint64_t begin, uint64_t end) {
  uint64_t acc = 0;
  for (uint64_t at = begin; at < end; at += CHUNK_ITERATIONS) {
    uint64_t stop = end - at < CHUNK_ITERATIONS ? end : at + CHUNK_ITERATIONS;
    acc += chunk_fn(at, stop);
  }
  return acc;
}

static void math_thread(int index, void *context) {
  math_run *run = context;
  uint64_t begin, end;
  bench_split(run->total, run->threads, index, &begin, &end);
  atomic_fetch_add(&run->checksum, sum_range(begin, end));
}

static uint64_t math_rep(const bench_args *args, void *context) {
  math_run *run = context;
  atomic_store(&run->checksum, 0);
  bench_run_threads(args->threads, math_thread, run);
  return atomic_load(&run->checksum);
}

// Recomputes the whole range on this thread alone: the threads must have covered it exactly.
static void math_verify(const bench_args *args, uint64_t checksum, void *context) {
  static uint64_t expected;
  static int known;
  math_run *run = context;
  (void)args;
  if (!known) {
    expected = sum_range(0, run->total);
    known = 1;
  }
  if (checksum != expected) {
    bench_fail("math: threads computed %016llx, one thread computes %016llx",
               (unsigned long long)checksum, (unsigned long long)expected);
  }
}

int main(int argc, char **argv) {
  bench_args args = bench_parse_args(argc, argv, "standard");
  if (strcmp(args.variant, "standard") != 0) bench_fail("math: unknown variant '%s'", args.variant);
  math_run run = {.total = (uint64_t)(DEFAULT_TOTAL_ITERATIONS * args.scale), .threads = args.threads};
  bench_set_ops(run.total);
  bench_main_loop(&args, math_rep, math_verify, &run);
  return 0;
}
