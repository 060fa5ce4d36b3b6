// Freeing. A block of a run owned by the calling thread's heap goes straight back on the run's
// free list (no lock, no atomic read-modify-write). A block of another heap's run is kept by
// the calling thread's heap to hand out again (kept.c), up to a bound; past it, it is pushed
// onto that run's atomic list of remote frees (ws_thread_free). A full run is off its heap's
// lists, so its owner would not look at it: the first remote free into it goes to the owning
// heap's delayed_free list instead, which brings the run back. Owners collect both lazily, on
// their allocation slow path.
#include "internal.h"

// ----- the owner's side ----------------------------------------------------------------------

// Pages of spare runs a heap may keep: enough that a thread cycling through memory rarely meets
// the pool, in proportion to what it holds, so a thread that freed everything and idles keeps
// little from other threads.
static uint32_t spare_limit(const ws_heap *heap) {
  uint32_t share = (uint32_t)(heap->run_bytes / WS_PAGE_SIZE / WS_SPARE_SHARE);
  return share < WS_SPARE_PAGES_MIN ? WS_SPARE_PAGES_MIN : share > WS_SPARE_PAGES ? WS_SPARE_PAGES : share;
}

// Gives the pool the spares beyond `keep_pages`, with `released` (already counted out of the
// heap's run bytes, linked through next, or NULL), under one lock.
static void release_spares_beyond(ws_heap *heap, uint32_t keep_pages, ws_page *released) {
  while (heap->spare_pages > keep_pages) {
    ws_page *run = heap->spare_runs;
    heap->spare_runs = run->next;
    heap->spare_pages -= run->pages;
    _ws_note_run_released(heap, run);
    run->next = released;
    released = run;
  }
  _ws_span_free_runs(released);
}

void _ws_release_spares_with(ws_heap *heap, ws_page *released) { release_spares_beyond(heap, 0, released); }

// Gives an emptied run back to the pool, unless it is its class's only run (keeping one
// avoids taking and returning a run on every few allocations) or the heap keeps it as a spare.
void _ws_run_release_if_empty(ws_heap *heap, ws_page *run) {
  if (run->used != 0 || run->in_full) return;
  if (heap->avail[run->size_class] == run && run->next == NULL) return;
  _ws_queue_remove(heap, run);
  _ws_run_fold_counts(heap, run);  // a spare may serve another class next
  if (heap->spare_pages + run->pages <= spare_limit(heap) && heap != &_ws_exited_heap) {
    run->next = heap->spare_runs;
    heap->spare_runs = run;
    heap->spare_pages += run->pages;
    return;
  }
  _ws_note_run_released(heap, run);
  run->next = NULL;
  // A heap giving memory back may be emptying altogether: its spares shrink with it, under the
  // same lock.
  release_spares_beyond(heap, spare_limit(heap), run);
}

static void unfull(ws_heap *heap, ws_page *run) {
  _ws_full_queue_remove(heap, run);
  run->waited = false;
  // No notice is needed any more (a remote freer may have taken the flag down already).
  atomic_fetch_and_explicit(ws_thread_free(run), ~WS_NOTIFY_OWNER, memory_order_acq_rel);
  _ws_queue_insert_second(heap, run);
}

// Whether a full run with a block back should rejoin its class list now. Taken back at its first
// free, it serves that one block and is used up again. When blocks are freed in a random order
// and a class has many runs, most are full, every free brings one back for a block, and the list
// shrinks until no run's turn comes late enough to find blocks. In such a class (WS_REJOIN_FULL_RUNS
// full runs or more) a full run waits for a share of its blocks. Fewer full runs mean blocks
// freed oldest first, whose runs drain at once, or classes whose hidden blocks would cost memory
// (the figures: docs/decisions.md, "the allocator's measured choices").
static bool rejoins(const ws_heap *heap, const ws_page *run) {
  if (heap->full_runs[run->size_class] < WS_REJOIN_FULL_RUNS) return true;
  return run->capacity - run->used >= (run->capacity + WS_REJOIN_SHARE - 1) / WS_REJOIN_SHARE;
}

void _ws_free_local_rare(ws_heap *heap, ws_page *run) {
  if (run->in_full && rejoins(heap, run)) unfull(heap, run);
  if (run->used == 0) _ws_run_release_if_empty(heap, run);
}

// Puts every full run of the class that has a block back on the list (second); returns the one
// with the most, or NULL.
ws_page *_ws_rejoin_full_runs(ws_heap *heap, unsigned size_class) {
  ws_page *best = NULL;
  for (ws_page *run = heap->full[size_class], *next; run != NULL; run = next) {
    next = run->next;
    if (run->used == run->capacity) continue;
    unfull(heap, run);
    if (best == NULL || run->used < best->used) best = run;
  }
  return best;
}

void _ws_run_collect(ws_page *run) {
  if (run->in_full) return;  // its blocks come back through the delayed list first
  // Looked at before it is taken: the slow path asks every run it passes, and with no remote
  // frees (the common case) a plain load spares an atomic read-modify-write each time.
  _Atomic uintptr_t *pending = ws_thread_free(run);
  if (atomic_load_explicit(pending, memory_order_relaxed) == 0) return;
  // Empty if a borrower (steal.c) took the list since the load: then nothing moves.
  ws_block *list = (ws_block *)atomic_exchange_explicit(pending, 0, memory_order_acquire);
  uint32_t count = 0;
  while (list != NULL) {
    ws_block *next = list->next;
    list->next = run->free;
    run->free = list;
    list = next;
    count++;
  }
  ws_assert(count <= run->used);
  WS_COUNTER_SUB(run->used, count);  // counted as frees at the run's next fold (stats.c)
}

void _ws_collect_delayed(ws_heap *heap) {
  if (atomic_load_explicit(&heap->delayed_free, memory_order_relaxed) == 0) return;  // as above
  uintptr_t list = atomic_exchange_explicit(&heap->delayed_free, 0, memory_order_acquire);
  while (list != 0) {
    ws_block *block = (ws_block *)list;
    list = (uintptr_t)block->next;
    ws_page *run = ws_span_of(block);
    // The run may have been handed over (orphan.c) since its freer found it full and read this
    // heap as its owner: then the block is a remote free for whoever owns the run now. (Taken
    // in here, it would be pushed onto a free list its new owner is popping from.)
    if (atomic_load_explicit(&run->owner, memory_order_acquire) != heap) {
      _ws_free_remote(run, block);
      continue;
    }
    // A remote free into a full run: back on the list at once, since the remote frees after it
    // go to the run's own pending list, which only listed runs have collected.
    if (run->in_full) unfull(heap, run);
    _ws_free_local(heap, run, block);
  }
}

// ----- other threads' side -------------------------------------------------------------------

static void push_delayed(ws_heap *owner, ws_block *block) {
  ws_prim_see_memory(owner, sizeof *owner);
  uintptr_t head = atomic_load_explicit(&owner->delayed_free, memory_order_relaxed);
  do {
    block->next = (ws_block *)head;
  } while (!atomic_compare_exchange_weak_explicit(&owner->delayed_free, &head, (uintptr_t)block,
                                                  memory_order_release, memory_order_relaxed));
}

void _ws_free_remote(ws_page *run, ws_block *block) {
  _Atomic uintptr_t *pending = ws_thread_free(run);
  uintptr_t head = atomic_load_explicit(pending, memory_order_relaxed);
  for (;;) {
    if (head & WS_NOTIFY_OWNER) {
      // The run is full and off its heap's lists. The one freer that clears the flag tells
      // the owner by handing it this block; everyone after that uses the run's list again.
      if (atomic_compare_exchange_weak_explicit(pending, &head, head & ~WS_NOTIFY_OWNER,
                                                memory_order_acq_rel, memory_order_relaxed)) {
        ws_heap *owner = atomic_load_explicit(&run->owner, memory_order_acquire);
        // Handed over meanwhile: the orphanage never takes in a delayed list, so the block goes
        // onto the run's own list, which its adopter collects.
        if (owner != &_ws_orphanage) {
          push_delayed(owner, block);
          return;
        }
        head &= ~WS_NOTIFY_OWNER;
      }
      continue;
    }
    block->next = (ws_block *)head;
    if (atomic_compare_exchange_weak_explicit(pending, &head, (uintptr_t)block,
                                              memory_order_release, memory_order_relaxed)) {
      if (head == 0) _ws_note_pending_list(__atomic_load_n(&run->size_class, __ATOMIC_RELAXED));
      return;
    }
  }
}

// ----- entry ---------------------------------------------------------------------------------

void _ws_free_in(ws_heap *heap, void *p) {
  ws_page *run = ws_span_of(p);
  if (ws_likely(run != NULL && run->kind == WS_PAGE_RUN)) {
    ws_prim_see_memory(run, sizeof *run);  // its descriptor may be in memory another thread grew
    if (ws_likely(atomic_load_explicit(&run->owner, memory_order_relaxed) == heap)) {
      _ws_free_local(heap, run, p);
    } else if (heap != NULL && heap != &_ws_exited_heap) {
      WS_COUNTER_ADD(heap->cross_thread_frees, 1);
      if (!_ws_keep(heap, run, p)) _ws_free_remote(run, p);
    } else {
      _ws_free_remote(run, p);
    }
  } else if (run != NULL && run->kind == WS_PAGE_LARGE && (unsigned char *)p == ws_page_address(run)) {
    _ws_span_free(run);
  } else {
    _ws_fatal("free() of a pointer this allocator never returned", p);
  }
}
