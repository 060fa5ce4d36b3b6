// Glue that lets unmodified mimalloc v2 replace Emscripten 3.1.6's malloc (-sMALLOC=none).
//
// Emscripten allocates each new thread's TLS block with emscripten_builtin_memalign before
// that thread's TLS exists, and mimalloc's per-thread heap lives in TLS. So the builtin
// entry points go to a separate, lock-based allocator (Emscripten's emmalloc compiled with
// its standard names renamed away), and emscripten_builtin_free, which also receives pointers
// from plain malloc, dispatches on who owns the pointer.

#include <stddef.h>
#include <stdbool.h>

// emmalloc's own names; its standard names are renamed away when it is compiled.
void *emmalloc_malloc(size_t size);
void *emmalloc_memalign(size_t alignment, size_t size);
void emmalloc_free(void *ptr);

bool mi_is_in_heap_region(const void *ptr);
void mi_free(void *ptr);

void *emscripten_builtin_malloc(size_t size) { return emmalloc_malloc(size); }

void *emscripten_builtin_memalign(size_t alignment, size_t size) {
  return emmalloc_memalign(alignment, size);
}

void emscripten_builtin_free(void *ptr) {
  if (ptr == NULL) return;
  if (mi_is_in_heap_region(ptr)) {
    mi_free(ptr);
  } else {
    emmalloc_free(ptr);
  }
}
