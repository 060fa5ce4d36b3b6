// For the tests whose threads take turns (sleeping_owner.h, test_handoff.c): a stage number
// threads wait for and move on, and the memory the allocator holds in runs. Include check.h
// first.
#ifndef WASMSCALE_TEST_TURNS_H
#define WASMSCALE_TEST_TURNS_H

#include <pthread.h>
#include <stdint.h>

#include "wasmscale/alloc.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int stage;  // what each stage means is the test's

static void wait_for(int wanted) {
  pthread_mutex_lock(&mutex);
  while (stage < wanted) pthread_cond_wait(&changed, &mutex);
  pthread_mutex_unlock(&mutex);
}

static void advance(int to) {
  pthread_mutex_lock(&mutex);
  stage = to;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&mutex);
}

// Memory holding small and medium blocks: reserved, less what is free in the pool and large
// blocks (in Wasm thread stacks are large blocks).
static uint64_t run_bytes(const ws_alloc_stats *stats) {
  return stats->bytes_reserved - stats->bytes_pool_free - stats->large_in_use;
}

#endif
