// wasmscale allocator: data structures, knobs and cross-module helpers.
//
// Memory layout (see docs/allocator.md for the picture):
//   - The platform hands out memory in growing steps (sbrk in Wasm, a reserved mmap natively),
//     all inside one address window starting at ws_prim_window_base().
//   - The window is cut into 16 KiB pages. Every page has a descriptor (ws_page) in the page
//     map, so any pointer finds its page by arithmetic.
//   - Consecutive pages form spans. The shared span pool (span.c, one lock) hands out spans:
//     runs of 1-16 pages for small/medium blocks of one size class, or large blocks.
//   - Each thread owns a heap (heap.c): per size class, a list of runs with free blocks.
//     Allocating and freeing a block of one's own run touches only that run: no lock, no
//     atomic read-modify-write. Frees from other threads go to the run's atomic list
//     (free.c), collected lazily by the owner.
#ifndef WASMSCALE_ALLOC_INTERNAL_H
#define WASMSCALE_ALLOC_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wasmscale/alloc.h"
#include "../platform/platform.h"

// Everything declared below is the allocator's own: hidden from other modules, so in a shared
// library (natively, through LD_PRELOAD) the fast paths reach the TLS heap, the page map and
// the slow paths directly instead of through the GOT and PLT.
#pragma GCC visibility push(hidden)

// ---------------------------------------------------------------------------------------
// The tunables: every size, threshold and rate the allocator's policy uses, in one table.
// Everything else derives from these. Why each has its value, with the measurements, is in
// docs/allocator.md and docs/decisions.md ("the allocator's measured choices" and later entries).
// ---------------------------------------------------------------------------------------
#define WS_PAGE_SHIFT 14                        // 16 KiB pages
#define WS_PAGE_SIZE ((size_t)1 << WS_PAGE_SHIFT)
#define WS_ALIGNMENT 16                         // every block is 16-byte aligned
#define WS_CLASSES WS_ALLOC_SIZE_CLASSES        // 8 per doubling: <= 12.5% rounding waste
#define WS_MEDIUM_MAX ((size_t)32 << 10)        // larger requests are large blocks
#define WS_RUN_MIN_BLOCKS 64                    // a run holds this many blocks...
#define WS_RUN_MAX_BYTES ((size_t)32 << 10)     // ...unless that is more than 32 KiB: then fewer (>= 2)
#define WS_FIRST_RUN_SHORT_ABOVE 2048           // a heap's first run of a larger class: one page
#define WS_GROW_MIN ((size_t)64 << 10)          // smallest step taken from the platform
#define WS_MAP_CHUNK_PAGES 256                  // page descriptors allocated together (one page of them)
#define WS_WINDOW_MAX ((uint64_t)4 << 30)       // 4 GiB: all of wasm32 memory
#define WS_WINDOW_PAGES (WS_WINDOW_MAX >> WS_PAGE_SHIFT)
#define WS_MAP_CHUNKS (WS_WINDOW_PAGES / WS_MAP_CHUNK_PAGES)
#define WS_SPAN_BINS 64                         // free spans binned by page count
#define WS_CACHE_LINE 64                        // descriptors of different threads' runs never share one
#define WS_DIRECT_MAX 1024                      // sizes up to this find their run in one lookup
#define WS_SPARE_PAGES 16                       // pages of emptied runs a heap keeps for reuse, at most...
#define WS_SPARE_SHARE 8                        // ...and at most 1/8 of the pages it holds in runs...
#define WS_SPARE_PAGES_MIN 8                    // ...unless that is below this
#define WS_STEAL_SCAN 4096                      // page descriptors looked at per attempt to reuse pending frees
#define WS_KEEP_BYTES ((size_t)16 << 10)        // per class: other heaps' blocks a heap keeps from its own frees...
#define WS_KEEP_MAX_BLOCKS 64                   // ...in bytes, and at most this many blocks
#define WS_SURPLUS_EVERY 64                     // a class's run switches per look for surplus runs (a power of two)...
#define WS_PASSED_SURPLUS_EVERY 8               // ...where threads pass blocks (a power of two)...
#define WS_PASSED_RESERVE_SHARE 2               // ...keeping half a run's blocks (slow_path.c)
#define WS_REJOIN_FULL_RUNS 16                  // in a class with this many full runs, a full run rejoins
#define WS_REJOIN_SHARE 4                       // its class list only with 1/4 of its blocks back
#define WS_HOLE_SPARING_PAGES 64                // memory grown to keep runs out of large blocks' holes, per large block
#define WS_LARGER_CLASSES 2                     // before memory grows, a block may come from a class this far up
#define WS_WAITING_SCORE_MAX 8                  // a class's score for runs waiting for frees: +-this...
#define WS_WAITING_PROBE 16                     // ...and below 0, one used-up run in this many waits anyway

// Checked mode (-DWS_CHECKED=1): every block carries a header and canaries, and free verifies
// them and the pointer itself; freed blocks wait poisoned in a quarantine (check.c). Off by default.
#ifndef WS_CHECKED
#define WS_CHECKED 0
#endif

#define ws_likely(x) __builtin_expect(!!(x), 1)
#define ws_unlikely(x) __builtin_expect(!!(x), 0)

// ---------------------------------------------------------------------------------------
// Blocks, runs and pages.
// ---------------------------------------------------------------------------------------
typedef struct ws_block {
  struct ws_block *next;
} ws_block;

typedef enum ws_page_kind {
  WS_PAGE_UNUSED = 0,   // not yet taken from the platform, or the page map's own first memory
  WS_PAGE_FREE,         // any page of a free span in the pool
  WS_PAGE_RUN,          // head of a run of small/medium blocks of one size class
  WS_PAGE_LARGE,        // head of one large block
  WS_PAGE_INTERIOR,     // any page but the first of a run or large block: see `head`
  WS_PAGE_STAND_IN,     // not a page: a heap's stand-in run for other heaps' blocks (kept.c)
  WS_PAGE_MAP,          // a page of page-map descriptors, taken from the pool (never freed)
} ws_page_kind;

// A run's list of blocks freed by other threads (ws_thread_free) has a flag in its low bit.
#define WS_NOTIFY_OWNER ((uintptr_t)1)  // run is full: the next remote free must tell the owner heap

struct ws_heap;

// The kind tags the descriptor: each field below says the kinds it has a meaning for, and means
// nothing on the others. Where two kinds' fields share bytes (the union), whoever changes a page's
// kind sets the new kind's fields (span.c, slow_path.c, kept.c).
typedef struct ws_page {
  struct ws_page *head;         // the span's first page; on the first, on a free span's inner
                                // pages and on unused pages: the page itself
  uint32_t index;               // this page's number in the window (fixed)
  uint32_t pages;               // span length: a run's, large block's or map span's head, and a
                                // free span's head and tail
  uint8_t kind;                 // ws_page_kind: every page
  uint8_t size_class;           // runs and stand-ins
  bool in_full;                 // runs: off its heap's class list (owner only)
  bool waited;                  // runs: went to the back of its list once since it last served (owner only)
  uint32_t block_size;          // runs and stand-ins: size of every block
  union {
    struct {                    // runs and stand-ins
      uint32_t capacity;        // blocks in the run
      uint32_t used;            // blocks out of the owner's free list (owner only)
    };
    struct {                    // free pages (span.c): the first page and length of the large
      uint32_t hole_at;         // block this page was part of, while its other pages are free
      uint32_t hole_pages;      // too (0: none)
    };
  };
  ws_block *free;               // runs and stand-ins: the owner's free list
  _Atomic(struct ws_heap *) owner;  // runs: the heap that allocates from this run
  // Runs and stand-ins: blocks handed out by the owner since they were last added to its heap's
  // per-class statistics (_ws_run_fold_counts), and `used` then. The blocks taken back meanwhile
  // follow from the two, so freeing counts nothing; counting here, on the line the allocation
  // fast path writes anyway, spares it a store into the heap's arrays.
  uint64_t allocations;
  uint32_t used_at_fold;
  // Above: every field the fast paths write, within the first cache line also where pointers
  // are 8 bytes. Below: what only slow paths write.
  struct ws_page *next, *prev;  // runs and stand-ins: their heap's class or full queue, or the
                                // orphans; a free span's head: its bin
  _Atomic(struct ws_heap *) handed_by;  // runs: the heap that last handed it over as surplus, or NULL
} __attribute__((aligned(WS_CACHE_LINE))) ws_page;
_Static_assert(offsetof(ws_page, used_at_fold) + sizeof(uint32_t) <= WS_CACHE_LINE,
               "the fields the fast paths write share the descriptor's first cache line");
#ifdef __EMSCRIPTEN__
_Static_assert(sizeof(ws_page) == WS_CACHE_LINE, "a page descriptor fills one cache line");
#endif

// A NULL-terminated list of pages linked through next/prev, known by its first (span bins, a
// heap's full runs): `page` goes first, or comes out.
static inline void ws_page_list_push(ws_page **first, ws_page *page) {
  page->prev = NULL;
  page->next = *first;
  if (*first != NULL) (*first)->prev = page;
  *first = page;
}

static inline void ws_page_list_unlink(ws_page **first, ws_page *page) {
  if (page->prev != NULL) page->prev->next = page->next;
  else *first = page->next;
  if (page->next != NULL) page->next->prev = page->prev;
  page->next = page->prev = NULL;
}

// ---------------------------------------------------------------------------------------
// Heaps.
// ---------------------------------------------------------------------------------------
typedef enum ws_heap_state {
  WS_HEAP_LIVE = 0,         // owned by a running thread
  WS_HEAP_ABANDONED,        // its thread exited; waiting to be adopted or reclaimed
  WS_HEAP_BUSY,             // being adopted or reclaimed
} ws_heap_state;

// Statistics counters (and a run's `used`, which the statistics read too) are written only by
// their owner and read by anyone. Plain stores keep the fast path cheap (an atomic store in
// Wasm is sequentially consistent); under ThreadSanitizer they become relaxed atomics so the
// benign races are not reported. The contention probe (bench/contention) also compiles with
// -fsanitize=thread, for its hooks only, and counts what the product does: plain stores.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WS_TSAN 1
#endif
#endif
#if (defined(__SANITIZE_THREAD__) || defined(WS_TSAN)) && !defined(WS_CONTENTION_PROBE)
#define WS_COUNTER_ADD(field, n) __atomic_fetch_add(&(field), (n), __ATOMIC_RELAXED)
#define WS_COUNTER_SUB(field, n) __atomic_fetch_sub(&(field), (n), __ATOMIC_RELAXED)
#define WS_COUNTER_SET(field, n) __atomic_store_n(&(field), (n), __ATOMIC_RELAXED)
#else
#define WS_COUNTER_ADD(field, n) ((field) += (n))
#define WS_COUNTER_SUB(field, n) ((field) -= (n))
#define WS_COUNTER_SET(field, n) ((field) = (n))
#endif
#define WS_COUNTER_READ(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

typedef struct ws_heap {
  // direct[(size + 15) / 16]: the first run of the class of `size`, for small sizes, so the
  // fast path needs no size-class computation. Kept equal to avail[class] by the run queues
  // (queue.c), which make every change to avail, avail_last, full and full_runs.
  ws_page *direct[WS_DIRECT_MAX / 16 + 1];
  ws_page *avail[WS_CLASSES];      // runs with (probably) free blocks; first is tried first
  ws_page *avail_last[WS_CLASSES]; // the last run of each list (NULL when empty)
  // Per class, runs marked full (in_full), linked through next/prev, and how many: they rejoin the
  // class list when blocks come back (free.c), or all at once before the heap takes a run from
  // the pool, looks for surplus runs, or is abandoned.
  ws_page *full[WS_CLASSES];
  uint16_t full_runs[WS_CLASSES];
  // Per class: whether sending used-up runs to the back of the list pays (slow_path.c), counted up
  // when such a run has free blocks again at its turn, down when it has none.
  int8_t waiting_pays[WS_CLASSES];
  // Per class, used-up runs met while that score is negative, counting round: every so many
  // waits anyway, so the score can recover (slow_path.c).
  uint8_t waiting_probes[WS_CLASSES];
  // Per class, slow-path switches to a run with free blocks, counting round: the first of
  // every WS_SURPLUS_EVERY (or WS_PASSED_SURPLUS_EVERY) looks for surplus runs to hand over.
  uint8_t run_switches[WS_CLASSES];
  // Per class, of the blocks kept (kept[class].capacity), those of runs this heap handed over as
  // surplus itself (kept.c): its own blocks, no sign that threads pass blocks of the class.
  uint32_t own_kept[WS_CLASSES];
  // Per class, the blocks kept less own_kept at the last look for surplus: more since then mean
  // threads pass blocks of the class (slow_path.c).
  uint32_t passed_at_look[WS_CLASSES];
  _Atomic uintptr_t delayed_free;  // blocks freed remotely into full runs (a list)
  // Emptied runs kept for the next fresh run of the same length, so a thread that cycles
  // through memory does not take the pool lock for every run (linked through next).
  ws_page *spare_runs;
  uint32_t spare_pages;            // their pages (spare_limit in free.c)
  // Per class, blocks of other heaps' runs this heap hands out before its own (kept.c): ones
  // its thread freed, and pending frees taken over (steal.c). Stand-in runs, never in the
  // page map, first in their class list while they have blocks.
  ws_page kept[WS_CLASSES];
  bool keeps_foreign;              // a thread's heap (not the builtin or exited one): may keep
  uint32_t steal_cursor;           // page index where the next search for pending frees starts
  _Atomic int state;               // ws_heap_state
  struct ws_heap *next_heap;       // all heaps ever made (never freed, so lists stay valid)
  // Statistics, written by the owner only. Per class, allocations and frees counted so far;
  // those since a run's last fold are still in the run (ws_page.allocations). Bytes in use
  // follow from them (blocks of a class all have the class's size).
  uint64_t class_allocations[WS_CLASSES];
  uint64_t class_frees[WS_CLASSES];          // frees the owner has taken back, local or remote
  uint64_t large_allocations;
  uint64_t cross_thread_frees;               // frees this thread made into other heaps' runs
  uint64_t kept_blocks;                      // of those, blocks this heap kept to hand out (kept.c)
  uint64_t kept_own_blocks;                  // of those, blocks of runs it had handed over (kept.c)
  uint64_t borrowed_blocks;                  // blocks taken from other heaps' pending frees (steal.c)
  uint64_t larger_class_blocks;              // served from a larger class instead of new memory (slow_path.c)
  uint64_t runs_marked_full;                 // used-up runs taken off the class lists (slow_path.c)
  uint64_t run_bytes;                        // bytes of the runs this heap holds
  uint64_t run_bytes_peak;
} ws_heap;

// ---------------------------------------------------------------------------------------
// Size classes (size_class.c).
// ---------------------------------------------------------------------------------------
static inline unsigned ws_size_class(size_t size) {
  if (size <= 128) return size == 0 ? 0 : (unsigned)((size - 1) >> 4);
  unsigned bit = 31u - (unsigned)__builtin_clz((unsigned)(size - 1));  // 2^bit < size <= 2^(bit+1)
  unsigned step_shift = bit - 3;
  unsigned index = (unsigned)((size - 1 - ((size_t)1 << bit)) >> step_shift);
  return 8 + (bit - 7) * 8 + index;
}
// The block size of a class: inline, since the slow paths ask for it at every change of a
// class list's first run.
static inline size_t ws_class_size(unsigned size_class) {
  if (size_class < 8) return ((size_t)size_class + 1) * 16;
  unsigned bit = 7 + (size_class - 8) / 8;
  unsigned index = (size_class - 8) % 8;
  return ((size_t)1 << bit) + ((size_t)(index + 1) << (bit - 3));
}
uint32_t _ws_class_run_pages(unsigned size_class);
// The heap->direct slots of a class: [first, last], empty (first > last) above WS_DIRECT_MAX.
static inline unsigned ws_class_direct_first(unsigned size_class) {
  return size_class == 0 ? 0 : (unsigned)(ws_class_size(size_class - 1) / 16 + 1);
}
static inline unsigned ws_class_direct_last(unsigned size_class) {
  size_t size = ws_class_size(size_class);
  return size <= WS_DIRECT_MAX ? (unsigned)(size / 16) : 0;
}

// ---------------------------------------------------------------------------------------
// Page map (pagemap.c): pointer -> descriptor.
// ---------------------------------------------------------------------------------------
extern ws_page *_ws_page_map[WS_MAP_CHUNKS];
extern uintptr_t _ws_window_base;
#ifdef __EMSCRIPTEN__
#define WS_WINDOW_BASE ((uintptr_t)0)  // linear memory: a constant saves a load per free
#else
#define WS_WINDOW_BASE _ws_window_base
#endif

static inline ws_page *ws_page_at_index(size_t index) {
  if (ws_unlikely(index >= WS_WINDOW_PAGES)) return NULL;
  ws_page *chunk = _ws_page_map[index / WS_MAP_CHUNK_PAGES];
  return chunk ? &chunk[index % WS_MAP_CHUNK_PAGES] : NULL;
}

// The descriptor of the page holding p, or NULL outside the page map. Its head is never NULL:
// a page of no span (kind WS_PAGE_UNUSED) is its own, so the free fast path, which checks the
// head's kind anyway, needs no test for it.
static inline ws_page *ws_page_of(const void *p) {
  uintptr_t offset = (uintptr_t)p - WS_WINDOW_BASE;
#if UINTPTR_MAX > 0xffffffffu  // in wasm32 the window is the whole address space
  if (ws_unlikely(offset >= WS_WINDOW_MAX)) return NULL;
#endif
  return ws_page_at_index(offset >> WS_PAGE_SHIFT);
}

// The head descriptor of the span holding p: NULL, or one of kind WS_PAGE_UNUSED, if p is not
// in allocator memory.
static inline ws_page *ws_span_of(const void *p) {
  ws_page *page = ws_page_of(p);
  return page ? page->head : NULL;
}

// A run's blocks freed by other threads wait on a list (| WS_NOTIFY_OWNER) whose head is kept
// apart from the run's descriptor: the owner's fast paths write the descriptor's cache line,
// and a remote free's push onto that line would take it from the owner's core at every such
// free, and the owner's next malloc or free take it back. The heads of WS_REMOTE_HEADS_PAGES
// consecutive pages fill one page of memory, taken with the page map's chunks (pagemap.c);
// a page that heads no run has an empty list. Runs only: a stand-in (kept.c) has no page.
#define WS_REMOTE_HEADS_PAGES (WS_PAGE_SIZE / sizeof(uintptr_t))
extern _Atomic uintptr_t *_ws_remote_heads[WS_WINDOW_PAGES / WS_REMOTE_HEADS_PAGES];
static inline _Atomic uintptr_t *ws_thread_free(const ws_page *run) {
  _Atomic uintptr_t *head = &_ws_remote_heads[run->index / WS_REMOTE_HEADS_PAGES][run->index % WS_REMOTE_HEADS_PAGES];
  ws_prim_see_memory(head, sizeof *head);  // its page may be memory another thread just grew
  return head;
}

static inline unsigned char *ws_page_address(const ws_page *page) {
  return (unsigned char *)(WS_WINDOW_BASE + ((uintptr_t)page->index << WS_PAGE_SHIFT));
}

static inline size_t ws_address_index(uintptr_t address) {
  return (size_t)((address - WS_WINDOW_BASE) >> WS_PAGE_SHIFT);
}

// Makes descriptors exist for pages [first, first + count); false when out of memory. A chunk
// of descriptors fills whole pages, which come from take_pages(bytes) (NULL: none to give) or
// else from the platform. Caller holds the pool lock.
bool _ws_map_ensure(size_t first, size_t count, void *(*take_pages)(size_t bytes));

// ---------------------------------------------------------------------------------------
// Span pool (span.c): the only lock, taken for runs and large blocks.
// ---------------------------------------------------------------------------------------
// Where a span may come from.
typedef enum {
  WS_SPAN_SMALL_FREE,  // free spans under WS_SPAN_BINS pages only: the large ones stay whole
  WS_SPAN_ANY_FREE,    // any free span
  WS_SPAN_MAY_GROW,    // any free span, else more memory from the platform
} ws_span_source;
// A span of `pages` whose start is aligned to `alignment` (a power of two; a page or more is
// honoured exactly), marked `kind` with every other page pointing at the head. NULL: none
// from `source`.
ws_page *_ws_span_alloc(size_t pages, size_t alignment, ws_page_kind kind, ws_span_source source);
// The same, but first from free memory, then from what exited threads left, then (may_grow) by
// growing.
ws_page *_ws_span_alloc_reclaiming(size_t pages, size_t alignment, ws_page_kind kind, bool may_grow);
void _ws_span_free(ws_page *head);
void _ws_span_free_runs(ws_page *first);            // runs linked through next, under one lock
bool _ws_span_extend(ws_page *head, size_t pages);  // grow a large block in place
void _ws_span_stats(ws_alloc_stats *stats, uint64_t *large_peak);  // pool counts, large blocks
void _ws_span_add_run_counts(uint64_t *allocations, uint64_t *frees);  // runs' unfolded counts, by class
bool _ws_span_trim(void);                           // give the free top back to the platform

// ---------------------------------------------------------------------------------------
// Heaps (heap.c) and the allocation/free paths (slow_path.c, free.c).
// ---------------------------------------------------------------------------------------
// The calling thread's heap as the fast paths see it: NULL before its first allocation, and
// a heap that never has free blocks once the thread has exited.
// Natively the allocator may be a shared library (LD_PRELOAD): the initial-exec model reads
// the variable at a fixed offset from the thread pointer instead of calling __tls_get_addr.
#if defined(__EMSCRIPTEN__) || !defined(__ELF__)
#define WS_TLS_MODEL
#else
#define WS_TLS_MODEL __attribute__((tls_model("initial-exec")))
#endif
extern WS_TLS_MODEL _Thread_local ws_heap *_ws_current_heap;
extern ws_page _ws_empty_run;
extern ws_heap _ws_exited_heap;
ws_heap *_ws_heap_current(void);         // the calling thread's heap, created on first use;
                                         // NULL once the thread has exited
ws_heap *_ws_heap_builtin_lock(void);    // the shared, locked heap for code without TLS
void _ws_heap_builtin_unlock(void);
ws_heap *_ws_heap_list(void);
void _ws_heap_reclaim_abandoned(void);   // returns empty runs of abandoned heaps to the pool
bool _ws_heaps_abandoned(void);          // some heap waits to be adopted

// Takes the first free block of `run` (which must have one), for its owner.
static inline void *_ws_pop_block(ws_page *run) {
  ws_block *block = run->free;
  run->free = block->next;
  WS_COUNTER_ADD(run->used, 1);
  WS_COUNTER_ADD(run->allocations, 1);
  return block;
}

// Starts loading a block's first cache line without waiting for it. Wasm has no prefetch
// instruction, but a load whose value nobody waits for does the same on an out-of-order CPU.
// NULL does nothing. (A prefetch never faults, so natively it costs no test; in Wasm, reading
// address 0 would stop a -sSAFE_HEAP build.)
static inline void ws_prefetch(const ws_block *block) {
#ifdef __EMSCRIPTEN__
  if (block != NULL) (void)*(const volatile char *)block;
#else
  __builtin_prefetch(block);
#endif
}

// _ws_pop_block for blocks of at most WS_DIRECT_MAX bytes, which also starts loading the next
// free block: the caller is about to write the block it gets, and the miss on one freed long
// ago was the largest single cost on the small-block workload. Larger blocks do without: for
// them the extra load cost more than it saved (docs/decisions.md, "the allocator's measured
// choices").
static inline void *_ws_pop_small_block(ws_page *run) {
  void *block = _ws_pop_block(run);
  ws_prefetch(run->free);
  return block;
}

// Whether `heap` owns `run`, for the free fast path. Only the owning thread makes a run its own
// or gives it away, so a racy read cannot make the answer wrong for the caller's own heap. In
// Wasm it is a plain load: an atomic one traps on a descriptor in memory another thread has just
// grown (platform.h), and checking for that first cost the fast path measurably
// (docs/decisions.md, "the allocator's measured choices"); the remote path (_ws_free_in) checks
// before its atomics. Natively a relaxed atomic load (TSan knows it).
static inline bool ws_owner_is(const ws_page *run, const ws_heap *heap) {
#ifdef __EMSCRIPTEN__
  return *(struct ws_heap *const volatile *)&run->owner == heap;
#else
  return atomic_load_explicit(&run->owner, memory_order_relaxed) == heap;
#endif
}

// Returns a block to its own run, for the run's owner. The rare cases (the run was full, or is
// now empty) are out of line.
void _ws_free_local_rare(ws_heap *heap, ws_page *run);
static inline void _ws_free_local(ws_heap *heap, ws_page *run, ws_block *block) {
  ws_assert(run->kind == WS_PAGE_RUN && ws_owner_is(run, heap) && run->used > 0);
  block->next = run->free;
  run->free = block;
  WS_COUNTER_SUB(run->used, 1);
  if (ws_unlikely(run->in_full || run->used == 0)) _ws_free_local_rare(heap, run);
}

// Run queues (queue.c): a class's runs with free blocks, first served first, and its full runs.
void _ws_queue_set_first(ws_heap *heap, unsigned size_class, ws_page *run);
void _ws_queue_push_front(ws_heap *heap, unsigned size_class, ws_page *run);
void _ws_queue_remove(ws_heap *heap, ws_page *run);
void _ws_queue_move_to_front(ws_heap *heap, ws_page *run);
void _ws_queue_move_to_back(ws_heap *heap, ws_page *run);
void _ws_queue_insert_second(ws_heap *heap, ws_page *run);  // behind the first: the fast path's stays
void _ws_full_queue_push(ws_heap *heap, ws_page *run);      // marks it in_full
void _ws_full_queue_remove(ws_heap *heap, ws_page *run);
void *_ws_heap_alloc_slow(ws_heap *heap, unsigned size_class, size_t alignment);
// Debug builds (WS_DEBUG=2): the heap's lists for one class, or for all, checked (validate.c).
#if WS_DEBUG >= 2
void _ws_heap_validate_class(const ws_heap *heap, unsigned size_class);
void _ws_heap_validate(const ws_heap *heap);
#define ws_validate_heap_class(heap, size_class) _ws_heap_validate_class(heap, size_class)
#define ws_validate_heap(heap) _ws_heap_validate(heap)
#else
#define ws_validate_heap_class(heap, size_class) ((void)0)
#define ws_validate_heap(heap) ((void)0)
#endif
void *_ws_alloc_aligned(ws_heap *heap, size_t alignment, size_t size);
void _ws_free_in(ws_heap *heap, void *p);         // heap: the caller's heap (may be NULL)
void _ws_collect_delayed(ws_heap *heap);
void _ws_run_collect(ws_page *run);
void _ws_run_release_if_empty(ws_heap *heap, ws_page *run);
ws_page *_ws_rejoin_full_runs(ws_heap *heap, unsigned size_class);  // NULL: none has a free block
// Gives the pool all the heap's spares, and `released` (runs already counted out of the heap,
// linked through next, or NULL), under one lock.
void _ws_release_spares_with(ws_heap *heap, ws_page *released);
// Per class: set when a remote free starts a pending list on a run of the class, cleared by a
// search for the class that finds none (steal.c). Stored only when it changes, so the line
// stays shared while frees keep arriving.
extern _Atomic bool _ws_pending_lists[WS_CLASSES];
static inline void _ws_note_pending_list(unsigned size_class) {
  if (!atomic_load_explicit(&_ws_pending_lists[size_class], memory_order_relaxed)) {
    atomic_store_explicit(&_ws_pending_lists[size_class], true, memory_order_relaxed);
  }
}
bool _ws_steal_pending(ws_heap *heap, unsigned size_class);  // false: none found
void _ws_free_remote(ws_page *run, ws_block *block);          // onto the run's owner's lists
// Orphaned runs (orphan.c): partly used runs handed from one heap to another.
extern ws_heap _ws_orphanage;                                   // owns every orphan
// A listed run with free blocks leaves its heap for `batch` (linked through next), which
// _ws_hand_over then puts on the orphan lists under one lock.
void _ws_orphan_run(ws_heap *heap, ws_page *run, ws_page **batch);
void _ws_hand_over(ws_page *batch);
void _ws_hand_off_surplus(ws_heap *heap, ws_page *serving, uint32_t reserve);  // beyond `reserve` free blocks
ws_page *_ws_adopt_orphan(ws_heap *heap, unsigned size_class);  // NULL: none of the class
void _ws_release_empty_orphans(void);                           // orphans all of whose blocks came back
bool _ws_orphans_waiting(void);                                 // some run waits to be adopted
void _ws_orphan_stats(ws_alloc_stats *stats);
// Kept blocks (kept.c): other heaps' blocks this heap hands out before its own.
static inline bool ws_is_stand_in(const ws_page *run) { return run->kind == WS_PAGE_STAND_IN; }
void _ws_kept_reset(ws_heap *heap);
bool _ws_keep(ws_heap *heap, ws_page *run, ws_block *block);  // false: over the bound
uint32_t _ws_keep_list(ws_heap *heap, unsigned size_class, ws_block *list);  // returns the count
bool _ws_has_run_of(const ws_heap *heap, unsigned size_class);  // listed (besides its stand-in) or full
void _ws_return_kept(ws_heap *heap);                           // all of them to their owners
size_t _ws_usable_size(const void *p);

// Statistics (stats.c).
void _ws_run_fold_counts(ws_heap *heap, ws_page *run);    // owner only: run's counts into the heap's
void _ws_run_add_counts(const ws_page *run, uint64_t *allocations, uint64_t *frees);  // its unfolded counts, by class
void _ws_note_run_taken(ws_heap *heap, ws_page *run);     // owner only
void _ws_note_run_released(ws_heap *heap, ws_page *run);  // owner only

// Checked mode (check.c). The API layer asks for _ws_check_front(alignment) bytes before each
// block and WS_CHECK_BACK after it, and gives the program the pointer after_alloc returns.
#if WS_CHECKED
#define WS_CHECK_BACK 8
size_t _ws_check_front(size_t alignment);
void *_ws_check_after_alloc(void *block, size_t front, size_t requested);
void _ws_check_free(ws_heap *heap, void *p);  // checks, then quarantines or frees
size_t _ws_check_requested_size(const void *p);
#endif

// Prints "wasmscale: <problem> (address 0x...)" on one line and aborts.
_Noreturn void _ws_fatal(const char *problem, const void *address);

#pragma GCC visibility pop

#endif
