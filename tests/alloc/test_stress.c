// Multithreaded stress test, after mimalloc's test-stress: threads with uneven amounts of
// work allocate blocks of mixed sizes, fill them with a pattern, and free them in random
// order; a quarter of their steps swap blocks through a shared array by atomic exchange, so
// many blocks are freed by a thread other than the one that allocated them. Threads are
// created and joined again every round. Every block's pattern is checked before it is freed.
// Meanwhile the main thread takes statistics snapshots, which read the runs' counters as the
// threads change them: under TSan, every such read must be one it knows to be atomic.
//
// usage: test_stress [threads=4] [rounds=10] [scale=100]
#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wasmscale/alloc.h"

enum { SLOTS_PER_THREAD = 200, TRANSFERS = 1000, MAX_THREADS = 32 };

static int thread_count = 4, rounds = 10, scale = 100;
static _Atomic(uintptr_t) transfer[TRANSFERS];
static _Atomic int corrupt_blocks;
static _Atomic int failed_mallocs;  // every size here (at most 1 MiB) must be served
static _Atomic int threads_done;

typedef struct header {
  size_t size;      // bytes in the block
  uint64_t cookie;  // seeds the pattern
} header;

static uint64_t next_random(uint64_t *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

static unsigned char pattern_byte(uint64_t cookie, size_t i) { return (unsigned char)(cookie >> (i % 8 * 8)) ^ (unsigned char)i; }

// Mostly small blocks, some medium, a few large: the mix real programs have.
static size_t pick_size(uint64_t *random) {
  uint64_t r = next_random(random);
  if (r % 1000 == 0) return sizeof(header) + r % (1 << 20);
  if (r % 64 == 0) return sizeof(header) + r % (64 << 10);
  return sizeof(header) + r % 1024;
}

static header *make_block(uint64_t *random) {
  size_t size = pick_size(random);
  header *block = WS(malloc)(size);
  if (block == NULL) {
    atomic_fetch_add(&failed_mallocs, 1);
    return NULL;
  }
  block->size = size;
  block->cookie = next_random(random);
  unsigned char *bytes = (unsigned char *)(block + 1);
  size_t body = size - sizeof(header);
  // Fill the edges fully and the middle sparsely: enough to see overlap, cheap for big blocks.
  for (size_t i = 0; i < body; i += (i < 256 || i + 256 >= body) ? 1 : 61) bytes[i] = pattern_byte(block->cookie, i);
  return block;
}

static void check_and_free(header *block) {
  if (block == NULL) return;
  unsigned char *bytes = (unsigned char *)(block + 1);
  size_t body = block->size - sizeof(header);
  for (size_t i = 0; i < body; i += (i < 256 || i + 256 >= body) ? 1 : 61) {
    if (bytes[i] != pattern_byte(block->cookie, i)) {
      atomic_fetch_add(&corrupt_blocks, 1);
      break;
    }
  }
  WS(free)(block);
}

static void *stress_thread(void *arg) {
  uintptr_t index = (uintptr_t)arg;
  uint64_t random = 0x9e3779b97f4a7c15ull * (index + 1) + (uint64_t)rounds;
  header *slots[SLOTS_PER_THREAD] = {0};
  long steps = (long)scale * 100 * (long)(index % 3 + 1);  // uneven: 1x, 2x or 3x the work
  for (long step = 0; step < steps; step++) {
    uint64_t r = next_random(&random);
    size_t slot = r % SLOTS_PER_THREAD;
    switch ((r >> 32) % 4) {
      case 0:  // swap through the shared array: the block we get back was likely someone else's
        check_and_free((header *)atomic_exchange(&transfer[(r >> 40) % TRANSFERS], (uintptr_t)make_block(&random)));
        break;
      case 1:
        check_and_free(slots[slot]);
        slots[slot] = NULL;
        break;
      default:
        check_and_free(slots[slot]);
        slots[slot] = make_block(&random);
        break;
    }
  }
  for (int i = 0; i < SLOTS_PER_THREAD; i++) check_and_free(slots[i]);
  atomic_fetch_add(&threads_done, 1);
  return NULL;
}

// Takes snapshots until every thread of the round is done.
static void watch_statistics(int threads) {
  do {
    ws_alloc_stats stats;
    ws_alloc_get_stats(&stats);
    sched_yield();
  } while (atomic_load(&threads_done) < threads);
}

int main(int argc, char **argv) {
  if (argc > 1) thread_count = atoi(argv[1]);
  if (argc > 2) rounds = atoi(argv[2]);
  if (argc > 3) scale = atoi(argv[3]);
  if (thread_count < 1 || thread_count > MAX_THREADS || rounds < 1 || scale < 1) {
    fprintf(stderr, "usage: test_stress [threads 1-%d] [rounds] [scale]\n", MAX_THREADS);
    return 2;
  }
  for (int round = 0; round < rounds; round++) {
    pthread_t threads[MAX_THREADS];
    atomic_store(&threads_done, 0);
    for (int i = 0; i < thread_count; i++) {
      CHECK(pthread_create(&threads[i], NULL, stress_thread, (void *)(uintptr_t)(round * thread_count + i)) == 0);
    }
    watch_statistics(thread_count);
    for (int i = 0; i < thread_count; i++) pthread_join(threads[i], NULL);
  }
  for (int i = 0; i < TRANSFERS; i++) check_and_free((header *)atomic_exchange(&transfer[i], 0));
  CHECK(atomic_load(&corrupt_blocks) == 0);
  CHECK(atomic_load(&failed_mallocs) == 0);
  printf("stress (%d threads, %d rounds, scale %d): ", thread_count, rounds, scale);
  return check_summary("stress");
}
