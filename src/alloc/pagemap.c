// The page map: one descriptor per 16 KiB page of the window, allocated in chunks of
// WS_MAP_CHUNK_PAGES as memory grows, so any address finds its page without a search; and
// beside it the heads of the runs' remote-free lists (ws_thread_free), a page of them for
// every WS_REMOTE_HEADS_PAGES pages of the window, taken before the first chunk they serve. A
// chunk, like a page of heads, is whole pages of memory: the pool's own (span.c) once it has
// some, else the platform's.
#include <string.h>

#include "internal.h"

#define CHUNK_BYTES (WS_MAP_CHUNK_PAGES * sizeof(ws_page))
_Static_assert(CHUNK_BYTES % WS_PAGE_SIZE == 0, "a chunk of descriptors fills whole pages");
_Static_assert(WS_REMOTE_HEADS_PAGES % WS_MAP_CHUNK_PAGES == 0, "a chunk's pages share one page of heads");

ws_page *_ws_page_map[WS_MAP_CHUNKS];
_Atomic uintptr_t *_ws_remote_heads[WS_WINDOW_PAGES / WS_REMOTE_HEADS_PAGES];
uintptr_t _ws_window_base;

static uintptr_t align_up(uintptr_t address) {
  return (address + WS_CACHE_LINE - 1) & ~(uintptr_t)(WS_CACHE_LINE - 1);
}

// Memory for one chunk of descriptors or page of heads from the platform, cache-line aligned.
// Only what aligning the break needs is asked for beyond `bytes`: they are a whole number of
// pages, so a break at a page boundary (where the pool leaves it) stays there, and the next run
// starts right after them. (With a cache line more asked for each time, the pool lost most of a
// page to realigning after it.)
static void *grow_map_memory(size_t bytes) {
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
  return (void *)align_up((uintptr_t)memory);
}

// Zeroed pages for the map: from take_pages (the pool) if it has them, else the platform.
static void *map_memory(size_t bytes, void *(*take_pages)(size_t bytes)) {
  void *memory = take_pages(bytes);
  if (memory == NULL) memory = grow_map_memory(bytes);
  if (memory != NULL) memset(memory, 0, bytes);
  return memory;
}

bool _ws_map_ensure(size_t first, size_t count, void *(*take_pages)(size_t bytes)) {
  size_t last = first + count - 1;
  if (last >= WS_WINDOW_PAGES) return false;
  for (size_t chunk = first / WS_MAP_CHUNK_PAGES; chunk <= last / WS_MAP_CHUNK_PAGES; chunk++) {
    if (_ws_page_map[chunk] != NULL) continue;
    size_t heads = chunk * WS_MAP_CHUNK_PAGES / WS_REMOTE_HEADS_PAGES;
    if (_ws_remote_heads[heads] == NULL) {
      _Atomic uintptr_t *page = map_memory(WS_PAGE_SIZE, take_pages);  // every list empty
      if (page == NULL) return false;
      // Published, like the chunk below, before any page it serves is handed out.
      __atomic_store_n(&_ws_remote_heads[heads], page, __ATOMIC_RELEASE);
    }
    ws_page *descriptors = map_memory(CHUNK_BYTES, take_pages);
    if (descriptors == NULL) return false;
    for (size_t i = 0; i < WS_MAP_CHUNK_PAGES; i++) {
      descriptors[i].index = (uint32_t)(chunk * WS_MAP_CHUNK_PAGES + i);
      descriptors[i].head = &descriptors[i];  // unused: its own head (ws_span_of)
    }
    // Published before any page it describes is handed out (which happens under the lock).
    __atomic_store_n(&_ws_page_map[chunk], descriptors, __ATOMIC_RELEASE);
  }
  return true;
}
