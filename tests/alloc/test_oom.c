// Out of memory in Wasm: built with a small -sMAXIMUM_MEMORY and -sABORTING_MALLOC=0, it
// allocates until the allocator says no. Every failure must be NULL with errno ENOMEM (never
// an abort), the blocks already handed out must be intact, and after freeing them the same
// allocations must succeed again.
#include "check.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

enum { MAX_BLOCKS = 4096 };

static void *blocks[MAX_BLOCKS];
static size_t sizes[MAX_BLOCKS];

// Fills memory until allocation fails; returns how many blocks it got.
static int fill_memory(void) {
  int count = 0;
  size_t size = 1 << 20;
  while (count < MAX_BLOCKS) {
    errno = 0;
    void *p = WS(malloc)(size);
    if (p == NULL) {
      CHECK(errno == ENOMEM);
      if (size <= 64) break;
      size /= 4;  // then smaller pieces, down into the small size classes
      continue;
    }
    memset(p, count & 0xff, size);
    blocks[count] = p;
    sizes[count++] = size;
  }
  return count;
}

static int intact(int count) {
  for (int i = 0; i < count; i++) {
    unsigned char *p = blocks[i];
    if (p[0] != (unsigned char)i || p[sizes[i] - 1] != (unsigned char)i) return 0;
  }
  return 1;
}

int main(void) {
  int first = fill_memory();
  CHECK(first > 8);
  CHECK(intact(first));
  errno = 0;
  CHECK(WS(calloc)(1 << 20, 1) == NULL && errno == ENOMEM);
  errno = 0;
  void *aligned = WS(memalign)(1 << 16, 1 << 20);
  CHECK(aligned == NULL && errno == ENOMEM);
  void *grown = WS(realloc)(blocks[0], 64 << 20);
  CHECK(grown == NULL && intact(first));  // the old block survives a failed realloc
  for (int i = 0; i < first; i++) WS(free)(blocks[i]);
  int second = fill_memory();
  CHECK(second >= first - first / 10);  // freed memory is reusable, not lost
  CHECK(intact(second));
  for (int i = 0; i < second; i++) WS(free)(blocks[i]);
  printf("oom: %d blocks before the first failure, %d after freeing them: ", first, second);
  return check_summary("oom");
}
