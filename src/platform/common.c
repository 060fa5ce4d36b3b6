// The parts of the platform layer that every supported platform does the same way: both
// Emscripten and Linux have POSIX threads (whose thread-specific-data destructors run at thread
// exit), sched_yield, write, abort and getentropy.
#define _DEFAULT_SOURCE  // getentropy
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/console.h>  // emscripten_console_error
#include <emscripten/heap.h>     // emscripten_get_sbrk_ptr
#include <emscripten/html5.h>    // emscripten_date_now
#endif

typedef void (*exit_fn)(void *);

static pthread_key_t exit_key;
static _Atomic(exit_fn) exit_callback;  // every thread stores the same function
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static bool exit_key_ok;

static void run_exit_callback(void *arg) {
  exit_fn callback = atomic_load(&exit_callback);
  if (callback != NULL && arg != NULL) callback(arg);
}

static void create_key(void) { exit_key_ok = pthread_key_create(&exit_key, run_exit_callback) == 0; }

// One callback for the whole program (the allocator's); each thread gives its own argument.
bool ws_prim_on_thread_exit(void (*fn)(void *), void *arg) {
  pthread_once(&exit_once, create_key);
  if (!exit_key_ok) return false;
  atomic_store(&exit_callback, fn);
  return pthread_setspecific(exit_key, arg) == 0;
}

void ws_prim_yield(void) { sched_yield(); }

void ws_prim_write_error(const char *message) {
  size_t length = strlen(message);
  while (length > 0) {
    ssize_t written = write(2, message, length);
    if (written <= 0) return;
    message += written;
    length -= (size_t)written;
  }
}

void ws_prim_abort(void) { abort(); }

_Noreturn void _ws_debug_fail(const char *condition, const char *file, int line) {
  char message[400];
  snprintf(message, sizeof message, "wasmscale: internal check failed: %s (%s:%d)\n", condition, file, line);
#ifdef __EMSCRIPTEN__
  // Straight to the JS console: a check that fails inside the file system (its start-up, a
  // lock held) could not write through it.
  emscripten_console_error(message);
#else
  ws_prim_write_error(message);
#endif
  abort();
}

void ws_prim_realtime(struct timespec *now) {
#ifdef __EMSCRIPTEN__
  // Date.now() as one JS call that returns a double: Emscripten 3.1.6's clock_gettime writes
  // its answer through views of memory, which under threads with memory growth it checks (and
  // may remake) on every call, and every file created reads the clock.
  double ms = emscripten_date_now(), seconds = __builtin_floor(ms / 1000);
  now->tv_sec = (time_t)seconds;
  now->tv_nsec = (long)((ms - seconds * 1000) * 1000000);
#else
  clock_gettime(CLOCK_REALTIME, now);
#endif
}

int ws_prim_random(void *buffer, size_t length) {
  for (size_t done = 0; done < length;) {
    size_t piece = length - done < 256 ? length - done : 256;  // getentropy's limit
    if (getentropy((char *)buffer + done, piece) != 0) return -EIO;
    done += piece;
  }
  return 0;
}

void ws_prim_see_all_memory(uintptr_t *seen_break) {
#ifdef __EMSCRIPTEN__
  // Read the break, not sbrk(0): Emscripten's sbrk compare-and-swaps it even for 0, and threads
  // calling this on every file operation contended on that word (docs/decisions.md, "the
  // allocator's measured choices").
  uintptr_t top = atomic_load_explicit((_Atomic uintptr_t *)emscripten_get_sbrk_ptr(), memory_order_acquire);
  if (seen_break != NULL) {
    if (top <= *seen_break) return;
    *seen_break = top;
  }
  ws_prim_see_memory(NULL, top);
#else
  (void)seen_break;
#endif
}
