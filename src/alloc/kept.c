// Kept blocks: a thread that frees a block of another heap's run keeps it, up to a bound per
// size class, and hands it out again itself, instead of sending it back to the owner.
//
// Why: when threads pass blocks to each other (one allocates, another frees), sending every
// block home means each thread's runs empty only when their owner next collects, and each
// owner needs fresh runs meanwhile; with more threads than cores an owner that is descheduled
// collects nothing at all. Memory then grows with the number of threads (docs/decisions.md, "the
// allocator's measured choices"). A thread that allocates about as much as it frees instead recycles the
// blocks it frees, and the blocks in circulation stay close to the live ones. Kept blocks also
// cost no atomic operation: the free is a push onto a list only this thread touches.
//
// The blocks stay their run's: its owner still counts them in use, so the run is not given
// back while any of them is kept. Past the bound (WS_KEEP_BYTES per class) a free goes to the
// owner as before, so a thread that only frees holds at most the bound; an exiting thread
// returns all it kept. Each class keeps its blocks on a stand-in run (heap->kept[class]), never
// in the page map, put first in the class list while it holds blocks, so the allocation fast
// path serves them unchanged. Its `capacity` counts blocks put in and `used` blocks handed out
// (the fast path counts those), so the difference is what it holds.
#include "internal.h"

void _ws_kept_reset(ws_heap *heap) {
  for (unsigned size_class = 0; size_class < WS_CLASSES; size_class++) {
    ws_page *stand_in = &heap->kept[size_class];
    stand_in->kind = WS_PAGE_STAND_IN;
    stand_in->size_class = (uint8_t)size_class;
    stand_in->block_size = (uint32_t)ws_class_size(size_class);
  }
}

static uint32_t keep_bound(const ws_page *stand_in) {
  uint32_t blocks = (uint32_t)(WS_KEEP_BYTES / stand_in->block_size);
  if (blocks > WS_KEEP_MAX_BLOCKS) return WS_KEEP_MAX_BLOCKS;
  return blocks > 0 ? blocks : 1;
}

static bool is_listed(const ws_heap *heap, const ws_page *stand_in) {
  return heap->avail[stand_in->size_class] == stand_in || stand_in->prev != NULL;
}

// First in the class list, so the fast path hands its blocks out before the heap's own.
static void put_first(ws_heap *heap, ws_page *stand_in) {
  if (heap->avail[stand_in->size_class] == stand_in) return;
  if (is_listed(heap, stand_in)) _ws_queue_remove(heap, stand_in);
  _ws_queue_push_front(heap, stand_in->size_class, stand_in);
}

// Whether the heap has a run of the class (listed after its stand-in, if that is first, or full).
bool _ws_has_run_of(const ws_heap *heap, unsigned size_class) {
  const ws_page *first = heap->avail[size_class];
  if (heap->full[size_class] != NULL) return true;
  return first != &_ws_empty_run && (!ws_is_stand_in(first) || first->next != NULL);
}

bool _ws_keep(ws_heap *heap, ws_page *run, ws_block *block) {
  if (!heap->keeps_foreign) return false;
  // A handed-over run's blocks go back to it: kept, they would circulate through this path
  // for as long as the run stays unadopted, and the run would never fill with free blocks
  // worth adopting.
  if (atomic_load_explicit(&run->owner, memory_order_relaxed) == &_ws_orphanage) return false;
  // Only for a class this heap allocates itself (it has a run of it): a thread that frees what
  // others allocated would hold the blocks until it exits, out of everyone's reach.
  unsigned size_class = run->size_class;
  if (!_ws_has_run_of(heap, size_class)) return false;
  ws_page *stand_in = &heap->kept[size_class];
  if (stand_in->capacity - stand_in->used >= keep_bound(stand_in)) return false;
  block->next = stand_in->free;
  stand_in->free = block;
  stand_in->capacity++;
  // A block of a run this heap handed over as surplus, adopted since, is its own: kept like any
  // other, but no sign that threads pass blocks (slow_path.c's look for surplus). Counted as
  // one, it made the class look like one where they do, where hand-overs come more often: more
  // of the heap's runs changed heaps, and more of its own frees were kept, which fed itself.
  if (atomic_load_explicit(&run->handed_by, memory_order_relaxed) == heap) {
    heap->own_kept[size_class]++;
    WS_COUNTER_ADD(heap->kept_own_blocks, 1);
  }
  // Taken in for the owner, as its collection would; handed out again, it counts as this
  // heap's allocation, so the sum over heaps stays the bytes in use.
  WS_COUNTER_ADD(heap->class_frees[size_class], 1);
  WS_COUNTER_ADD(heap->kept_blocks, 1);
  put_first(heap, stand_in);
  return true;
}

uint32_t _ws_keep_list(ws_heap *heap, unsigned size_class, ws_block *list) {
  ws_page *stand_in = &heap->kept[size_class];
  ws_block *last = list;
  uint32_t count = 1;
  for (; last->next != NULL; last = last->next) count++;
  last->next = stand_in->free;
  stand_in->free = list;
  stand_in->capacity += count;
  WS_COUNTER_ADD(heap->class_frees[size_class], count);  // as in _ws_keep
  put_first(heap, stand_in);
  return count;
}

void _ws_return_kept(ws_heap *heap) {
  for (unsigned size_class = 0; size_class < WS_CLASSES; size_class++) {
    ws_page *stand_in = &heap->kept[size_class];
    if (is_listed(heap, stand_in)) _ws_queue_remove(heap, stand_in);
    while (stand_in->free != NULL) {
      ws_block *block = stand_in->free;
      stand_in->free = block->next;
      WS_COUNTER_SUB(heap->class_frees[size_class], 1);  // the owner counts it now
      _ws_free_remote(ws_span_of(block), block);
    }
    _ws_run_fold_counts(heap, stand_in);  // then emptied: used and its fold value go back to 0
    stand_in->capacity = 0;
    heap->own_kept[size_class] = 0;
    WS_COUNTER_SET(stand_in->used, 0);
    WS_COUNTER_SET(stand_in->used_at_fold, 0);
  }
}
