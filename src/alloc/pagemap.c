// The page map: one descriptor per 16 KiB page of the window, allocated in chunks of
// WS_MAP_CHUNK_PAGES as memory grows, so any address finds its page without a search. A chunk
// is whole pages of memory: the pool's own (span.c) once it has some, else the platform's.
#include <string.h>

#include "internal.h"

#define CHUNK_BYTES (WS_MAP_CHUNK_PAGES * sizeof(ws_page))
_Static_assert(CHUNK_BYTES % WS_PAGE_SIZE == 0, "a chunk of descriptors fills whole pages");

ws_page *_ws_page_map[WS_MAP_CHUNKS];
uintptr_t _ws_window_base;

static uintptr_t align_up(uintptr_t address) {
  return (address + WS_CACHE_LINE - 1) & ~(uintptr_t)(WS_CACHE_LINE - 1);
}

// Memory for one chunk of descriptors, cache-line aligned. Only what aligning the break needs is
// asked for beyond the chunk: a chunk is a whole number of pages, so a break at a page boundary
// (where the pool leaves it) stays there, and the next run starts right after the chunk. (With
// a cache line more asked for each time, the pool lost most of a page to realigning after it.)
static ws_page *grow_chunk(void) {
  size_t bytes = CHUNK_BYTES;
  uintptr_t end = ws_prim_break();
  size_t pad = align_up(end) - end;
  unsigned char *memory = ws_prim_grow(pad + bytes);
  if (memory == NULL) return NULL;
  if (align_up((uintptr_t)memory) - (uintptr_t)memory > pad) {
    // Another sbrk user moved the break meanwhile: ask again with room to align (the first
    // piece stays unused).
    memory = ws_prim_grow(bytes + WS_CACHE_LINE);
    if (memory == NULL) return NULL;
  }
  return (ws_page *)align_up((uintptr_t)memory);
}

bool _ws_map_ensure(size_t first, size_t count, void *(*take_pages)(size_t bytes)) {
  size_t last = first + count - 1;
  if (last >= WS_WINDOW_PAGES) return false;
  for (size_t chunk = first / WS_MAP_CHUNK_PAGES; chunk <= last / WS_MAP_CHUNK_PAGES; chunk++) {
    if (_ws_page_map[chunk] != NULL) continue;
    ws_page *descriptors = take_pages(CHUNK_BYTES);
    if (descriptors == NULL) descriptors = grow_chunk();
    if (descriptors == NULL) return false;
    memset(descriptors, 0, CHUNK_BYTES);
    for (size_t i = 0; i < WS_MAP_CHUNK_PAGES; i++) {
      descriptors[i].index = (uint32_t)(chunk * WS_MAP_CHUNK_PAGES + i);
      descriptors[i].head = &descriptors[i];  // unused: its own head (ws_span_of)
    }
    // Published before any page it describes is handed out (which happens under the lock).
    __atomic_store_n(&_ws_page_map[chunk], descriptors, __ATOMIC_RELEASE);
  }
  return true;
}
