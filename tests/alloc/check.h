// A tiny test framework shared by the allocator's C tests: CHECK records a failure without
// stopping, and the summary line (which the CI reads) sets the exit status.
#ifndef WASMSCALE_TEST_CHECK_H
#define WASMSCALE_TEST_CHECK_H

#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static _Atomic int checks_passed, checks_failed;  // CHECK works on any thread

#define CHECK(condition)                                                            \
  do {                                                                              \
    if (condition) {                                                                \
      checks_passed++;                                                              \
    } else {                                                                        \
      checks_failed++;                                                              \
      fprintf(stderr, "FAILED %s:%d: %s\n", __FILE__, __LINE__, #condition);        \
    }                                                                               \
  } while (0)

// Whether p is a multiple of alignment (a power of two). Through a volatile: the C library
// declares memalign and friends with alloc_align, so the compiler may otherwise take the answer
// for granted and fold the check away.
static inline int is_aligned(const void *p, size_t alignment) {
  const void *volatile seen = p;
  return ((uintptr_t)seen & (alignment - 1)) == 0;
}

static int check_summary(const char *suite) {
  printf("%s: %d passed, %d failed\n", suite, checks_passed, checks_failed);
  return checks_failed == 0 ? 0 : 1;
}

// Tests call the allocator through WS(name): the standard names, or ws_name when the
// library is built with -DWS_PREFIX_NAMES (under sanitizers that bring their own malloc).
#ifdef WS_PREFIX_NAMES
#include <stddef.h>
void *ws_malloc(size_t size);
void ws_free(void *p);
void *ws_calloc(size_t count, size_t size);
void *ws_realloc(void *p, size_t size);
void *ws_reallocarray(void *p, size_t count, size_t size);
void *ws_memalign(size_t alignment, size_t size);
int ws_posix_memalign(void **result, size_t alignment, size_t size);
void *ws_aligned_alloc(size_t alignment, size_t size);
void *ws_valloc(size_t size);
void *ws_pvalloc(size_t size);
size_t ws_malloc_usable_size(void *p);
int ws_malloc_trim(size_t pad);
void ws_malloc_stats(void);
int ws_mallopt(int parameter, int value);
#include <malloc.h>  // struct mallinfo
struct mallinfo ws_mallinfo(void);
#define WS(name) ws_##name
#else
#include <malloc.h>
#include <stdlib.h>
void *reallocarray(void *p, size_t count, size_t size);
void *pvalloc(size_t size);
int malloc_trim(size_t pad);
#define WS(name) name
#endif

#endif
