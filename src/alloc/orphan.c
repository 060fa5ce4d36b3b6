// Orphaned runs: partly used runs handed from one heap to another.
//
// Only a run's owner hands out its free blocks, and a run goes back to the pool only when all
// its blocks are free, which with blocks freed in random order is rare. So a heap keeps the runs
// of the most blocks of each class it ever had in use at once, and when live blocks move between
// threads (one allocates, others free) every heap ends up with runs for its own high-water mark:
// one heap sits on free blocks in its runs while another takes fresh runs from the pool
// (docs/decisions.md, "the allocator's measured choices").
//
// So a heap that has many more free blocks in a class than its next allocations need hands the
// surplus runs over to a shared list per class (the orphans), and a heap that would otherwise
// take a fresh run adopts one from there first. An exiting thread hands over all its runs that
// have free blocks. An orphan belongs to no heap (its owner is the orphanage, which never
// allocates), so every free into it is a remote free; the adopter takes those in.
//
// Only runs on their heap's class list are handed over: a full run is off the list and has asked
// its next remote freer to reach it through its owner heap's delayed list, a protocol that must
// not meet an owner change. Lock order: the orphan lock, then the pool lock (never the reverse).
#include "internal.h"

static ws_prim_lock orphan_lock = WS_PRIM_LOCK_INIT;
static ws_page *orphans[WS_CLASSES];  // per class, under the lock (ws_page_list_*)
// Runs on each class's list, and on all of them: changed under the lock, read without it so that
// a heap with no orphan to adopt, and a reclaim with none to free, take no lock.
static _Atomic uint32_t class_orphans[WS_CLASSES];
static _Atomic uint32_t orphan_count;
static _Atomic uint64_t handed_over, adopted;  // runs, for the statistics
static uint64_t lock_acquisitions;             // written under the lock, read by the statistics
// The owner of every orphan. It never allocates; its counters (in the heap list, so the
// statistics add them up) take the frees collected from orphans that are given back emptied.
ws_heap _ws_orphanage;

// Caller holds orphan_lock: a load and a store, not a read-modify-write.
static void add_locked(_Atomic uint32_t *counter, int change) {
  ws_assert(ws_prim_lock_held(&orphan_lock));
  uint32_t now = atomic_load_explicit(counter, memory_order_relaxed);
  atomic_store_explicit(counter, now + (uint32_t)change, memory_order_relaxed);
}

static void count_orphans(unsigned size_class, int change) {
  add_locked(&class_orphans[size_class], change);
  add_locked(&orphan_count, change);
}

#if WS_DEBUG >= 2
// Caller holds orphan_lock: `size_class`'s list is linked both ways, holds runs of that class
// the orphanage owns, as many as counted.
static void validate_orphans_locked(unsigned size_class) {
  uint32_t length = 0;
  const ws_page *previous = NULL;
  for (const ws_page *run = orphans[size_class]; run != NULL; previous = run, run = run->next) {
    ws_assert(run->prev == previous && run->kind == WS_PAGE_RUN && run->size_class == size_class);
    ws_assert(ws_owner_is(run, &_ws_orphanage) && !run->in_full);
    length++;
  }
  ws_assert(length == atomic_load_explicit(&class_orphans[size_class], memory_order_relaxed));
}
#else
static void validate_orphans_locked(unsigned size_class) { (void)size_class; }
#endif

static void lock_orphans(void) {
  ws_prim_lock_acquire(&orphan_lock);
  WS_COUNTER_ADD(lock_acquisitions, 1);
}

// Caller holds orphan_lock.
static void push_orphan(ws_page *run) {
  ws_page_list_push(&orphans[run->size_class], run);
  count_orphans(run->size_class, 1);
  validate_orphans_locked(run->size_class);
}

// Caller holds orphan_lock.
static void unlink_orphan(ws_page *run) {
  ws_page_list_unlink(&orphans[run->size_class], run);
  count_orphans(run->size_class, -1);
  validate_orphans_locked(run->size_class);
}

bool _ws_orphans_waiting(void) { return atomic_load_explicit(&orphan_count, memory_order_relaxed) != 0; }

void _ws_orphan_run(ws_heap *heap, ws_page *run, ws_page **batch) {
  _ws_queue_remove(heap, run);
  _ws_run_fold_counts(heap, run);
  _ws_note_run_released(heap, run);
  run->waited = false;
  // From here on the former owner's own frees into the run take the remote path too. Until the
  // batch is handed over the run is on no list: its frees wait on it, as on any orphan.
  atomic_store_explicit(&run->owner, &_ws_orphanage, memory_order_release);
  run->next = *batch;
  *batch = run;
}

void _ws_hand_over(ws_page *batch) {
  if (batch == NULL) return;
  uint64_t runs = 0;
  lock_orphans();
  for (ws_page *run = batch, *next; run != NULL; run = next) {
    next = run->next;
    push_orphan(run);
    runs++;
  }
  ws_prim_lock_release(&orphan_lock);
  atomic_fetch_add_explicit(&handed_over, runs, memory_order_relaxed);
}

// Keeps `reserve` free blocks' worth of runs after `serving` (the caller's choice: slow_path.c), so
// the heap's next allocations of the class find blocks without the pool; hands over the rest.
void _ws_hand_off_surplus(ws_heap *heap, ws_page *serving, uint32_t reserve) {
  uint32_t kept_free = 0;
  ws_page *surplus = NULL;
  _ws_rejoin_full_runs(heap, serving->size_class);  // blocks back in full runs are free blocks too
  for (ws_page *run = serving->next, *next; run != NULL; run = next) {
    next = run->next;
    if (ws_is_stand_in(run)) continue;
    _ws_run_collect(run);  // remote frees count as free blocks too
    uint32_t free_blocks = run->capacity - run->used;
    if (free_blocks == 0) continue;
    if (run->used == 0) {
      _ws_run_release_if_empty(heap, run);  // a spare, or back to the pool
    } else if (kept_free < reserve) {
      kept_free += free_blocks;
    } else {
      atomic_store_explicit(&run->handed_by, heap, memory_order_relaxed);  // (kept.c)
      _ws_orphan_run(heap, run, &surplus);
    }
  }
  _ws_hand_over(surplus);
}

// Makes `run` (just unlinked from the orphans) the heap's, with the frees it received meanwhile.
static void take(ws_heap *heap, ws_page *run) {
  ws_prim_see_memory(run, sizeof *run);
  atomic_store_explicit(&run->owner, heap, memory_order_release);
  _ws_note_run_taken(heap, run);
  _ws_run_collect(run);
}

ws_page *_ws_adopt_orphan(ws_heap *heap, unsigned size_class) {
  if (atomic_load_explicit(&class_orphans[size_class], memory_order_relaxed) == 0) return NULL;
  lock_orphans();
  ws_page *run = orphans[size_class];
  if (run != NULL) unlink_orphan(run);
  ws_prim_lock_release(&orphan_lock);
  if (run == NULL) return NULL;
  take(heap, run);
  _ws_queue_push_front(heap, size_class, run);
  atomic_fetch_add_explicit(&adopted, 1, memory_order_relaxed);
  return run;
}

void _ws_orphan_stats(ws_alloc_stats *stats) {
  stats->runs_handed_over = atomic_load_explicit(&handed_over, memory_order_relaxed);
  stats->runs_adopted = atomic_load_explicit(&adopted, memory_order_relaxed);
  stats->orphan_lock_acquisitions = WS_COUNTER_READ(lock_acquisitions);
}

void _ws_release_empty_orphans(void) {
  if (!_ws_orphans_waiting()) return;  // most calls: no lock taken for nothing
  ws_prim_see_all_memory(NULL);  // orphans' descriptors: anywhere in memory
  lock_orphans();
  for (unsigned size_class = 0; size_class < WS_CLASSES; size_class++) {
    ws_page *next;
    for (ws_page *run = orphans[size_class]; run != NULL; run = next) {
      next = run->next;
      _ws_run_collect(run);  // under the lock, for the orphanage (the owner)
      if (run->used != 0) continue;
      unlink_orphan(run);
      _ws_run_fold_counts(&_ws_orphanage, run);  // the frees just collected
      _ws_span_free(run);
    }
  }
  ws_prim_lock_release(&orphan_lock);
}
