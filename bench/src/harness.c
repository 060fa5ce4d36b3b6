// See harness.h for the protocol. Kept free of workload logic.
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
extern unsigned char __heap_base;
#else
#include <sys/resource.h>
#endif

enum { BENCH_MAX_THREADS = 64 };

static _Atomic uintptr_t heap_high_water;
static uint64_t ops_per_rep;

static long parse_long(const char *flag, const char *text, long min, long max) {
  char *end;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || end == text || value < min || value > max) {
    fprintf(stderr, "bench: %s expects a whole number from %ld to %ld, got '%s'\n", flag, min, max, text);
    exit(2);
  }
  return value;
}

bench_args bench_parse_args(int argc, char **argv, const char *default_variant) {
  bench_args args = {default_variant, 1, 5, 1, 1.0, "/tmp"};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const char *value = strchr(arg, '=');
    size_t name_len = value ? (size_t)(value - arg) : strlen(arg);
    if (value) value++;
#define IS(name) (value && name_len == strlen(name) && strncmp(arg, name, name_len) == 0)
    if (IS("--variant")) {
      args.variant = value;
    } else if (IS("--threads")) {
      args.threads = (int)parse_long("--threads", value, 1, BENCH_MAX_THREADS);
    } else if (IS("--reps")) {
      args.reps = (int)parse_long("--reps", value, 1, 1000);
    } else if (IS("--warmup")) {
      args.warmup = (int)parse_long("--warmup", value, 0, 1000);
    } else if (IS("--dir")) {
      args.dir = value;
    } else if (IS("--scale")) {
      char *end;
      args.scale = strtod(value, &end);
      if (*end != '\0' || !(args.scale > 0 && args.scale <= 100)) {
        fprintf(stderr, "bench: --scale expects a number in (0, 100], got '%s'\n", value);
        exit(2);
      }
    } else {
      fprintf(stderr, "bench: unknown argument '%s' (expected --variant= --threads= --reps= --warmup= --scale= --dir=)\n", arg);
      exit(2);
    }
#undef IS
  }
  return args;
}

double bench_now_ms(void) {
#ifdef __EMSCRIPTEN__
  return emscripten_get_now();
#else
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
#endif
}

void bench_set_ops(uint64_t ops) { ops_per_rep = ops; }

static uintptr_t heap_bytes_now(void) {
#ifdef __EMSCRIPTEN__
  // All heap memory (malloc's and any other sbrk user's) lies between __heap_base and the break.
  return (uintptr_t)sbrk(0) - (uintptr_t)&__heap_base;
#else
  // Natively there is no single heap break: report the process's peak resident size. VmHWM,
  // not getrusage: Linux carries ru_maxrss across exec, so a program started by Node reported
  // Node's own peak (about 40 MB) whatever its allocator did.
  FILE *status = fopen("/proc/self/status", "r");
  if (status != NULL) {
    char line[256];
    unsigned long kib = 0;
    while (fgets(line, sizeof line, status) != NULL && sscanf(line, "VmHWM: %lu kB", &kib) != 1) {
    }
    fclose(status);
    if (kib != 0) return (uintptr_t)kib * 1024;
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (uintptr_t)usage.ru_maxrss * 1024;
#endif
}

void bench_sample_heap(void) {
  uintptr_t now = heap_bytes_now();
  uintptr_t seen = atomic_load(&heap_high_water);
  while (now > seen && !atomic_compare_exchange_weak(&heap_high_water, &seen, now)) {
  }
}

typedef struct thread_start {
  bench_thread_fn fn;
  void *context;
  int index;
} thread_start;

static void *thread_entry(void *raw) {
  thread_start *start = raw;
  start->fn(start->index, start->context);
  return NULL;
}

void bench_run_threads(int threads, bench_thread_fn fn, void *context) {
  pthread_t ids[BENCH_MAX_THREADS];
  thread_start starts[BENCH_MAX_THREADS];
  for (int i = 0; i < threads; i++) {
    starts[i] = (thread_start){fn, context, i};
    int error = pthread_create(&ids[i], NULL, thread_entry, &starts[i]);
    if (error != 0) bench_fail("pthread_create failed: %s", strerror(error));
  }
  for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
}

#ifndef __EMSCRIPTEN__
// Defined by an instrument that counts per repetition (the contention probe,
// bench/contention/probe.c), linked natively; every other build leaves it undefined.
void bench_repetition_starts(int warmup) __attribute__((weak));
#endif

void bench_main_loop(const bench_args *args, bench_rep_fn rep, bench_verify_fn verify, void *context) {
  for (int i = 0; i < args->warmup + args->reps; i++) {
#ifndef __EMSCRIPTEN__
    if (bench_repetition_starts) bench_repetition_starts(i < args->warmup);
#endif
    double start = bench_now_ms();
    uint64_t checksum = rep(args, context);
    double elapsed = bench_now_ms() - start;
    bench_sample_heap();
    if (verify) verify(args, checksum, context);
    printf("@@wsb {\"rep\":%d,\"warmup\":%s,\"ms\":%.3f,\"ops\":%llu,\"peak_bytes\":%lu,\"checksum\":\"%016llx\",\"ok\":true}\n",
           i, i < args->warmup ? "true" : "false", elapsed, (unsigned long long)ops_per_rep, (unsigned long)atomic_load(&heap_high_water),
           (unsigned long long)checksum);
    fflush(stdout);
  }
}

static _Noreturn void stop(const char *tag, int status, const char *format, va_list list) {
  char message[512];
  vsnprintf(message, sizeof message, format, list);
  printf("%s %s\n", tag, message);
  fflush(stdout);
  exit(status);
}

void bench_fail(const char *format, ...) {
  va_list list;
  va_start(list, format);
  stop("@@error", 1, format, list);
}

void bench_unsupported(const char *format, ...) {
  va_list list;
  va_start(list, format);
  stop("@@unsupported", 3, format, list);
}
