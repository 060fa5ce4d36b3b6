// Checked mode: each kind of misuse must stop the program with one line naming the problem
// and the address, and valid use (every size, alignment and reuse pattern below) must never
// stop it. Run with one argument naming the misuse; "none" runs the valid uses.
//   test_checked double-free | large-double-free | invalid-pointer | interior-pointer |
//                overflow | large-overflow | underflow | use-after-free | none
#include "check.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "wasmscale/alloc.h"

static volatile unsigned char sink;

// Frees enough other blocks that every block freed before them leaves the quarantine (and is
// checked as it leaves).
static void flush_quarantine(void) {
  for (int i = 0; i < 2100; i++) WS(free)(WS(malloc)(24));
}

// Valid programs: every small size freed at once (std::thread's 4-byte tuple), every size up
// to a few pages written to its last byte, aligned blocks, realloc, blocks that leave the
// quarantine and are reused, and sizes too large for any window.
static void valid_uses(void) {
  for (size_t n = 0; n <= 64; n++) WS(free)(WS(malloc)(n));
  for (size_t n = 1; n <= 70000; n += n < 256 ? 1 : 997) {
    unsigned char *p = WS(malloc)(n);
    CHECK(p != NULL);
    p[0] = 1;
    p[n - 1] = 2;
    CHECK(WS(malloc_usable_size)(p) == n);
    WS(free)(p);
  }
  for (size_t alignment = 8; alignment <= 65536; alignment *= 2) {
    unsigned char *p = WS(aligned_alloc)(alignment, 3 * alignment);
    CHECK(p != NULL && (uintptr_t)p % alignment == 0);
    memset(p, 7, 3 * alignment);
    WS(free)(p);
  }
  unsigned char *calloced = WS(calloc)(100, 3);
  CHECK(calloced != NULL && calloced[299] == 0);
  WS(free)(calloced);
  flush_quarantine();
  unsigned char *again = WS(malloc)(24);  // a block that was poisoned, back in use
  memset(again, 0, 24);
  WS(free)(again);
  unsigned char *big = WS(malloc)((size_t)20 << 20);  // larger than the whole quarantine
  CHECK(big != NULL);
  big[((size_t)20 << 20) - 1] = 1;
  WS(free)(big);
  // Sizes no window can hold fail, though the header and canaries added to them would wrap
  // around to a small block.
  errno = 0;
  CHECK(WS(malloc)(SIZE_MAX) == NULL && errno == ENOMEM);
  CHECK(WS(malloc)(SIZE_MAX - 20) == NULL && errno == ENOMEM);
  // Blocks leaving the quarantine go back to their runs: cycling through it takes no more memory.
  flush_quarantine();
  ws_alloc_stats stats;
  ws_alloc_get_stats(&stats);
  uint64_t held = stats.bytes_reserved - stats.bytes_pool_free;  // the big block's pages are free in the pool
  for (int i = 0; i < 10; i++) flush_quarantine();
  ws_alloc_get_stats(&stats);
  CHECK(stats.bytes_reserved - stats.bytes_pool_free == held);
}

int main(int argc, char **argv) {
  const char *misuse = argc > 1 ? argv[1] : "none";
  unsigned char *block = WS(malloc)(40);
  unsigned char *large = WS(malloc)(100000);
  unsigned char *huge = WS(malloc)((size_t)1 << 20);
  memset(block, 1, 40);
  memset(large, 2, 100000);
  CHECK(WS(malloc_usable_size)(block) == 40);  // checked mode reports the requested size
  if (strcmp(misuse, "double-free") == 0) {
    WS(free)(block);
    WS(free)(block);
  } else if (strcmp(misuse, "large-double-free") == 0) {
    WS(free)(huge);
    WS(free)(huge);
  } else if (strcmp(misuse, "invalid-pointer") == 0) {
    static unsigned char not_heap[64];
    WS(free)(not_heap);
  } else if (strcmp(misuse, "interior-pointer") == 0) {
    WS(free)(block + 16);
  } else if (strcmp(misuse, "overflow") == 0) {
    block[40] = 0;  // one byte past the end
    WS(free)(block);
  } else if (strcmp(misuse, "large-overflow") == 0) {
    large[100000 + 3] = 0;
    WS(free)(large);
  } else if (strcmp(misuse, "underflow") == 0) {
    ((volatile unsigned char *)block)[-1] = 0;  // one byte before the start
    WS(free)(block);
  } else if (strcmp(misuse, "use-after-free") == 0) {
    WS(free)(block);
    ((volatile unsigned char *)block)[5] = 9;  // a write to the freed block
    flush_quarantine();
  } else {
    valid_uses();
    unsigned char *grown = WS(realloc)(block, 80);  // moves, and keeps the contents
    CHECK(grown != NULL && grown[39] == 1);
    sink = grown[0];
    WS(free)(grown);
    WS(free)(large);
    WS(free)(huge);
    return check_summary("checked");
  }
  printf("checked: the misuse '%s' was not detected\n", misuse);
  return 1;
}
