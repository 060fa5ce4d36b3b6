// Threads that come and go must not make memory grow: 200 rounds of starting threads that
// allocate (small, medium and large blocks), free most of it, hand the rest to the main
// thread and exit (half by returning, half through pthread_exit). Their heaps are abandoned
// and adopted by the next threads. The memory the
// allocator has reserved must level off. A leak (heaps or runs not reused) grows it in step
// with the rounds; fragmentation of the shared pool may add a step before it settles (in Wasm,
// 1 of 20 processes: 22.2 -> 24.3 MB, one more thread stack). So: the second hundred rounds
// may add at most half, all 200 at most double. The number of heaps must stay bounded.
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "wasmscale/alloc.h"

enum { THREADS = 4, ROUNDS = 200, BLOCKS = 400, KEPT = 40 };

static void *handed_over[THREADS][KEPT];
// Every round's threads hold all their blocks at once before freeing them, so each round needs
// the same peak however the threads are scheduled: a round whose threads happened to overlap
// for the first time would otherwise raise the level late (seen under load).
static pthread_barrier_t all_allocated;

static void *churn_thread(void *arg) {
  uintptr_t index = (uintptr_t)arg;
  void *blocks[BLOCKS];
  for (int i = 0; i < BLOCKS; i++) {
    size_t size = i % 50 == 0 ? 100000 + (size_t)i * 16 : 16 + (size_t)((i * 37 + index) % 3000);
    blocks[i] = WS(malloc)(size);
    if (blocks[i]) memset(blocks[i], (int)i, 16);
  }
  pthread_barrier_wait(&all_allocated);
  for (int i = 0; i < BLOCKS; i++) {
    if (i < KEPT) handed_over[index][i] = blocks[i];  // freed later by the main thread
    else WS(free)(blocks[i]);
  }
  // Half the threads end through pthread_exit, half by returning: both must give up the heap.
  if (index % 2 == 1) pthread_exit(NULL);
  return NULL;
}

int main(void) {
  uint64_t reserved_early = 0, reserved_half = 0;
  ws_alloc_stats stats;
  CHECK(pthread_barrier_init(&all_allocated, NULL, THREADS) == 0);
  for (int round = 0; round < ROUNDS; round++) {
    pthread_t threads[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++) CHECK(pthread_create(&threads[i], NULL, churn_thread, (void *)i) == 0);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    for (int t = 0; t < THREADS; t++) {
      for (int i = 0; i < KEPT; i++) {
        unsigned char *block = handed_over[t][i];
        CHECK(block != NULL && block[15] == (unsigned char)i);
        WS(free)(block);
      }
    }
    if (round == 19 || round == ROUNDS / 2 - 1) {
      ws_alloc_get_stats(&stats);
      *(round == 19 ? &reserved_early : &reserved_half) = stats.bytes_reserved;
    }
  }
  ws_alloc_get_stats(&stats);
  printf("churn: reserved after 20 rounds %llu, %d rounds %llu, %d rounds %llu; heaps %llu live, %llu abandoned\n",
         (unsigned long long)reserved_early, ROUNDS / 2, (unsigned long long)reserved_half, ROUNDS,
         (unsigned long long)stats.bytes_reserved,
         (unsigned long long)stats.heaps_live, (unsigned long long)stats.heaps_abandoned);
  CHECK(stats.bytes_reserved <= reserved_half + reserved_half / 2);
  CHECK(stats.bytes_reserved <= 2 * reserved_early);
  CHECK(stats.heaps_live + stats.heaps_abandoned <= THREADS + 2);  // heaps are reused
  return check_summary("churn");
}
