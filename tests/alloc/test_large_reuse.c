// Freed memory serves larger blocks: free spans coalesce and a later, larger request takes them,
// whichever thread freed them. Run in Wasm with a 64 MiB memory limit (-sMAXIMUM_MEMORY=64MB):
//   - one block of 1, 2, ... 48 MiB at a time, each freed before the next (dlmalloc reaches 48);
//   - 4 threads take 1 MiB blocks until memory runs out and free them all; then one 8 MiB block.
#include "check.h"

#include <pthread.h>
#include <string.h>

enum { THREADS = 4, MOST = 64 };

static void *fill(void *arg) {
  void **blocks = arg;
  for (int i = 0; i < MOST; i++) {
    blocks[i] = WS(malloc)((size_t)1 << 20);
    if (blocks[i] == NULL) break;
    memset(blocks[i], i, 4096);
  }
  return NULL;
}

int main(void) {
  int reached = 0;
  for (int mb = 1; mb <= 48; mb++) {
    void *p = WS(malloc)((size_t)mb << 20);
    if (p == NULL) break;
    memset(p, 1, (size_t)mb << 20);
    WS(free)(p);
    reached = mb;
  }
  printf("large reuse: one block at a time reached %d MiB\n", reached);
  CHECK(reached == 48);

  static void *blocks[THREADS][MOST];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, fill, blocks[t]);
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  int taken = 0;
  for (int t = 0; t < THREADS; t++) {
    for (int i = 0; i < MOST && blocks[t][i] != NULL; i++, taken++) WS(free)(blocks[t][i]);
  }
  void *big = WS(malloc)((size_t)8 << 20);
  printf("large reuse: %d blocks of 1 MiB taken by %d threads and freed; then 8 MiB: %s\n", taken, THREADS,
         big != NULL ? "served" : "NULL");
  CHECK(taken >= 40 && big != NULL);
  WS(free)(big);
  return check_summary("large reuse");
}
