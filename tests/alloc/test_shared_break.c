// The span pool shares the break with other sbrk users (span.c, grow_locked): when another user
// moves the break between the pool's look at it and its own growth, the pool uses only the
// whole pages inside what it got, keeps them as free spans, and grows again, four tries in all.
// The platform's grow is wrapped here (linked with -Wl,--wrap=ws_prim_grow) so that another
// user takes a few bytes just before each of the pool's next growths, on one thread, every run
// alike:
//   - with three such moves a span is still had, on the fourth try, and none of its pages holds
//     the other user's bytes;
//   - with four, the pool gives up (NULL), and nothing it got is lost: the next span of that
//     size comes from the pieces it kept, without growing.
#include "check.h"

#include <string.h>

#include "../../src/alloc/internal.h"

enum { PAGES = 10, OTHER_BYTES = 16, MOVES_MAX = 8 };  // PAGES: more than one growth step (WS_GROW_MIN)

void *__real_ws_prim_grow(size_t bytes);

static int moves_left;  // growths still to be preceded by the other user's
static uintptr_t other[MOVES_MAX];  // what the other user got
static int other_count;

void *__wrap_ws_prim_grow(size_t bytes) {
  if (moves_left > 0 && other_count < MOVES_MAX) {
    moves_left--;
    other[other_count++] = (uintptr_t)__real_ws_prim_grow(OTHER_BYTES);
  }
  return __real_ws_prim_grow(bytes);
}

static uint64_t reserved(void) {
  ws_alloc_stats stats;
  uint64_t large_peak;
  memset(&stats, 0, sizeof stats);
  _ws_span_stats(&stats, &large_peak);
  return stats.bytes_reserved;
}

static ws_page *take(size_t pages) { return _ws_span_alloc(pages, WS_PAGE_SIZE, WS_PAGE_LARGE, WS_SPAN_MAY_GROW); }

// Whether any of the other user's bytes lie in `span`.
static bool holds_other_bytes(const ws_page *span) {
  uintptr_t start = (uintptr_t)ws_page_address(span), end = start + (uintptr_t)span->pages * WS_PAGE_SIZE;
  for (int i = 0; i < other_count; i++) {
    if (other[i] + OTHER_BYTES > start && other[i] < end) return true;
  }
  return false;
}

static void three_moves(void) {
  moves_left = 3;
  ws_page *span = take(PAGES);
  CHECK(span != NULL);
  CHECK(moves_left == 0 && other_count == 3);
  if (span != NULL) {
    CHECK(!holds_other_bytes(span));
    _ws_span_free(span);
  }
}

// Larger than any piece the three moves left, so that the pool must grow.
static void four_moves(void) {
  moves_left = 4;
  other_count = 0;
  CHECK(take(3 * PAGES) == NULL);
  CHECK(moves_left == 0 && other_count == 4);
  uint64_t before = reserved();
  ws_page *span = take(3 * PAGES);
  CHECK(span != NULL);
  CHECK(reserved() == before);  // from the pieces of the four tries
  if (span != NULL) {
    CHECK(!holds_other_bytes(span));
    _ws_span_free(span);
  }
}

int main(void) {
  _ws_span_free(take(1));  // settles the page map's first chunk, which holds every span below
  _ws_span_trim();
  three_moves();
  four_moves();
  return check_summary("shared break");
}
