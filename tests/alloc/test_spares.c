// A thread that cycles through memory reuses the runs it empties itself, of one page or more,
// instead of giving each back to the shared pool and taking another: with two threads doing so
// at once, runs went back and forth between them through the pool's lock, and each took the
// other's runs out of its cache (standard workload in Wasm, 2 threads: 54 -> 31 ms).
//
// Each thread keeps a ring of blocks of 1000-2023 bytes (two-page runs) and frees the oldest
// for every new one, so a run empties about every 21 allocations of its class. The pool lock
// must be taken far less often than runs are emptied and refilled.
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "wasmscale/alloc.h"

enum { RING = 1024, STEPS = 200000, THREADS = 2 };

static void *cycle(void *arg) {
  uint64_t state = (uintptr_t)arg * 0x9e3779b97f4a7c15u + 1;
  static _Thread_local unsigned char *ring[RING];
  for (int step = 0; step < STEPS; step++) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    size_t size = 1000 + (size_t)(state >> 33) % 1024;
    unsigned char *block = WS(malloc)(size);
    CHECK(block != NULL);
    if (block == NULL) break;
    block[0] = block[size - 1] = (unsigned char)step;
    WS(free)(ring[step % RING]);
    ring[step % RING] = block;
  }
  for (int i = 0; i < RING; i++) WS(free)(ring[i]);
  return NULL;
}

int main(void) {
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  pthread_t threads[THREADS];
  for (uintptr_t i = 0; i < THREADS; i++) CHECK(pthread_create(&threads[i], NULL, cycle, (void *)i) == 0);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  ws_alloc_get_stats(&after);
  // Every step allocates one block; a run of these classes holds 16-28 blocks.
  uint64_t run_cycles = (uint64_t)THREADS * STEPS / 28;
  uint64_t taken = after.pool_lock_acquisitions - before.pool_lock_acquisitions;
  printf("pool lock taken %llu times for at least %llu runs emptied and refilled\n", (unsigned long long)taken,
         (unsigned long long)run_cycles);
  CHECK(taken < run_cycles / 10);
  return check_summary("spares");
}
