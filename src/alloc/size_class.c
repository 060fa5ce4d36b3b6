// Size classes: 16-byte steps up to 128 bytes, then 8 classes per doubling, so rounding a
// request up to its class wastes at most 1/9 (11%) of the block. ws_size_class() and
// ws_class_size() (inline, internal.h) map a size to its class and back; this gives a class's
// run length.
#include "internal.h"

// Pages in a run of this class: enough for WS_RUN_MIN_BLOCKS blocks (so a run is not used up
// every few allocations), but no more than WS_RUN_MAX_BYTES unless two blocks need more. Big
// classes get short runs because a thread's first block of one claims the whole run
// (docs/decisions.md, "the allocator's measured choices").
uint32_t _ws_class_run_pages(unsigned size_class) {
  size_t size = ws_class_size(size_class);
  size_t bytes = size * WS_RUN_MIN_BLOCKS;
  if (bytes > WS_RUN_MAX_BYTES) bytes = size * 2 > WS_RUN_MAX_BYTES ? size * 2 : WS_RUN_MAX_BYTES;
  return (uint32_t)((bytes + WS_PAGE_SIZE - 1) / WS_PAGE_SIZE);
}
