// Atomics on memory another thread has just grown (Wasm only; see ws_prim_see_memory in
// src/platform/platform.h). In V8 a thread checks its atomic accesses against its own record of
// the memory size, updated some time after another thread grows memory: an atomic load of the
// new memory in that window traps although a plain load works.
//
// One thread grows memory with sbrk and publishes a word at the top of the new memory; spinning
// threads refresh their view with ws_prim_see_memory and load the word atomically at once.
// With the refresh made a no-op, this traps in every run (measured: 5 of 5 on Node 20). The
// allocator and the file system call the same functions before their atomics on memory other
// threads may have grown; a window that short is not reproducible through them on demand.
// ws_prim_see_all_memory cannot be tested this way: with its refresh made a no-op, readers
// calling it did not trap (0 of 7 runs); presumably V8 also brings a thread's record up to date
// at the interrupt checks it makes on entering a function, and the function is out of line.
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "../../src/platform/platform.h"

enum { READERS = 3, ROUNDS = 1000, STEP = 64 << 10 };

static _Atomic(_Atomic int *) word;  // the word to load, or NULL
static _Atomic int waiting, stop, loaded;

static void *load_words(void *arg) {
  (void)arg;
  while (!atomic_load(&stop)) {
    _Atomic int *at = atomic_load(&word);
    if (at == NULL) continue;
    ws_prim_see_memory(at, sizeof *at);
    atomic_fetch_add(&loaded, atomic_load_explicit(at, memory_order_relaxed));
    atomic_fetch_sub(&waiting, 1);
    while (atomic_load(&word) == at) {
    }
  }
  return NULL;
}

static void grow_and_publish_words(void) {
  for (int round = 0; round < ROUNDS; round++) {
    unsigned char *memory = sbrk(STEP);
    if (memory == (void *)-1) {
      CHECK(!"sbrk failed");
      return;
    }
    _Atomic int *at = (_Atomic int *)(memory + STEP - 64);
    atomic_store(at, 1);
    atomic_store(&waiting, READERS);
    atomic_store(&word, at);
    while (atomic_load(&waiting) > 0) {
    }
    atomic_store(&word, NULL);
  }
}

int main(void) {
  pthread_t readers[READERS];
  for (int i = 0; i < READERS; i++) CHECK(pthread_create(&readers[i], NULL, load_words, NULL) == 0);
  grow_and_publish_words();
  atomic_store(&stop, 1);
  for (int i = 0; i < READERS; i++) pthread_join(readers[i], NULL);
  CHECK(atomic_load(&loaded) == ROUNDS * READERS);
  return check_summary("grown memory");
}
