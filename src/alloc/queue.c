// A heap's run queues, per size class (as mimalloc's page-queue.c): the queue of runs with
// (probably) free blocks, whose first run the fast path serves, and the queue of full runs, off
// the first queue until blocks come back (free.c). Every change to either is made here, so that
// what validate.c checks holds by construction:
//   - avail[c] is the first run (_ws_empty_run when there is none) and avail_last[c] the last
//     (NULL), linked both ways through next/prev; direct[] mirrors avail[c] for c's small sizes;
//   - full[c] heads a NULL-terminated list of full_runs[c] runs, each marked in_full.
// Only the heap's owner changes its queues.
#include "internal.h"

// ----- the queue of runs with free blocks ------------------------------------------------------

// Every change of a class's first run comes here, to keep heap->direct in step.
void _ws_queue_set_first(ws_heap *heap, unsigned size_class, ws_page *run) {
  heap->avail[size_class] = run;
  for (unsigned i = ws_class_direct_first(size_class), last = ws_class_direct_last(size_class); i <= last; i++) heap->direct[i] = run;
}

void _ws_queue_push_front(ws_heap *heap, unsigned size_class, ws_page *run) {
  ws_page *first = heap->avail[size_class];
  run->prev = NULL;
  run->next = first == &_ws_empty_run ? NULL : first;
  if (run->next) run->next->prev = run;
  else heap->avail_last[size_class] = run;
  _ws_queue_set_first(heap, size_class, run);
}

void _ws_queue_remove(ws_heap *heap, ws_page *run) {
  if (run->prev) run->prev->next = run->next;
  else _ws_queue_set_first(heap, run->size_class, run->next ? run->next : &_ws_empty_run);
  if (run->next) run->next->prev = run->prev;
  else heap->avail_last[run->size_class] = run->prev;
  run->next = run->prev = NULL;
}

void _ws_queue_move_to_front(ws_heap *heap, ws_page *run) {
  if (run == heap->avail[run->size_class]) return;  // already there
  _ws_queue_remove(heap, run);
  _ws_queue_push_front(heap, run->size_class, run);
}

void _ws_queue_move_to_back(ws_heap *heap, ws_page *run) {
  if (run->next == NULL) return;  // already there
  _ws_queue_remove(heap, run);
  ws_page *last = heap->avail_last[run->size_class];  // not NULL: run had a next
  last->next = run;
  run->prev = last;
  heap->avail_last[run->size_class] = run;
}

// Puts a run that has free blocks again second in its class list: the first run stays the
// fast path's, so a run that keeps filling and emptying does not churn the list head.
void _ws_queue_insert_second(ws_heap *heap, ws_page *run) {
  ws_page *first = heap->avail[run->size_class];
  if (first == &_ws_empty_run) {
    _ws_queue_push_front(heap, run->size_class, run);
    return;
  }
  run->prev = first;
  run->next = first->next;
  if (run->next) run->next->prev = run;
  else heap->avail_last[run->size_class] = run;
  first->next = run;
}

// ----- the full queue ------------------------------------------------------------------------

void _ws_full_queue_push(ws_heap *heap, ws_page *run) {
  run->in_full = true;
  heap->full_runs[run->size_class]++;
  ws_page_list_push(&heap->full[run->size_class], run);
}

void _ws_full_queue_remove(ws_heap *heap, ws_page *run) {
  heap->full_runs[run->size_class]--;
  ws_page_list_unlink(&heap->full[run->size_class], run);
  run->in_full = false;
}

