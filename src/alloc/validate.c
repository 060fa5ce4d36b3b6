// Validators of debug builds (WS_DEBUG=2, src/platform/debug.h): walks over a heap's run lists
// that check what internal.h and slow_path.c state of them. Their owner calls them, at points where
// the lists are complete (the slow path's start, a heap's tidying at exit). The span pool
// validates itself under its lock (span.c).
#include "internal.h"

#if WS_DEBUG >= 2

// A run's free list: blocks of the run, on block boundaries, and as many as the run has out of
// use (`used` counts every block not on it, remote frees not yet collected included).
static void validate_free_list(const ws_page *run) {
  const unsigned char *base = ws_page_address(run);
  size_t span = (size_t)run->capacity * run->block_size;
  uint32_t length = 0;
  for (const ws_block *block = run->free; block != NULL; block = block->next) {
    size_t offset = (size_t)((const unsigned char *)block - base);
    ws_assert((const unsigned char *)block >= base && offset < span);
    ws_assert(offset % run->block_size == 0);
    ws_assert(length < run->capacity);  // (a cycle would loop here for ever)
    length++;
  }
  ws_assert(length + run->used == run->capacity);
}

// A run of `heap`'s lists for `size_class`, on the full list or not: the heap owns it, it is a
// run of that class, and the flags say which list it is on.
static void validate_run(const ws_heap *heap, const ws_page *run, unsigned size_class, bool full, bool blocks) {
  ws_assert(run->kind == WS_PAGE_RUN && run->head == run);
  ws_assert(run->size_class == size_class && run->block_size == ws_class_size(size_class));
  ws_assert(ws_owner_is(run, heap));
  ws_assert(run->in_full == full);
  ws_assert(run->used <= run->capacity);
  ws_assert(run->capacity == run->pages * WS_PAGE_SIZE / run->block_size);
  if (blocks) validate_free_list(run);
}

// `size_class`'s queue of runs with free blocks (runs and at most its stand-in, linked both ways,
// ending at avail_last, the first mirrored in `direct`) and its full queue (as many runs as
// counted). `blocks`: walk every run's free list too.
static void validate_class(const ws_heap *heap, unsigned size_class, bool blocks) {
  const ws_page *first = heap->avail[size_class];
  for (unsigned i = ws_class_direct_first(size_class), last = ws_class_direct_last(size_class); i <= last; i++) {
    ws_assert(heap->direct[i] == first);
  }
  if (first == &_ws_empty_run) {
    ws_assert(heap->avail_last[size_class] == NULL);
  } else {
    const ws_page *previous = NULL;
    for (const ws_page *run = first; run != NULL; previous = run, run = run->next) {
      ws_assert(run->prev == previous);
      if (ws_is_stand_in(run)) {
        ws_assert(run == &heap->kept[size_class]);
      } else {
        validate_run(heap, run, size_class, false, blocks);
      }
    }
    ws_assert(heap->avail_last[size_class] == previous);
  }
  unsigned full = 0;
  const ws_page *previous = NULL;
  for (const ws_page *run = heap->full[size_class]; run != NULL; previous = run, run = run->next) {
    ws_assert(run->prev == previous);
    validate_run(heap, run, size_class, true, blocks);
    full++;
  }
  ws_assert(full == heap->full_runs[size_class]);
}

void _ws_heap_validate_class(const ws_heap *heap, unsigned size_class) {
  // The runs' links and flags; of the blocks, those of the first run (walking every free list
  // at every slow call would make the suite's stress tests quadratic).
  validate_class(heap, size_class, false);
  const ws_page *first = heap->avail[size_class];
  if (first != &_ws_empty_run && !ws_is_stand_in(first)) validate_free_list(first);
}

void _ws_heap_validate(const ws_heap *heap) {
  for (unsigned size_class = 0; size_class < WS_CLASSES; size_class++) validate_class(heap, size_class, true);
}

#endif
