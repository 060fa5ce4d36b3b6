// Shared by the tests of blocks freed by threads other than their owner (test_reuse.c,
// test_kept.c): thread A allocates BLOCKS blocks of SIZE bytes, fills them with 0xA5, and
// sleeps until told to exit. It must stay alive while others free its blocks: an exited
// thread's heap would be adopted by the next new thread, which would then own them.
// Define BLOCKS and SIZE before including; include check.h first.
#ifndef WASMSCALE_TEST_SLEEPING_OWNER_H
#define WASMSCALE_TEST_SLEEPING_OWNER_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "wasmscale/alloc.h"

static unsigned char *owned[BLOCKS];
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int stage;  // 1: A has allocated; 2: A may exit

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

static void *owner_thread(void *arg) {
  (void)arg;
  for (int i = 0; i < BLOCKS; i++) {
    owned[i] = WS(malloc)(SIZE);
    if (owned[i]) memset(owned[i], 0xA5, SIZE);
  }
  advance(1);
  wait_for(2);  // asleep while its blocks are freed and reused elsewhere
  return NULL;
}

// Starts A and returns once its blocks are allocated.
static void start_owner(pthread_t *owner) {
  CHECK(pthread_create(owner, NULL, owner_thread, NULL) == 0);
  wait_for(1);
}

// Lets A exit (its heap is then tidied) and waits for it.
static void finish_owner(pthread_t owner) {
  advance(2);
  CHECK(pthread_join(owner, NULL) == 0);
}

// Memory holding small and medium blocks: reserved, less what is free in the pool and large
// blocks (in Wasm thread stacks are large blocks).
static uint64_t run_bytes(const ws_alloc_stats *stats) {
  return stats->bytes_reserved - stats->bytes_pool_free - stats->large_in_use;
}

#endif
