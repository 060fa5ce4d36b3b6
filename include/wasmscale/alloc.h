// wasmscale allocator: public API beyond the standard malloc family.
//
// Linking the library (bin/wasmscale-cc --malloc=wasmscale, or libwasmscale-alloc natively)
// replaces malloc, free, calloc, realloc, reallocarray, memalign, posix_memalign,
// aligned_alloc, valloc, pvalloc, malloc_usable_size, malloc_trim, the __libc_* names and,
// in Emscripten, the emscripten_builtin_* names. This header adds statistics.
#ifndef WASMSCALE_ALLOC_H
#define WASMSCALE_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// Number of size classes for small and medium blocks; larger blocks are "large".
#define WS_ALLOC_SIZE_CLASSES 72

typedef struct ws_alloc_stats {
  uint64_t bytes_in_use;          // sum of the sizes of live blocks (size-class rounded)
  uint64_t bytes_in_use_peak;     // upper bound of the peak: the peak bytes of runs each heap held,
                                  // summed, plus the peak of large blocks
  uint64_t bytes_reserved;        // memory taken from the platform (sbrk / mmap)
  uint64_t bytes_reserved_peak;
  uint64_t bytes_pool_free;       // reserved memory free in the shared pool, ready for any thread
  uint64_t pool_largest_free;     // the largest contiguous piece of it
  uint64_t large_in_use;          // bytes in live large blocks (included in bytes_in_use)
  uint64_t allocations;           // calls that returned memory
  uint64_t cross_thread_frees;    // frees of blocks owned by another thread's heap
  uint64_t kept_blocks;           // of those, blocks the freeing thread kept to hand out
                                  // again itself instead of returning them to their owner
  uint64_t kept_own_blocks;       // of those, blocks of runs the freeing thread's heap had
                                  // handed over itself: its own, not passed by another thread
  uint64_t borrowed_blocks;       // blocks a heap reused from another heap's pending frees
                                  // before their owner took them back (it was not allocating)
  uint64_t heaps_live;            // heaps owned by a running thread
  uint64_t heaps_abandoned;       // heaps whose thread exited, waiting for adoption
  uint64_t runs_handed_over;      // partly used runs a heap gave up for other heaps (it had
                                  // more free blocks of the class than it needed, or exited)...
  uint64_t runs_adopted;          // ...and runs heaps took from those instead of new memory
  uint64_t larger_class_blocks;   // blocks served from a run of a slightly larger class the
                                  // heap had free blocks in, instead of new memory
  uint64_t runs_marked_full;      // used-up runs taken off their heap's lists until a block comes
                                  // back (an atomic compare-and-swap each, and another at that
                                  // free): many per allocation mean runs serve a block or two
  uint64_t pool_lock_acquisitions;  // shared span-pool lock: taken...
  uint64_t pool_lock_contended;     // ...and found busy
  uint64_t orphan_lock_acquisitions;  // the lock of the runs handed over between heaps (orphan.c)
  uint64_t growths;                 // requests to the platform for more memory (sbrk), each
                                    // an atomic read-modify-write of the break
  uint64_t class_block_size[WS_ALLOC_SIZE_CLASSES];
  uint64_t class_allocations[WS_ALLOC_SIZE_CLASSES];
} ws_alloc_stats;

// Fills *stats with a snapshot. Counters from other threads are read without stopping them,
// so a snapshot taken while they run is approximate.
void ws_alloc_get_stats(ws_alloc_stats *stats);

// Prints the snapshot in a readable form (out may be NULL for stderr).
void ws_alloc_print_stats(FILE *out);

#ifdef __cplusplus
}
#endif

#endif
