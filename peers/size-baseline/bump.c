// The smallest allocator that links: a bump pointer over sbrk that never reuses memory.
// Never run; the malloc benchmark is linked with it only to measure the .wasm size of a
// program without a real allocator, so the report can say how much code each allocator adds.
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

void *memalign(size_t alignment, size_t size) {
  uintptr_t top = (uintptr_t)sbrk(0);
  uintptr_t start = (top + alignment - 1) & ~(uintptr_t)(alignment - 1);
  if (sbrk((intptr_t)(start - top + size)) == (void *)-1) return NULL;
  return (void *)start;
}

void *malloc(size_t size) { return memalign(16, size); }
void free(void *p) { (void)p; }
void *calloc(size_t count, size_t size) { return memalign(16, count * size); }

void *realloc(void *p, size_t size) {
  void *moved = malloc(size);
  if (moved && p) memcpy(moved, p, size);  // reads past the old block: acceptable, never run
  return moved;
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  *result = memalign(alignment, size);
  return *result ? 0 : 12;
}

void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }
void *emscripten_builtin_malloc(size_t size) { return malloc(size); }
void *emscripten_builtin_memalign(size_t alignment, size_t size) { return memalign(alignment, size); }
void emscripten_builtin_free(void *p) { free(p); }
