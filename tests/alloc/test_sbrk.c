// The allocator shares sbrk with other code: threads interleave malloc with their own sbrk
// calls. Every break sbrk returns must be 16-byte aligned, and no malloc block may overlap
// memory taken directly with sbrk (both are filled with patterns and checked at the end).
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

enum { THREADS = 4, STEPS = 300, RAW_BYTES = 1000 };

typedef struct piece {
  unsigned char *p;
  size_t size;
  unsigned char fill;
} piece;

static piece pieces[THREADS][STEPS * 2];
static int misaligned;

static void *worker(void *arg) {
  uintptr_t index = (uintptr_t)arg;
  for (int step = 0; step < STEPS; step++) {
    size_t size = 16 + (size_t)((step * 131 + index * 17) % 40000);
    unsigned char fill = (unsigned char)(index * 64 + step);
    unsigned char *block = WS(malloc)(size);
    unsigned char *raw = sbrk(RAW_BYTES);  // another sbrk user, between the allocator's calls
    if (raw == (void *)-1) raw = NULL;
    if (raw && ((uintptr_t)raw & 15) != 0) misaligned++;
    if (block) memset(block, fill, size);
    if (raw) memset(raw, fill ^ 0xff, RAW_BYTES);
    pieces[index][2 * step] = (piece){block, size, fill};
    pieces[index][2 * step + 1] = (piece){raw, RAW_BYTES, (unsigned char)(fill ^ 0xff)};
  }
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  for (uintptr_t i = 0; i < THREADS; i++) CHECK(pthread_create(&threads[i], NULL, worker, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  CHECK(misaligned == 0);
  int intact = 1, present = 1;
  for (int t = 0; t < THREADS; t++) {
    for (int i = 0; i < STEPS * 2; i++) {
      piece *piece = &pieces[t][i];
      if (piece->p == NULL) {
        present = 0;
        continue;
      }
      for (size_t b = 0; b < piece->size; b += 7) intact &= piece->p[b] == piece->fill;
    }
  }
  CHECK(present);
  CHECK(intact);
  for (int t = 0; t < THREADS; t++) {
    for (int i = 0; i < STEPS * 2; i += 2) WS(free)(pieces[t][i].p);
  }
  void *after = WS(malloc)(100000);  // the allocator still works on top of a moved break
  CHECK(after != NULL);
  WS(free)(after);
  return check_summary("sbrk");
}
