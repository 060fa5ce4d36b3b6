// Thread-safe `sbrk` for Emscripten programs linked with -sMALLOC=none.
//
// Emscripten only links its own sbrk together with its own malloc, so any replacement
// allocator (wasmscale's, or the mimalloc peer) ships this one. Differences from libc's:
// - the break always moves by multiples of 16 bytes, so memory handed out by any sbrk
//   user is 16-byte aligned (64-bit atomics on 8-byte-aligned memory trap in Wasm);
// - it is lock-free (compare-and-swap loop), so several allocators can share it;
// - it grows linear memory with emscripten_resize_heap when allowed, and otherwise
//   fails with errno ENOMEM, never aborting.

#define _GNU_SOURCE  // sbrk, brk
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>
#include <emscripten/heap.h>

#define SBRK_ALIGN ((uintptr_t)16)

extern unsigned char __heap_base;

// Zero until first use: __heap_base is not a constant expression we can align statically.
static _Atomic uintptr_t break_top;

static uintptr_t align_up(uintptr_t value) {
  return (value + SBRK_ALIGN - 1) & ~(SBRK_ALIGN - 1);
}

static uintptr_t current_break(void) {
  uintptr_t top = atomic_load_explicit(&break_top, memory_order_acquire);
  if (top == 0) {
    uintptr_t initial = align_up((uintptr_t)&__heap_base);
    // Whoever wins the race installs the same value, so the outcome does not matter.
    atomic_compare_exchange_strong(&break_top, &top, initial);
    top = atomic_load_explicit(&break_top, memory_order_acquire);
  }
  return top;
}

// Grows linear memory to reach `top` if needed. With pthreads, Emscripten's resize refuses a
// size that another thread's growth already covers ("let the caller retry"), so a refusal
// counts as failure only if memory is still too small afterwards.
static int memory_covers(uintptr_t top) {
  if (top <= emscripten_get_heap_size()) return 1;
  if (emscripten_resize_heap(top)) return 1;
  return top <= emscripten_get_heap_size();
}

// libc's runtime (and -sSAFE_HEAP) read the break through this pointer.
uintptr_t *emscripten_get_sbrk_ptr(void) {
  current_break();
  return (uintptr_t *)&break_top;
}

void *sbrk(intptr_t increment) {
  // Round the magnitude, not the signed value, so shrinking keeps alignment too.
  intptr_t rounded = increment >= 0 ? (intptr_t)align_up((uintptr_t)increment)
                                    : -(intptr_t)align_up((uintptr_t)-increment);
  uintptr_t old_top = current_break();
  if (rounded == 0) return (void *)old_top;  // no compare-and-swap on a word every thread reads
  for (;;) {
    uintptr_t new_top = old_top + (uintptr_t)rounded;
    int overflows = rounded > 0 ? new_top < old_top : new_top > old_top;
    if (overflows || new_top < (uintptr_t)&__heap_base) {
      errno = ENOMEM;
      return (void *)-1;
    }
    if (!memory_covers(new_top)) {
      errno = ENOMEM;
      return (void *)-1;
    }
    if (atomic_compare_exchange_weak_explicit(&break_top, &old_top, new_top,
                                              memory_order_acq_rel, memory_order_acquire)) {
      return (void *)old_top;
    }
    // Another thread moved the break: old_top now holds its value; retry from there.
  }
}

int brk(void *address) {
  uintptr_t old_top = current_break();
  for (;;) {
    uintptr_t new_top = (uintptr_t)address;
    if (new_top < (uintptr_t)&__heap_base || (new_top & (SBRK_ALIGN - 1)) != 0) {
      errno = ENOMEM;
      return -1;
    }
    if (!memory_covers(new_top)) {
      errno = ENOMEM;
      return -1;
    }
    if (atomic_compare_exchange_weak(&break_top, &old_top, new_top)) return 0;
  }
}
