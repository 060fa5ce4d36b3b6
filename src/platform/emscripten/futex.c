// Sleeping and waking on a word of shared memory, for the file system's locks.
#include <limits.h>
#include <math.h>
#include <emscripten/threading.h>

#include "../platform.h"

void ws_prim_futex_wait(_Atomic unsigned *word, unsigned expected) {
  emscripten_futex_wait((volatile void *)word, expected, INFINITY);
}

void ws_prim_wake_all(_Atomic unsigned *word) { emscripten_futex_wake((volatile void *)word, INT_MAX); }
