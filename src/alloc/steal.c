// Reusing pending remote frees. Blocks freed by other threads wait on their run's list
// (ws_thread_free) until the owner collects them, which it does only on its own slow path. An
// owner that is not allocating (descheduled: the usual case with more threads than cores)
// strands them while the threads that are allocating take fresh memory. So before taking a run
// from the pool, a heap looks for a run of the class it needs with pending frees and takes the
// whole list (one atomic compare-and-swap; the owner's collection is the same operation, so
// exactly one of them gets it).
//
// The blocks stay their run's: the owner still counts them as in use, and when freed again
// they go back to it like any remote free. The heap serves them as kept blocks (kept.c).
#include "internal.h"

// Takes the pending list of `run` if it is a run of `size_class` another heap owns.
static ws_block *take_pending(ws_heap *heap, ws_page *run, unsigned size_class) {
  _Atomic uintptr_t *pending = ws_thread_free(run);
  uintptr_t list = atomic_load_explicit(pending, memory_order_relaxed);
  // Zero: nothing pending (or not a run head at all: only run heads ever get a list).
  // The flag: a full run whose next free must reach its owner; leave that protocol alone.
  if (list == 0 || (list & WS_NOTIFY_OWNER) != 0) return NULL;
  if (__atomic_load_n(&run->size_class, __ATOMIC_RELAXED) != size_class) return NULL;
  ws_heap *owner = atomic_load_explicit(&run->owner, memory_order_relaxed);
  if (owner == heap) return NULL;
  // An exited thread's runs are reclaimed whole before a large free span is cut (slow_path.c);
  // borrowed blocks would keep them from emptying (test_large_hole).
  ws_prim_see_memory(owner, sizeof *owner);
  if (atomic_load_explicit(&owner->state, memory_order_relaxed) == WS_HEAP_ABANDONED) return NULL;
  if (!atomic_compare_exchange_strong_explicit(pending, &list, 0, memory_order_acquire,
                                               memory_order_relaxed)) {
    return NULL;
  }
  // The run may have been emptied and reused for another class since size_class was read,
  // with a list that happens to start at the same address: check again now that the CAS
  // ordered us after the frees, and put a list of the wrong class back.
  if (__atomic_load_n(&run->size_class, __ATOMIC_RELAXED) != size_class) {
    ws_block *last = (ws_block *)list;
    while (last->next != NULL) last = last->next;
    uintptr_t head = atomic_load_explicit(pending, memory_order_relaxed);
    do {
      last->next = (ws_block *)(head & ~WS_NOTIFY_OWNER);
    } while (!atomic_compare_exchange_weak_explicit(pending, &head, list | (head & WS_NOTIFY_OWNER),
                                                    memory_order_release, memory_order_relaxed));
    return NULL;
  }
  return (ws_block *)list;
}

_Atomic bool _ws_pending_lists[WS_CLASSES];

bool _ws_steal_pending(ws_heap *heap, unsigned size_class) {
  if (!atomic_load_explicit(&_ws_pending_lists[size_class], memory_order_relaxed)) return false;
  ws_block *list = NULL;
  uint32_t index = heap->steal_cursor;
  unsigned looked = 0, chunks_skipped = 0;
  while (looked < WS_STEAL_SCAN && list == NULL && chunks_skipped <= WS_MAP_CHUNKS) {
    if (index >= WS_WINDOW_PAGES) index = 0;
    ws_page *chunk = __atomic_load_n(&_ws_page_map[index / WS_MAP_CHUNK_PAGES], __ATOMIC_ACQUIRE);
    if (chunk == NULL) {  // memory never reached here: on to the next chunk
      index = (index / WS_MAP_CHUNK_PAGES + 1) * WS_MAP_CHUNK_PAGES;
      chunks_skipped++;
      continue;
    }
    ws_prim_see_memory(chunk, WS_MAP_CHUNK_PAGES * sizeof *chunk);  // made by whichever thread grew
    list = take_pending(heap, &chunk[index % WS_MAP_CHUNK_PAGES], size_class);
    index++;
    looked++;
  }
  heap->steal_cursor = index;
  if (list == NULL) {
    atomic_store_explicit(&_ws_pending_lists[size_class], false, memory_order_relaxed);
    return false;
  }

  WS_COUNTER_ADD(heap->borrowed_blocks, _ws_keep_list(heap, size_class, list));
  return true;
}
