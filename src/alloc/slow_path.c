// Allocation when the fast path (api.c) finds no free block in the serving run: the slow path,
// in named steps (_ws_heap_alloc_slow), and the fresh runs it makes; large blocks; aligned
// allocation.

#include "internal.h"

// ----- runs ----------------------------------------------------------------------------------

// The link to a spare run of `pages` pages, preferring one that last served this class: its free
// list still holds every block, so it needs no rebuilding (and its memory is likely still in
// cache). NULL if the heap has no spare of that length.
static ws_page **spare_link(ws_heap *heap, unsigned size_class, uint32_t pages) {
  ws_page **fits = NULL;
  for (ws_page **link = &heap->spare_runs; *link != NULL; link = &(*link)->next) {
    if ((*link)->pages != pages) continue;
    if ((*link)->size_class == size_class) return link;
    if (fits == NULL) fits = link;
  }
  return fits;
}

static ws_page *take_spare(ws_heap *heap, unsigned size_class, uint32_t pages) {
  ws_page **link = spare_link(heap, size_class, pages);
  if (link == NULL) return NULL;
  ws_page *run = *link;
  *link = run->next;
  heap->spare_pages -= run->pages;
  return run;
}

static void collect_all_classes(ws_heap *heap, unsigned except);

// The free spans to take from before reclaiming anything. Frees keep arriving in an exited
// thread's heap until another thread adopts it, and may empty its runs; while such a heap waits,
// those runs come before cutting into a large free span. Threads that come and go free and
// allocate large blocks (their stacks): if the next thread's runs are cut from the hole a stack
// left, the next stack no longer fits and memory grows by a whole stack (docs/decisions.md,
// "the allocator's measured choices"). While heaps stay abandoned, each run cut from a large
// span costs a walk over the heaps first.
static ws_span_source free_span_source(void) {
  return _ws_heaps_abandoned() ? WS_SPAN_SMALL_FREE : WS_SPAN_ANY_FREE;
}

// Where a run from the pool may come from: free spans; those and what exited threads and handed
// over runs left; all that and new memory.
typedef enum { POOL_FREE, POOL_RECLAIMED, POOL_GROWN } pool_source;

static ws_page *pool_run(ws_heap *heap, uint32_t pages, pool_source source) {
  ws_page *run = source == POOL_FREE ? _ws_span_alloc(pages, WS_PAGE_SIZE, WS_PAGE_RUN, free_span_source())
                                     : _ws_span_alloc_reclaiming(pages, WS_PAGE_SIZE, WS_PAGE_RUN, source == POOL_GROWN);
  if (run != NULL) _ws_note_run_taken(heap, run);  // spares count in run bytes already
  return run;
}

// One of the heap's spare runs (*spare set), or a run from the pool. Memory grows only after the
// heap has taken in other classes' remote frees: runs they empty become spares or go back to
// the pool. (Taking them in before every fresh run, a walk over every class list, was a fifth
// of the slow path's time on the standard workload.) `last`: where the pool's last try may take
// from (POOL_RECLAIMED or POOL_GROWN).
static ws_page *spare_or_pool_run(ws_heap *heap, unsigned size_class, uint32_t pages, bool *spare, pool_source last) {
  ws_page *run = take_spare(heap, size_class, pages);
  if (run == NULL) run = pool_run(heap, pages, POOL_FREE);
  else *spare = true;
  if (run != NULL) return run;
  collect_all_classes(heap, size_class);
  run = take_spare(heap, size_class, pages);
  if (run != NULL) *spare = true;
  if (run != NULL) return run;
  return pool_run(heap, pages, last);
}

static ws_page *fresh_run(ws_heap *heap, unsigned size_class, pool_source last) {
  uint32_t pages = _ws_class_run_pages(size_class);
  size_t block_size = ws_class_size(size_class);
  // A heap's first run of a class above 2 KiB is one page, if a block fits: a thread's block of
  // such a class is often its only one (its state, a buffer), and each thread's heap held a
  // two-page run for it. Smaller classes keep full-length runs: short runs mixed into the pool
  // with longer ones cost more than they save (docs/decisions.md, "the allocator's measured
  // choices").
  if (pages > 1 && block_size > WS_FIRST_RUN_SHORT_ABOVE && block_size <= WS_PAGE_SIZE && !_ws_has_run_of(heap, size_class)) {
    pages = 1;
  }
  bool spare = false;
  ws_page *run = spare_or_pool_run(heap, size_class, pages, &spare, last);
  if (run == NULL) return NULL;
  if (spare && run->size_class == size_class) {
    run->waited = false;
    _ws_queue_push_front(heap, size_class, run);
    return run;
  }
  __atomic_store_n(&run->size_class, (uint8_t)size_class, __ATOMIC_RELAXED);  // steal.c reads it from other threads
  run->block_size = (uint32_t)block_size;
  run->capacity = (uint32_t)((size_t)pages * WS_PAGE_SIZE / block_size);
  WS_COUNTER_SET(run->used, 0);  // (the statistics read both from other threads)
  WS_COUNTER_SET(run->used_at_fold, 0);
  run->in_full = false;
  run->waited = false;
  atomic_store_explicit(ws_thread_free(run), 0, memory_order_relaxed);
  atomic_store_explicit(&run->handed_by, NULL, memory_order_relaxed);
  atomic_store_explicit(&run->owner, heap, memory_order_release);
  // Thread the free list through the blocks, lowest address first.
  unsigned char *base = ws_page_address(run);
  ws_block *list = NULL;
  for (uint32_t i = run->capacity; i-- > 0;) {
    ws_block *block = (ws_block *)(base + (size_t)i * block_size);
    block->next = list;
    list = block;
  }
  run->free = list;
  _ws_queue_push_front(heap, size_class, run);
  return run;
}

// The score of waiting at the back (heap->waiting_pays) saturates at +-WS_WAITING_SCORE_MAX;
// while it is negative, every WS_WAITING_PROBE-th used-up run of the class waits all the same,
// counted per class: probing runs by page number fails when every run of a class starts on an
// odd page (docs/allocator.md, "Why the back of the list").
_Static_assert(256 % WS_WAITING_PROBE == 0, "heap->waiting_probes (8 bits) must wrap on a multiple");
_Static_assert(256 % WS_SURPLUS_EVERY == 0 && 256 % WS_PASSED_SURPLUS_EVERY == 0,
               "heap->run_switches (8 bits) must wrap on a multiple");

// Marks a run with nothing left to hand out as full, unless a remote free arrived meanwhile.
// While full, remote frees go to the heap's delayed list, so the owner hears of them.
static bool try_mark_full(ws_heap *heap, ws_page *run) {
  uintptr_t expected = 0;
  if (!atomic_compare_exchange_strong_explicit(ws_thread_free(run), &expected, WS_NOTIFY_OWNER,
                                               memory_order_acq_rel, memory_order_acquire)) {
    return false;
  }
  _ws_queue_remove(heap, run);
  _ws_full_queue_push(heap, run);
  WS_COUNTER_ADD(heap->runs_marked_full, 1);
  return true;
}

static void collect_all_classes(ws_heap *heap, unsigned except) {
  for (unsigned size_class = 0; size_class < WS_CLASSES; size_class++) {
    if (size_class == except) continue;
    for (ws_page *run = heap->avail[size_class], *next; run != &_ws_empty_run && run != NULL; run = next) {
      next = run->next;
      if (ws_is_stand_in(run)) continue;
      if (run->free != NULL || atomic_load_explicit(ws_thread_free(run), memory_order_relaxed) != 0) {
        _ws_run_collect(run);
        _ws_run_release_if_empty(heap, run);
      }
    }
  }
}

// Whether every block of a class is aligned to `alignment` (a power of two, at most a page):
// runs start on page boundaries, so a class keeps an alignment its size is a multiple of.
static bool class_keeps_alignment(unsigned size_class, size_t alignment) {
  return ws_class_size(size_class) % alignment == 0;
}

// A run of one of the next WS_LARGER_CLASSES larger classes of this heap with free blocks: one
// of them may serve this class instead of new memory. Each class's runs follow the most blocks
// of that class ever live at once, and with random sizes each class's live count swings on its
// own; a larger class's spare blocks serve the high of a smaller one (at most about a quarter
// larger). Not the serving run: while a heap fills its first runs, taking from them would
// only pass the growth on to the larger class, block by block. Not a run waiting at the back
// for frees (alloc slow path): found emptier at its turn, it would teach its class that waiting
// does not pay. Only classes that keep the alignment asked for serve it.
static ws_page *larger_class_run(ws_heap *heap, unsigned size_class, size_t alignment) {
  for (unsigned c = size_class + 1; c <= size_class + WS_LARGER_CLASSES && c < WS_CLASSES; c++) {
    if (!class_keeps_alignment(c, alignment) || heap->avail[c] == &_ws_empty_run) continue;
    for (ws_page *run = heap->avail[c]->next; run != NULL; run = run->next) {
      if (run->free != NULL && !run->waited) return run;
    }
  }
  return NULL;
}

// After the slow path picked `serving`, now and then: hands the class's surplus runs over
// (orphan.c). Looking walks the class list: at every switch it cost a quarter of the cross-thread
// workload's time at 1 thread, so a heap looks every WS_SURPLUS_EVERY switches and keeps two
// runs' worth of free blocks. In a class where it has kept other heaps' blocks since it last
// looked (threads pass blocks to each other; its own blocks in runs it handed over do not
// count: kept.c), its own runs fill with frees it does not need while the other heaps grow:
// there it looks every WS_PASSED_SURPLUS_EVERY switches and keeps half a run. That trades time
// for memory where threads pass blocks to each other only (the figures: docs/decisions.md, "the
// allocator's measured choices" and "half a run kept where threads pass blocks").
static void look_for_surplus(ws_heap *heap, ws_page *serving) {
  unsigned size_class = serving->size_class;
  uint32_t passed_in = heap->kept[size_class].capacity - heap->own_kept[size_class];  // (kept.c)
  bool passed = passed_in != heap->passed_at_look[size_class];
  if (heap->run_switches[size_class]++ % (passed ? WS_PASSED_SURPLUS_EVERY : WS_SURPLUS_EVERY) != 0) return;
  heap->passed_at_look[size_class] = passed_in;
  _ws_hand_off_surplus(heap, serving, passed ? serving->capacity / WS_PASSED_RESERVE_SHARE : 2 * serving->capacity);
}

// ----- the slow path -------------------------------------------------------------------------
// The slow path tries the sources of blocks in order, cheapest and least memory first; each
// step returns a run with a free block, or NULL to go on to the next.

// Step 1, the class's own runs: the serving run once it has taken in its remote frees, then the
// others in queue order. A used-up run goes to the back once to gather frees (if waiting pays
// in this class), else off the queue as full; a used-up stand-in goes off the queue.
static ws_page *run_from_class_queue(ws_heap *heap, unsigned size_class) {
  ws_page *run = heap->avail[size_class];
  while (run != &_ws_empty_run && run != NULL) {
    if (ws_is_stand_in(run) && run->free == NULL) {  // kept blocks used up: off the list
      ws_page *next = run->next;
      _ws_queue_remove(heap, run);
      run = next;
      continue;
    }
    if (run->free == NULL) _ws_run_collect(run);
    int8_t *pays = &heap->waiting_pays[size_class];
    if (run->free != NULL) {
      if (run->waited && *pays < WS_WAITING_SCORE_MAX) ++*pays;
      run->waited = false;
      _ws_queue_move_to_front(heap, run);  // let the fast path find it next time
      if (heap->keeps_foreign) look_for_surplus(heap, run);
      return run;
    }
    ws_page *next = run->next;
    if (!run->waited && next != NULL &&
        (*pays >= 0 || heap->waiting_probes[size_class]++ % WS_WAITING_PROBE == 0)) {
      // Used up for the first time since it last served: to the back of the list, where it
      // gathers frees while the other runs serve, instead of off the list as full (an atomic
      // read-modify-write now, another at its next free). When blocks are freed in a random
      // order, most runs have some free again by the time their turn comes round. When they
      // are freed oldest first, none has, and waiting only holds more memory in partly used
      // runs: the class stops sending runs back (but for a few, which keep finding out).
      run->waited = true;
      _ws_queue_move_to_back(heap, run);
      run = next;
    } else if (try_mark_full(heap, run)) {
      if (run->waited && *pays > -WS_WAITING_SCORE_MAX) --*pays;
      run = next;
    }  // otherwise a remote free arrived: collect it
  }
  return NULL;
}

// Step 3, blocks already freed but not on a queue, unless a spare run can serve (it costs no
// walk): the blocks that came back to full runs, too few to bring them back on the queue; then
// blocks other threads freed whose owners have not taken them in (steal.c), served from the
// class's stand-in.
static ws_page *run_from_stray_frees(ws_heap *heap, unsigned size_class) {
  if (spare_link(heap, size_class, _ws_class_run_pages(size_class)) != NULL) return NULL;
  ws_page *run = _ws_rejoin_full_runs(heap, size_class);
  if (run != NULL) {
    _ws_queue_move_to_front(heap, run);
    return run;
  }
  return _ws_steal_pending(heap, size_class) ? &heap->kept[size_class] : NULL;
}

// Step 4, memory already free: a spare run or the pool's free spans (reclaiming what exited
// threads left), else a block of a larger class, looked for again after the pool, since taking
// in other classes' frees may have emptied and released the run it found.
static ws_page *run_from_free_memory(ws_heap *heap, unsigned size_class, size_t alignment) {
  if (larger_class_run(heap, size_class, alignment) == NULL) return NULL;
  ws_page *run = fresh_run(heap, size_class, POOL_RECLAIMED);
  if (run != NULL) return run;
  run = larger_class_run(heap, size_class, alignment);
  if (run != NULL) WS_COUNTER_ADD(heap->larger_class_blocks, 1);
  return run;
}

// A block of `size_class` when the serving run has none (api.c's fast path failed).
void *_ws_heap_alloc_slow(ws_heap *heap, unsigned size_class, size_t alignment) {
  ws_validate_heap_class(heap, size_class);
  _ws_collect_delayed(heap);  // frees into this heap's full runs, each back on its queue
  ws_page *run = run_from_class_queue(heap, size_class);
  // Step 2, a run another heap handed over: memory already spent.
  if (run == NULL) run = _ws_adopt_orphan(heap, size_class);
  if (run == NULL) run = run_from_stray_frees(heap, size_class);
  if (run == NULL) run = run_from_free_memory(heap, size_class, alignment);
  // Step 5, the pool with new memory if it must.
  if (run == NULL) run = fresh_run(heap, size_class, POOL_GROWN);
  return run != NULL ? _ws_pop_block(run) : NULL;
}

ws_page *_ws_span_alloc_reclaiming(size_t pages, size_t alignment, ws_page_kind kind, bool may_grow) {
  ws_span_source last = may_grow ? WS_SPAN_MAY_GROW : WS_SPAN_ANY_FREE;
  // With nothing to reclaim the last try, which takes free spans first too, is the only one:
  // one pool lock instead of two.
  if (!_ws_heaps_abandoned() && !_ws_orphans_waiting()) return _ws_span_alloc(pages, alignment, kind, last);
  ws_page *span = _ws_span_alloc(pages, alignment, kind, free_span_source());
  if (span != NULL) return span;
  _ws_heap_reclaim_abandoned();  // runs that exited threads emptied
  _ws_release_empty_orphans();
  return _ws_span_alloc(pages, alignment, kind, last);
}

// ----- large blocks --------------------------------------------------------------------------

// alignment: a power of two; the pool places every span at a page boundary or better.
static void *large_alloc(ws_heap *heap, size_t size, size_t alignment) {
  if (size > WS_WINDOW_MAX - WS_PAGE_SIZE) return NULL;
  size_t pages = size == 0 ? 1 : (size + WS_PAGE_SIZE - 1) / WS_PAGE_SIZE;
  ws_page *head = _ws_span_alloc_reclaiming(pages, alignment, WS_PAGE_LARGE, true);
  if (head == NULL) return NULL;
  WS_COUNTER_ADD(heap->large_allocations, 1);
  return ws_page_address(head);
}

// ----- the entry point used by the public API -----------------------------------------------

// alignment: a power of two. Small and medium blocks come from a class that keeps the alignment
// (for alignments up to a page; every class is a multiple of 16); anything else becomes a large
// block at an aligned address.
void *_ws_alloc_aligned(ws_heap *heap, size_t alignment, size_t size) {
  size_t wanted = size > alignment ? size : alignment;
  if (wanted <= WS_MEDIUM_MAX && alignment <= WS_PAGE_SIZE) {
    unsigned size_class = ws_size_class(wanted);
    while (alignment > WS_ALIGNMENT && size_class < WS_CLASSES && !class_keeps_alignment(size_class, alignment)) {
      size_class++;  // every class is a multiple of WS_ALIGNMENT: only larger alignments search
    }
    if (size_class < WS_CLASSES) {
      ws_page *run = heap->avail[size_class];
      if (run->free != NULL) return _ws_pop_block(run);
      return _ws_heap_alloc_slow(heap, size_class, alignment);
    }
  }
  return large_alloc(heap, size, alignment);
}

size_t _ws_usable_size(const void *p) {
  ws_page *head = ws_span_of(p);
  if (head == NULL) return 0;
  if (head->kind == WS_PAGE_RUN) return head->block_size;
  if (head->kind == WS_PAGE_LARGE) return (size_t)head->pages * WS_PAGE_SIZE;
  return 0;
}
