// The page map: one descriptor per 16 KiB page of the window, allocated in chunks of
// WS_MAP_CHUNK_PAGES as memory grows, so any address finds its page without a search.
#include <string.h>

#include "internal.h"

ws_page *_ws_page_map[WS_MAP_CHUNKS];
uintptr_t _ws_window_base;

bool _ws_map_ensure(size_t first, size_t count) {
  size_t last = first + count - 1;
  if (last >= WS_WINDOW_PAGES) return false;
  for (size_t chunk = first / WS_MAP_CHUNK_PAGES; chunk <= last / WS_MAP_CHUNK_PAGES; chunk++) {
    if (_ws_page_map[chunk] != NULL) continue;
    size_t bytes = WS_MAP_CHUNK_PAGES * sizeof(ws_page) + WS_CACHE_LINE;
    unsigned char *memory = ws_prim_grow(bytes);
    if (memory == NULL) return false;
    uintptr_t aligned = ((uintptr_t)memory + WS_CACHE_LINE - 1) & ~(uintptr_t)(WS_CACHE_LINE - 1);
    ws_page *descriptors = (ws_page *)aligned;
    memset(descriptors, 0, WS_MAP_CHUNK_PAGES * sizeof(ws_page));
    for (size_t i = 0; i < WS_MAP_CHUNK_PAGES; i++) descriptors[i].index = (uint32_t)(chunk * WS_MAP_CHUNK_PAGES + i);
    // Published before any page it describes is handed out (which happens under the lock).
    __atomic_store_n(&_ws_page_map[chunk], descriptors, __ATOMIC_RELEASE);
  }
  return true;
}
