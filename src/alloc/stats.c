// Statistics: counters kept per heap by their owner, global ones with relaxed atomics, all
// summed into one snapshot on request.
#include <inttypes.h>

#include "internal.h"

_Atomic uint64_t _ws_large_in_use;
_Atomic uint64_t _ws_in_use_peak;

static uint64_t heaps_in_use(void) {
  uint64_t total = atomic_load_explicit(&_ws_large_in_use, memory_order_relaxed);
  for (ws_heap *heap = _ws_heap_list(); heap != NULL; heap = heap->next_heap) total += WS_COUNTER_READ(heap->in_use);
  return total;
}

// Called when a run or a large block is handed out: the moments the total can reach a peak.
void _ws_note_in_use_peak(void) {
  uint64_t now = heaps_in_use();
  uint64_t peak = atomic_load_explicit(&_ws_in_use_peak, memory_order_relaxed);
  while (now > peak && !atomic_compare_exchange_weak(&_ws_in_use_peak, &peak, now)) {
  }
}

void ws_alloc_get_stats(ws_alloc_stats *stats) {
  *stats = (ws_alloc_stats){0};
  for (ws_heap *heap = _ws_heap_list(); heap != NULL; heap = heap->next_heap) {
    stats->bytes_in_use += WS_COUNTER_READ(heap->in_use);
    stats->allocations += WS_COUNTER_READ(heap->allocations);
    stats->cross_thread_frees += WS_COUNTER_READ(heap->cross_thread_frees);
    for (unsigned i = 0; i < WS_CLASSES; i++) stats->class_allocations[i] += WS_COUNTER_READ(heap->class_allocations[i]);
    int state = atomic_load(&heap->state);
    if (state == WS_HEAP_ABANDONED) stats->heaps_abandoned++;
    else stats->heaps_live++;
  }
  stats->heaps_live--;  // the builtin heap is shared, not a thread's
  stats->large_in_use = atomic_load_explicit(&_ws_large_in_use, memory_order_relaxed);
  stats->bytes_in_use += stats->large_in_use;
  _ws_note_in_use_peak();
  stats->bytes_in_use_peak = atomic_load_explicit(&_ws_in_use_peak, memory_order_relaxed);
  for (unsigned i = 0; i < WS_CLASSES; i++) stats->class_block_size[i] = _ws_class_size(i);
  _ws_span_stats(stats);
}

void ws_alloc_print_stats(FILE *out) {
  ws_alloc_stats s;
  ws_alloc_get_stats(&s);
  if (out == NULL) out = stderr;
  fprintf(out, "wasmscale allocator statistics\n");
  fprintf(out, "  in use     %12" PRIu64 " bytes (peak %" PRIu64 "), large blocks %" PRIu64 "\n", s.bytes_in_use, s.bytes_in_use_peak, s.large_in_use);
  fprintf(out, "  reserved   %12" PRIu64 " bytes (peak %" PRIu64 "), free in pool %" PRIu64 " (largest piece %" PRIu64 ")\n",
          s.bytes_reserved, s.bytes_reserved_peak, s.bytes_pool_free, s.pool_largest_free);
  fprintf(out, "  allocations %11" PRIu64 ", cross-thread frees %" PRIu64 "\n", s.allocations, s.cross_thread_frees);
  fprintf(out, "  heaps      %12" PRIu64 " live, %" PRIu64 " abandoned\n", s.heaps_live, s.heaps_abandoned);
  fprintf(out, "  pool lock  %12" PRIu64 " acquisitions, %" PRIu64 " contended\n", s.pool_lock_acquisitions, s.pool_lock_contended);
  fprintf(out, "  size class   block size   allocations\n");
  for (unsigned i = 0; i < WS_CLASSES; i++) {
    if (s.class_allocations[i] != 0) fprintf(out, "  %10u %12" PRIu64 " %13" PRIu64 "\n", i, s.class_block_size[i], s.class_allocations[i]);
  }
}
