// The debug build's checks (src/platform/debug.h) stop a broken allocator, and the release
// build has none. Each scenario breaks one rule the allocator states, then does what would
// meet the check:
//   count   a run counts one block fewer in use than it has out of its free list; the heap's
//           next slow call for the class validates it (WS_DEBUG=2);
//   span    a page of a large block names no head in the page map; giving the block back to
//           the pool validates its pages (WS_DEBUG=2);
//   lock    a lock is released by a thread that does not hold it (WS_DEBUG=1).
// With the checks in, the program must stop (tests/debug.test.mjs reads the line); without
// them it prints "no check stopped it". Native only (it reads the allocator's internals),
// through the ws_* names.
//   test_debug_checks count|span|lock
#include <stdio.h>
#include <string.h>

#include "check.h"

#include "../../src/alloc/internal.h"

enum { BLOCK = 64 };

static void break_run_count(void) {
  void *first = WS(malloc)(BLOCK);
  ws_page *run = ws_span_of(first);
  WS_COUNTER_SUB(run->used, 1);
  // Use the run up: the slow path comes next, and validates the class first.
  for (uint32_t i = 0; i < run->capacity + 1; i++) (void)WS(malloc)(BLOCK);
}

static void break_span(void) {
  unsigned char *large = WS(malloc)(4 * WS_PAGE_SIZE);
  ws_page *interior = ws_page_of(large + 2 * WS_PAGE_SIZE);
  ws_page *head = interior->head;
  interior->head = NULL;
  WS(free)(large);
  interior->head = head;  // (release build: the page is free now, and named as it was)
}

static void break_lock(void) {
  static ws_prim_lock lock = WS_PRIM_LOCK_INIT;
  atomic_store(&lock.held, 1);  // held, but not by this thread as far as the lock knows
  ws_prim_lock_release(&lock);
}

int main(int argc, char **argv) {
  const char *scenario = argc > 1 ? argv[1] : "";
  if (strcmp(scenario, "count") == 0) break_run_count();
  else if (strcmp(scenario, "span") == 0) break_span();
  else if (strcmp(scenario, "lock") == 0) break_lock();
  else {
    fprintf(stderr, "usage: test_debug_checks count|span|lock\n");
    return 2;
  }
  printf("debug checks: %s: no check stopped it\n", scenario);
  return 0;
}
