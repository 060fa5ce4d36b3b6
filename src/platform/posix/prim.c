// Platform layer for native Linux, used to test the allocator under sanitizers and to compare
// it with native allocators. It imitates Wasm's linear memory: one 4 GiB window reserved
// up front (no physical memory until touched) and handed out by a lock-free break pointer.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  // MAP_NORESERVE, syscall
#endif
#include <errno.h>
#include <string.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../platform.h"

#define WINDOW_BYTES ((size_t)4 << 30)

static _Atomic uintptr_t window_base;
static _Atomic uintptr_t window_break;

static uintptr_t reserve_window(void) {
  uintptr_t base = atomic_load(&window_base);
  if (base != 0) return base;
  void *region = mmap(NULL, WINDOW_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) {
    ws_prim_write_error("wasmscale: cannot reserve the 4 GiB allocator window\n");
    ws_prim_abort();
  }
  uintptr_t expected = 0;
  if (atomic_compare_exchange_strong(&window_base, &expected, (uintptr_t)region)) {
    atomic_store(&window_break, (uintptr_t)region);
    return (uintptr_t)region;
  }
  munmap(region, WINDOW_BYTES);  // another thread won the race
  while (atomic_load(&window_break) == 0) ws_prim_yield();
  return expected;
}

uintptr_t ws_prim_window_base(void) { return reserve_window(); }

void ws_prim_wait(_Atomic int *word, int busy) {
  (void)word, (void)busy;
  ws_prim_yield();
}

void ws_prim_futex_wait(_Atomic unsigned *word, unsigned expected) {
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void ws_prim_wake_all(_Atomic unsigned *word) {
  syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

uintptr_t ws_prim_break(void) {
  reserve_window();
  return atomic_load(&window_break);
}

void *ws_prim_grow(size_t bytes) {
  uintptr_t base = reserve_window();
  uintptr_t old = atomic_load(&window_break);
  do {
    if (bytes > base + WINDOW_BYTES - old) return NULL;
  } while (!atomic_compare_exchange_weak(&window_break, &old, old + bytes));
  return (void *)old;
}

bool ws_prim_shrink(void *start, size_t bytes) {
  // Give the physical pages back first: the range is free memory of the caller's, and once
  // the break moves down another thread may grow into it.
  madvise(start, bytes, MADV_DONTNEED);
  uintptr_t expected = (uintptr_t)start + bytes;
  return atomic_compare_exchange_strong(&window_break, &expected, (uintptr_t)start);
}

void ws_prim_console_write(int stream, const char *data, size_t length) {
  while (length > 0) {
    ssize_t written = write(stream, data, length);
    if (written <= 0) return;
    data += written;
    length -= (size_t)written;
  }
}

int64_t ws_prim_console_read(void *data, size_t length) {
  ssize_t got = read(0, data, length);
  return got >= 0 ? got : -errno;
}
