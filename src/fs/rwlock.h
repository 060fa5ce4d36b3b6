// The file system's per-file locks: a reader-writer lock in one 32-bit word.
//
// pthread's locks cost several atomic operations and calls per lock and unlock in Wasm
// (musl's general paths), and every read, write and lseek takes two locks; here an
// uncontended lock is one compare-and-swap and an unlock one atomic operation. A waiter spins
// briefly, then marks the word and sleeps on it; an unlock that finds the mark wakes every
// sleeper, and they compete again. Readers share the lock (a reader may join while a writer
// waits, so readers never block readers); the exclusive side doubles as a plain mutex.
//
// Word: bits 0-29 count readers, WS_RW_WRITER is an exclusive holder, WS_RW_WAITING a sleeper.
#ifndef WASMSCALE_FS_RWLOCK_H
#define WASMSCALE_FS_RWLOCK_H

#include <stdatomic.h>
#include <stdbool.h>

#include "../platform/platform.h"

typedef struct ws_rwlock {
  _Atomic unsigned word;
#if WS_DEBUG >= 1
  _Atomic uintptr_t writer;  // ws_debug_self() of the exclusive holder, 0 when none
#endif
} ws_rwlock;

#define WS_RWLOCK_INIT {0}
#define WS_RW_WRITER 0x40000000u
#define WS_RW_WAITING 0x80000000u
#define WS_RW_SPINS 100
#define WS_RW_READERS 0x3fffffffu

// Debug builds: the lock is held, shared or exclusively, by some thread (which one, a shared
// lock does not record)...
#define ws_rwlock_assert_held(lock) ws_assert(ws_rwlock_is_held(lock))
// ...and held exclusively by the calling thread.
#define ws_rwlock_assert_written(lock) ws_assert(ws_rwlock_is_written_by_caller(lock))
#if WS_DEBUG >= 1
static inline bool ws_rwlock_is_held(ws_rwlock *lock) {
  return (atomic_load_explicit(&lock->word, memory_order_relaxed) & (WS_RW_WRITER | WS_RW_READERS)) != 0;
}

static inline bool ws_rwlock_is_written_by_caller(ws_rwlock *lock) {
  return atomic_load_explicit(&lock->writer, memory_order_relaxed) == ws_debug_self();
}
#endif

// The slow path of any lock kept in a word with these bit meanings (the rwlock; a file
// description's position, in its reference count): `free_if` says which bits must be clear to
// take the lock, `take` what to add.
static inline void ws_lockword_acquire_slow(_Atomic unsigned *lock_word, unsigned free_if, unsigned take) {
  int spins = 0;
  for (;;) {
    unsigned word = atomic_load_explicit(lock_word, memory_order_relaxed);
    if ((word & free_if) == 0) {
      if (atomic_compare_exchange_weak_explicit(lock_word, &word, word + take, memory_order_acquire,
                                                memory_order_relaxed)) {
        return;
      }
      continue;
    }
    if (spins < WS_RW_SPINS) {
      spins++;
      continue;
    }
    if ((word & WS_RW_WAITING) == 0 &&
        !atomic_compare_exchange_weak_explicit(lock_word, &word, word | WS_RW_WAITING, memory_order_relaxed,
                                               memory_order_relaxed)) {
      continue;
    }
    ws_prim_futex_wait(lock_word, word | WS_RW_WAITING);
  }
}

// After a release that found WS_RW_WAITING: every sleeper wakes and competes again (one that
// still has to wait marks the word anew).
static inline void ws_lockword_wake(_Atomic unsigned *lock_word) {
  atomic_fetch_and_explicit(lock_word, ~WS_RW_WAITING, memory_order_relaxed);
  ws_prim_wake_all(lock_word);
}

static inline void ws_rwlock_read(ws_rwlock *lock) {
  unsigned word = atomic_load_explicit(&lock->word, memory_order_relaxed);
  if ((word & WS_RW_WRITER) == 0 && atomic_compare_exchange_weak_explicit(&lock->word, &word, word + 1,
                                                                          memory_order_acquire, memory_order_relaxed)) {
    return;
  }
  ws_lockword_acquire_slow(&lock->word, WS_RW_WRITER, 1);
}

// Exclusive: no readers, no writer.
static inline void ws_rwlock_write(ws_rwlock *lock) {
  unsigned word = 0;
  if (!atomic_compare_exchange_weak_explicit(&lock->word, &word, WS_RW_WRITER, memory_order_acquire,
                                             memory_order_relaxed)) {
    ws_lockword_acquire_slow(&lock->word, ~WS_RW_WAITING, WS_RW_WRITER);
  }
#if WS_DEBUG >= 1
  atomic_store_explicit(&lock->writer, ws_debug_self(), memory_order_relaxed);
#endif
}

// Either side: a holder that finds WS_RW_WRITER set is the writer.
static inline void ws_rwlock_unlock(ws_rwlock *lock) {
  unsigned word = atomic_load_explicit(&lock->word, memory_order_relaxed);
  if (word & WS_RW_WRITER) {
    ws_rwlock_assert_written(lock);
#if WS_DEBUG >= 1
    atomic_store_explicit(&lock->writer, 0, memory_order_relaxed);
#endif
    if (atomic_exchange_explicit(&lock->word, 0, memory_order_release) & WS_RW_WAITING) {
      ws_prim_wake_all(&lock->word);
    }
    return;
  }
  word = atomic_fetch_sub_explicit(&lock->word, 1, memory_order_release) - 1;
  unsigned waiting = WS_RW_WAITING;
  if (word == WS_RW_WAITING &&
      atomic_compare_exchange_strong_explicit(&lock->word, &waiting, 0, memory_order_relaxed, memory_order_relaxed)) {
    ws_prim_wake_all(&lock->word);
  }
}

#endif
