// Per-thread heaps: created on a thread's first allocation, abandoned when it exits, adopted
// by the next new thread (with all their runs), so threads that come and go reuse memory
// instead of growing it. Heap structs are never freed: remote frees may still point at one.
//
// Code that runs before a thread's TLS exists (Emscripten allocates each thread's TLS block
// with emscripten_builtin_memalign) and threads past their exit use the builtin heap, a heap
// like the others but shared under a lock and never abandoned.
#include <string.h>

#include "internal.h"

// A run with no free blocks: every empty class list points here, so the allocation fast path
// needs no NULL test. Never written.
ws_page _ws_empty_run;

WS_TLS_MODEL _Thread_local ws_heap *_ws_current_heap;
ws_heap _ws_exited_heap;  // marks a thread whose heap was abandoned; never allocates
static ws_heap builtin_heap;
static ws_prim_lock builtin_lock = WS_PRIM_LOCK_INIT;
static _Atomic(ws_heap *) all_heaps;
static _Atomic bool initialised;
static ws_prim_lock init_lock = WS_PRIM_LOCK_INIT;
static _Atomic uint32_t abandoned_heaps;  // not yet adopted

static void heap_reset(ws_heap *heap) {
  memset(heap, 0, sizeof *heap);
  for (unsigned i = 0; i < WS_CLASSES; i++) _ws_queue_set_first(heap, i, &_ws_empty_run);
  _ws_kept_reset(heap);
}

static void heap_register(ws_heap *heap) {
  ws_heap *head = atomic_load(&all_heaps);
  do {
    heap->next_heap = head;
  } while (!atomic_compare_exchange_weak(&all_heaps, &head, heap));
}

static void init_once(void) {
  if (atomic_load_explicit(&initialised, memory_order_acquire)) return;
  ws_prim_lock_acquire(&init_lock);
  if (!atomic_load(&initialised)) {
    heap_reset(&builtin_heap);
    heap_reset(&_ws_exited_heap);
    heap_reset(&_ws_orphanage);
    heap_register(&builtin_heap);
    heap_register(&_ws_orphanage);
    atomic_store_explicit(&initialised, true, memory_order_release);
  }
  ws_prim_lock_release(&init_lock);
}

ws_heap *_ws_heap_list(void) {
  init_once();
  return atomic_load(&all_heaps);
}

ws_heap *_ws_heap_builtin_lock(void) {
  init_once();
  ws_prim_lock_acquire(&builtin_lock);
  return &builtin_heap;
}

void _ws_heap_builtin_unlock(void) { ws_prim_lock_release(&builtin_lock); }

// Owner work on a heap nobody runs: take in remote frees, return empty runs to the pool and
// hand runs with free blocks to the heaps still running (orphan.c). Full runs stay, for the
// thread that adopts this heap; those with blocks back (too few to have rejoined) go first.
static void tidy(ws_heap *heap) {
  ws_validate_heap(heap);
  _ws_return_kept(heap);
  _ws_collect_delayed(heap);
  ws_page *emptied = NULL;  // given back together, under one pool lock, with the spares
  ws_page *handed = NULL;   // handed over together, under one orphan lock
  for (unsigned size_class = 0; size_class < WS_CLASSES; size_class++) {
    _ws_rejoin_full_runs(heap, size_class);
    ws_page *run = heap->avail[size_class];
    while (run != &_ws_empty_run && run != NULL) {
      ws_page *next = run->next;
      _ws_run_collect(run);
      if (run->used == 0) {
        // Unlink and give back even the last run of its class: nobody allocates here.
        _ws_queue_remove(heap, run);
        _ws_run_fold_counts(heap, run);  // (_ws_orphan_run folds the runs it hands over)
        _ws_note_run_released(heap, run);
        run->next = emptied;
        emptied = run;
      } else if (run->free != NULL) {
        _ws_orphan_run(heap, run, &handed);
      }
      run = next;
    }
  }
  _ws_hand_over(handed);
  _ws_release_spares_with(heap, emptied);
}

static void abandon(void *arg) {
  ws_heap *heap = arg;
  _ws_current_heap = &_ws_exited_heap;
  // Counted from now on, and so before it is marked: a thread that starts meanwhile waits for
  // this heap (adopt_abandoned), and the adopter counts it out.
  atomic_fetch_add_explicit(&abandoned_heaps, 1, memory_order_relaxed);
  tidy(heap);
  // Runs this thread handed over earlier may have had their last blocks back meanwhile
  // (often from this thread, just now): give those to the pool.
  _ws_release_empty_orphans();
  atomic_store_explicit(&heap->state, WS_HEAP_ABANDONED, memory_order_release);
}

// Heaps and their runs' descriptors may lie in memory other threads grew: see platform.h.
static bool claim(ws_heap *heap, int from, int to) {
  ws_prim_see_memory(heap, sizeof *heap);
  int expected = from;
  if (!atomic_compare_exchange_strong(&heap->state, &expected, to)) return false;
  ws_prim_see_all_memory(NULL);  // its runs
  return true;
}

bool _ws_heaps_abandoned(void) { return atomic_load_explicit(&abandoned_heaps, memory_order_relaxed) != 0; }

void _ws_heap_reclaim_abandoned(void) {
  for (ws_heap *heap = _ws_heap_list(); heap != NULL; heap = heap->next_heap) {
    if (claim(heap, WS_HEAP_ABANDONED, WS_HEAP_BUSY)) {
      tidy(heap);
      atomic_store_explicit(&heap->state, WS_HEAP_ABANDONED, memory_order_release);
    }
  }
}

// Threads that come and go must reuse heaps, not add to them. A counted heap may not be
// claimable for a moment: its thread is still tidying it on the way out, or another thread is
// returning its empty runs (BUSY). Both are bounded walks, so a new thread waits for them
// rather than make a heap, which would be one heap too many for good (docs/decisions.md,
// "the allocator's measured choices").
static ws_heap *adopt_abandoned(void) {
  for (;;) {
    for (ws_heap *heap = _ws_heap_list(); heap != NULL; heap = heap->next_heap) {
      if (claim(heap, WS_HEAP_ABANDONED, WS_HEAP_LIVE)) {
        atomic_fetch_sub_explicit(&abandoned_heaps, 1, memory_order_relaxed);
        return heap;
      }
    }
    if (atomic_load_explicit(&abandoned_heaps, memory_order_relaxed) == 0) return NULL;
    ws_prim_yield();
  }
}

static ws_heap *create_heap(void) {
  ws_heap *heap = adopt_abandoned();
  if (heap == NULL) {
    ws_heap *builtin = _ws_heap_builtin_lock();
    heap = _ws_alloc_aligned(builtin, 64, sizeof *heap);
    _ws_heap_builtin_unlock();
    if (heap == NULL) return NULL;
    heap_reset(heap);
    heap_register(heap);
  }
  heap->keeps_foreign = true;
  _ws_current_heap = heap;
  ws_prim_on_thread_exit(abandon, heap);
  return heap;
}

ws_heap *_ws_heap_current(void) {
  ws_heap *heap = _ws_current_heap;
  if (ws_likely(heap != NULL)) return heap == &_ws_exited_heap ? NULL : heap;
  init_once();
  return create_heap();
}
