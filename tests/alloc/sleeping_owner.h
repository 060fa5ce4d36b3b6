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

#include "turns.h"
#include "wasmscale/alloc.h"

static unsigned char *owned[BLOCKS];  // stage 1: A has allocated; 2: A may exit

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

#endif
