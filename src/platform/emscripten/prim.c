// Platform layer for Emscripten: memory from the shared, thread-safe sbrk (sbrk.c).
#define _GNU_SOURCE  // sbrk
#include <string.h>
#include <unistd.h>
#include <emscripten/heap.h>
#include <emscripten/threading.h>

#include "../platform.h"

uintptr_t ws_prim_window_base(void) { return 0; }

// A timed wait needs no wake-up from the holder; 20 µs is a few critical sections long.
void ws_prim_wait(_Atomic int *word, int busy) { emscripten_futex_wait((volatile void *)word, (uint32_t)busy, 0.02); }

uintptr_t ws_prim_break(void) { return (uintptr_t)sbrk(0); }

void *ws_prim_grow(size_t bytes) {
  void *start = sbrk((intptr_t)bytes);
  return start == (void *)-1 ? NULL : start;
}

bool ws_prim_shrink(void *start, size_t bytes) {
  // Only a compare-and-swap on the break itself is safe: another sbrk user may move it.
  uintptr_t *brk_ptr = emscripten_get_sbrk_ptr();
  uintptr_t expected = (uintptr_t)start + bytes;
  return __c11_atomic_compare_exchange_strong((_Atomic uintptr_t *)brk_ptr, &expected, (uintptr_t)start,
                                              __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
