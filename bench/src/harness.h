// Shared harness for the benchmark programs: argument parsing, timing, heap sampling,
// running work on N threads, and the one-line result protocol the runner parses.
//
// Every program prints, per repetition, one line
//   @@wsb {"rep":R,"warmup":B,"ms":T,"ops":N,"peak_bytes":P,"checksum":"C","ok":B}
// where ops counts the workload's unit operations per repetition (allocations, file calls...).
// and, if it finds its own results wrong, "@@error <why>" and exits with status 1.
// A case the toolchain cannot run prints "@@unsupported <why>" and exits with status 3.
#ifndef WASMSCALE_BENCH_HARNESS_H
#define WASMSCALE_BENCH_HARNESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_args {
  const char *variant;  // workload-specific shape, e.g. "small" for malloc
  int threads;          // worker threads doing the fixed total work
  int reps;             // measured repetitions
  int warmup;           // unmeasured repetitions before them (V8 tiers up meanwhile)
  double scale;         // multiplies the default amount of work (quick mode uses < 1)
  const char *dir;      // where a workload keeps its files (fs), relative to the working directory or not
} bench_args;

// Parses --variant=S --threads=N --reps=N --warmup=N --scale=F --dir=PATH (default /tmp); exits with a message on bad input.
bench_args bench_parse_args(int argc, char **argv, const char *default_variant);

double bench_now_ms(void);

// Declares how many unit operations one repetition performs (reported as "ops").
void bench_set_ops(uint64_t ops_per_rep);

// Records the current top of the heap (sbrk break) into the run's high-water mark.
// Call it where a workload holds the most memory; the harness also calls it after each rep.
void bench_sample_heap(void);

// Runs fn(index, context) on `threads` new pthreads and joins them all.
typedef void (*bench_thread_fn)(int index, void *context);
void bench_run_threads(int threads, bench_thread_fn fn, void *context);

// Repeats `rep` warmup + reps times, printing one result line per repetition (warm-ups marked).
// Only `rep` is timed; it returns a checksum of its work. `verify` (may be NULL) then checks
// that checksum untimed, calling bench_fail when it is wrong.
typedef uint64_t (*bench_rep_fn)(const bench_args *args, void *context);
typedef void (*bench_verify_fn)(const bench_args *args, uint64_t checksum, void *context);
void bench_main_loop(const bench_args *args, bench_rep_fn rep, bench_verify_fn verify, void *context);

_Noreturn void bench_fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void bench_unsupported(const char *format, ...) __attribute__((format(printf, 1, 2)));

// Deterministic pseudo-random numbers (splitmix64), the same on every host and allocator.
static inline uint64_t bench_mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Splits `total` units of work into `parts`; returns the [begin, end) of part `index`.
static inline void bench_split(uint64_t total, int parts, int index, uint64_t *begin, uint64_t *end) {
  *begin = total * (uint64_t)index / (uint64_t)parts;
  *end = total * (uint64_t)(index + 1) / (uint64_t)parts;
}

#endif
