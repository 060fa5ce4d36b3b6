// The standard allocation API on top of the heaps: malloc and friends with their documented
// edge cases (errno, NULL, zero sizes, alignment rules), the __libc_* names libc calls
// internally, and Emscripten's emscripten_builtin_* names, which must work before the calling
// thread's TLS exists and so always use the shared builtin heap.
//
// The fast paths are here. malloc's costs one TLS load, a table lookup for sizes up to 1 KiB
// (else a size-class computation), two loads and three stores on memory only this thread
// writes, and for sizes up to 1 KiB a load of the next free block that nothing waits for. No
// lock, no atomic read-modify-write. When the serving run is used up: slow_path.c. A free of
// another thread's block: free.c.
//
// Built with -DWS_PREFIX_NAMES the functions are called ws_malloc, ws_free... instead, so the
// allocator can be tested under sanitizers that bring their own malloc.
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#ifdef WS_PREFIX_NAMES
#define WS_API(name) ws_##name
#else
#define WS_API(name) name
#endif

// ----- helpers -------------------------------------------------------------------------------

static bool is_power_of_two(size_t x) { return x != 0 && (x & (x - 1)) == 0; }


static void *allocate_in(ws_heap *heap, size_t size, size_t alignment) {
  if (heap != NULL) return _ws_alloc_aligned(heap, alignment, size);
  ws_heap *builtin = _ws_heap_builtin_lock();
  void *p = _ws_alloc_aligned(builtin, alignment, size);
  _ws_heap_builtin_unlock();
  return p;
}

// Every allocation that is not the inline fast path comes here.
static void *allocate(ws_heap *heap, size_t size, size_t alignment) {
  if (size > SIZE_MAX / 2) {  // no 32- or 64-bit window can hold it
    errno = ENOMEM;
    return NULL;
  }
#if WS_CHECKED
  size_t front = _ws_check_front(alignment);
  void *block = allocate_in(heap, front + size + WS_CHECK_BACK, alignment);
  void *p = block != NULL ? _ws_check_after_alloc(block, front, size) : NULL;
#else
  void *p = allocate_in(heap, size, alignment);
#endif
  if (p == NULL) {
    errno = ENOMEM;
    return NULL;
  }
  return p;
}

// memalign's rules, as glibc's: any alignment is rounded up to a power of two; EINVAL for one
// too large to round (the doubling would overflow).
static void *allocate_rounded(ws_heap *heap, size_t alignment, size_t size) {
  if (alignment > SIZE_MAX / 2) {
    errno = EINVAL;
    return NULL;
  }
  size_t rounded = WS_ALIGNMENT;
  while (rounded < alignment) rounded <<= 1;
  return allocate(heap, size, rounded);
}

static void release(ws_heap *heap, void *p) {
#if WS_CHECKED
  _ws_check_free(heap, p);  // into the quarantine; older blocks leave it for _ws_free_in
#else
  _ws_free_in(heap, p);
#endif
}

static size_t usable_size(const void *p) {
#if WS_CHECKED
  return _ws_check_requested_size(p);
#else
  return _ws_usable_size(p);
#endif
}

static size_t system_page_size(void) {
  long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? (size_t)size : 4096;
}

// ----- malloc and free -----------------------------------------------------------------------

// Out of line, so that malloc's fast path keeps nothing for it in a register: a tail call.
static __attribute__((noinline)) void *allocate_for_malloc(size_t size) {
  return allocate(_ws_heap_current(), size, WS_ALIGNMENT);
}

void *WS_API(malloc)(size_t size) {
#if !WS_CHECKED
  ws_heap *heap = _ws_current_heap;
  if (ws_likely(heap != NULL)) {
    if (ws_likely(size <= WS_DIRECT_MAX)) {
      ws_page *run = heap->direct[(size + 15) >> 4];
      if (ws_likely(run->free != NULL)) return _ws_pop_small_block(run);
    } else if (size <= WS_MEDIUM_MAX) {
      ws_page *run = heap->avail[ws_size_class(size)];
      if (ws_likely(run->free != NULL)) return _ws_pop_block(run);
    }
  }
#endif
  return allocate_for_malloc(size);
}

void WS_API(free)(void *p) {
  if (p == NULL) return;
  // The caller's heap as is: NULL or the exited marker never own a run, so their frees
  // take the remote path, which needs no heap of the caller's.
  ws_heap *heap = _ws_current_heap;
#if !WS_CHECKED
  ws_page *page = ws_page_of(p);
  if (ws_likely(page != NULL)) {
    ws_page *run = page->head;
    if (ws_likely(run->kind == WS_PAGE_RUN && ws_owner_is(run, heap))) {
      _ws_free_local(heap, run, p);
      return;
    }
  }
#endif
  release(heap, p);
}

void *WS_API(calloc)(size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  void *p = allocate(_ws_heap_current(), total, WS_ALIGNMENT);
  if (p != NULL) memset(p, 0, total);
  return p;
}

// ----- realloc -------------------------------------------------------------------------------

// Resizes without moving when the block can hold the new size (and would not waste more
// than half of itself), or when a large block can take over the free pages after it.
static bool resize_in_place(void *p, size_t size) {
#if WS_CHECKED
  (void)p, (void)size;
  return false;  // checked mode moves every time, so stale pointers show up
#else
  size_t usable = _ws_usable_size(p);
  if (size <= usable) return size >= usable / 2;
  ws_page *head = ws_span_of(p);
  if (head->kind != WS_PAGE_LARGE || size > WS_WINDOW_MAX - WS_PAGE_SIZE) return false;
  return _ws_span_extend(head, (size + WS_PAGE_SIZE - 1) / WS_PAGE_SIZE);
#endif
}

void *WS_API(realloc)(void *p, size_t size) {
  if (p == NULL) return WS_API(malloc)(size);
  if (size == 0) {  // as glibc: free and return NULL
    WS_API(free)(p);
    return NULL;
  }
  if (resize_in_place(p, size)) return p;
  void *moved = allocate(_ws_heap_current(), size, WS_ALIGNMENT);
  if (moved == NULL) return NULL;  // errno is ENOMEM; the old block is untouched
  size_t old_size = usable_size(p);
  memcpy(moved, p, old_size < size ? old_size : size);
  WS_API(free)(p);
  return moved;
}

void *WS_API(reallocarray)(void *p, size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  return WS_API(realloc)(p, total);
}

// ----- aligned allocation --------------------------------------------------------------------

void *WS_API(memalign)(size_t alignment, size_t size) {
  return allocate_rounded(_ws_heap_current(), alignment, size);
}

int WS_API(posix_memalign)(void **result, size_t alignment, size_t size) {
  if (!is_power_of_two(alignment) || alignment % sizeof(void *) != 0) return EINVAL;
  int saved = errno;
  void *p = allocate(_ws_heap_current(), size, alignment);
  errno = saved;  // posix_memalign reports through its result only
  if (p == NULL) return ENOMEM;
  *result = p;
  return 0;
}

void *WS_API(aligned_alloc)(size_t alignment, size_t size) {
  if (!is_power_of_two(alignment)) {
    errno = EINVAL;
    return NULL;
  }
  return allocate(_ws_heap_current(), size, alignment);
}

void *WS_API(valloc)(size_t size) { return WS_API(memalign)(system_page_size(), size); }

void *WS_API(pvalloc)(size_t size) {
  size_t page = system_page_size();
  size_t rounded = size == 0 ? page : (size + page - 1) & ~(page - 1);
  if (rounded < size) {
    errno = ENOMEM;
    return NULL;
  }
  return WS_API(memalign)(page, rounded);
}

// ----- introspection and trimming ------------------------------------------------------------

size_t WS_API(malloc_usable_size)(void *p) { return p == NULL ? 0 : usable_size(p); }

int WS_API(malloc_trim)(size_t pad) {
  (void)pad;
  // The caller's heap as it is: making one here would adopt an exited thread's heap, whose
  // pending frees the reclaiming below would then leave alone.
  ws_heap *heap = _ws_current_heap;
  if (heap != NULL && heap != &_ws_exited_heap) _ws_release_spares_with(heap, NULL);
  _ws_heap_reclaim_abandoned();
  _ws_release_empty_orphans();
  return _ws_span_trim() ? 1 : 0;
}

// mallinfo, as dlmalloc programs use it, from the allocator's statistics (each figure is
// clamped to INT_MAX, the struct's limit).
static int clamp(uint64_t value) { return value > INT_MAX ? INT_MAX : (int)value; }

struct mallinfo WS_API(mallinfo)(void) {
  ws_alloc_stats stats;
  ws_alloc_get_stats(&stats);
  struct mallinfo info = {0};
  info.arena = clamp(stats.bytes_reserved);
  info.hblkhd = clamp(stats.large_in_use);
  info.uordblks = clamp(stats.bytes_in_use);
  info.fordblks = clamp(stats.bytes_reserved > stats.bytes_in_use ? stats.bytes_reserved - stats.bytes_in_use : 0);
  info.keepcost = clamp(stats.pool_largest_free);
  return info;
}

// The other two glibc names <malloc.h> declares (Emscripten's too, though its dlmalloc defines
// neither), so programs that call them link. malloc_stats prints to stderr, as glibc's does.
void WS_API(malloc_stats)(void) { ws_alloc_print_stats(stderr); }

// The allocator has no tunables (its steps and thresholds are its own): mallopt changes
// nothing and says so with glibc's failure value, 0.
int WS_API(mallopt)(int parameter, int value) {
  (void)parameter;
  (void)value;
  return 0;
}

// ----- names libc and Emscripten's runtime call ----------------------------------------------

#ifndef WS_PREFIX_NAMES
void *__libc_malloc(size_t size) { return malloc(size); }
void *__libc_calloc(size_t count, size_t size) { return calloc(count, size); }
void *__libc_realloc(void *p, size_t size) { return realloc(p, size); }
void __libc_free(void *p) { free(p); }
void *__libc_memalign(size_t alignment, size_t size) { return memalign(alignment, size); }

#ifdef __EMSCRIPTEN__
// No TLS here: these run while a new thread's TLS block is being made, or torn down.
void *emscripten_builtin_malloc(size_t size) { return allocate(NULL, size, WS_ALIGNMENT); }

void *emscripten_builtin_memalign(size_t alignment, size_t size) {
  return allocate_rounded(NULL, alignment, size);
}

void emscripten_builtin_free(void *p) {
  if (p == NULL) return;
  ws_heap *builtin = _ws_heap_builtin_lock();
  release(builtin, p);
  _ws_heap_builtin_unlock();
}
#endif
#endif
