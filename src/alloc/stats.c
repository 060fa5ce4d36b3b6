// Statistics: counters kept per heap by their owner, the pool's under its lock (span.c), all
// summed into one snapshot on request.
#include <inttypes.h>

#include "internal.h"

// Blocks taken back into `run` since its last fold, local frees and remote ones collected
// alike: those handed out, less what `used` grew by. For the owner it is exact. Read from
// another thread, `used` goes first, so blocks handed out between the reads only add to the
// count; a fold between them can still make it negative, read as none.
static uint64_t frees_since_fold(const ws_page *run) {
  int64_t grown = (int64_t)WS_COUNTER_READ(run->used) - (int64_t)WS_COUNTER_READ(run->used_at_fold);
  int64_t frees = (int64_t)WS_COUNTER_READ(run->allocations) - grown;
  return frees > 0 ? (uint64_t)frees : 0;
}

void _ws_run_fold_counts(ws_heap *heap, ws_page *run) {
  ws_assert(ws_is_stand_in(run) || ws_owner_is(run, heap));
  WS_COUNTER_ADD(heap->class_frees[run->size_class], frees_since_fold(run));
  WS_COUNTER_ADD(heap->class_allocations[run->size_class], run->allocations);
  WS_COUNTER_SUB(run->allocations, run->allocations);
  WS_COUNTER_SET(run->used_at_fold, run->used);
}

void _ws_run_add_counts(const ws_page *run, uint64_t *allocations, uint64_t *frees) {
  unsigned size_class = __atomic_load_n(&run->size_class, __ATOMIC_RELAXED);
  if (size_class >= WS_CLASSES) return;
  frees[size_class] += frees_since_fold(run);
  allocations[size_class] += WS_COUNTER_READ(run->allocations);
}

// Peaks are kept per heap by its owner, as the bytes of runs it holds (live blocks never
// exceed them), so no thread reads another's counters on a hot path. Their sum bounds the
// true peak of bytes in use from above.
void _ws_note_run_taken(ws_heap *heap, ws_page *run) {
  WS_COUNTER_ADD(heap->run_bytes, (uint64_t)run->pages * WS_PAGE_SIZE);
  if (heap->run_bytes > heap->run_bytes_peak) WS_COUNTER_ADD(heap->run_bytes_peak, heap->run_bytes - heap->run_bytes_peak);
}

void _ws_note_run_released(ws_heap *heap, ws_page *run) {
  WS_COUNTER_SUB(heap->run_bytes, (uint64_t)run->pages * WS_PAGE_SIZE);
}

void ws_alloc_get_stats(ws_alloc_stats *stats) {
  *stats = (ws_alloc_stats){0};
  uint64_t frees[WS_CLASSES] = {0};
  for (ws_heap *heap = _ws_heap_list(); heap != NULL; heap = heap->next_heap) {
    ws_prim_see_memory(heap, sizeof *heap);  // counters are read with atomic loads
    for (unsigned i = 0; i < WS_CLASSES; i++) frees[i] += WS_COUNTER_READ(heap->class_frees[i]);
    stats->bytes_in_use_peak += WS_COUNTER_READ(heap->run_bytes_peak);
    stats->allocations += WS_COUNTER_READ(heap->large_allocations);
    stats->cross_thread_frees += WS_COUNTER_READ(heap->cross_thread_frees);
    stats->kept_blocks += WS_COUNTER_READ(heap->kept_blocks);
    stats->kept_own_blocks += WS_COUNTER_READ(heap->kept_own_blocks);
    stats->borrowed_blocks += WS_COUNTER_READ(heap->borrowed_blocks);
    stats->runs_marked_full += WS_COUNTER_READ(heap->runs_marked_full);
    stats->larger_class_blocks += WS_COUNTER_READ(heap->larger_class_blocks);
    for (unsigned i = 0; i < WS_CLASSES; i++) {
      stats->class_allocations[i] += WS_COUNTER_READ(heap->class_allocations[i]);
      _ws_run_add_counts(&heap->kept[i], stats->class_allocations, frees);  // its stand-ins' unfolded counts
    }
    int state = atomic_load(&heap->state);
    if (state == WS_HEAP_ABANDONED) stats->heaps_abandoned++;
    else stats->heaps_live++;
  }
  stats->heaps_live -= 2;  // the builtin heap and the orphanage are not a thread's
  // Counts runs hold, not yet folded into their heap's. From another thread than a run's owner
  // the sum is approximate (a fold may move counts between the reads), as any snapshot taken
  // while other threads work is.
  _ws_span_add_run_counts(stats->class_allocations, frees);
  for (unsigned i = 0; i < WS_CLASSES; i++) {
    stats->allocations += stats->class_allocations[i];
    // Signed: a snapshot taken while other threads work may see a free before its allocation.
    int64_t live = (int64_t)(stats->class_allocations[i] - frees[i]);
    if (live > 0) stats->bytes_in_use += (uint64_t)live * ws_class_size(i);
  }
  uint64_t large_peak;
  _ws_span_stats(stats, &large_peak);
  stats->bytes_in_use += stats->large_in_use;
  stats->bytes_in_use_peak += large_peak;
  if (stats->bytes_in_use_peak < stats->bytes_in_use) stats->bytes_in_use_peak = stats->bytes_in_use;
  for (unsigned i = 0; i < WS_CLASSES; i++) stats->class_block_size[i] = ws_class_size(i);
  _ws_orphan_stats(stats);
}

void ws_alloc_print_stats(FILE *out) {
  ws_alloc_stats s;
  ws_alloc_get_stats(&s);
  if (out == NULL) out = stderr;
  fprintf(out, "wasmscale allocator statistics\n");
  fprintf(out, "  in use     %12" PRIu64 " bytes (peak %" PRIu64 "), large blocks %" PRIu64 "\n", s.bytes_in_use, s.bytes_in_use_peak, s.large_in_use);
  fprintf(out, "  reserved   %12" PRIu64 " bytes (peak %" PRIu64 "), free in pool %" PRIu64 " (largest piece %" PRIu64 ")\n",
          s.bytes_reserved, s.bytes_reserved_peak, s.bytes_pool_free, s.pool_largest_free);
  fprintf(out, "  allocations %11" PRIu64 ", cross-thread frees %" PRIu64 " (%" PRIu64 " kept by the freeing thread, %" PRIu64
          " of them its own)\n", s.allocations, s.cross_thread_frees, s.kept_blocks, s.kept_own_blocks);
  fprintf(out, "  reused     %12" PRIu64 " blocks of pending frees before their owner took them in\n", s.borrowed_blocks);
  fprintf(out, "  heaps      %12" PRIu64 " live, %" PRIu64 " abandoned\n", s.heaps_live, s.heaps_abandoned);
  fprintf(out, "  runs       %12" PRIu64 " handed over by heaps with free blocks to spare, %" PRIu64 " adopted\n",
          s.runs_handed_over, s.runs_adopted);
  fprintf(out, "  runs       %12" PRIu64 " marked full when used up\n", s.runs_marked_full);
  fprintf(out, "  blocks     %12" PRIu64 " served from a larger class instead of new memory\n", s.larger_class_blocks);
  fprintf(out, "  pool lock  %12" PRIu64 " acquisitions, %" PRIu64 " contended; growths %" PRIu64 "\n", s.pool_lock_acquisitions,
          s.pool_lock_contended, s.growths);
  fprintf(out, "  orphan lock %11" PRIu64 " acquisitions\n", s.orphan_lock_acquisitions);
  fprintf(out, "  size class   block size   allocations\n");
  for (unsigned i = 0; i < WS_CLASSES; i++) {
    if (s.class_allocations[i] != 0) fprintf(out, "  %10u %12" PRIu64 " %13" PRIu64 "\n", i, s.class_block_size[i], s.class_allocations[i]);
  }
}
