// Where a large block is cut from: a block under the pool's largest bin (1 MiB) comes from the
// smallest free span it fits, not from the smallest hole (holes, the places large blocks left,
// are kept for blocks of their own size). Free spans: A, one hole of 128 pages, and B+C, two
// holes of 96 pages merged into one span of 192; a block of 32 pages must come from A. Its own
// program: the pool must hold nothing else.
#include "check.h"

#include <stdio.h>

enum { PAGE = 16 << 10 };

int main(void) {
  unsigned char *a = WS(malloc)(128 * PAGE - 1024), *keep_a = WS(malloc)(128 * PAGE - 1024);
  unsigned char *b = WS(malloc)(96 * PAGE - 1024), *c = WS(malloc)(96 * PAGE - 1024);
  unsigned char *keep_c = WS(malloc)(128 * PAGE - 1024);
  CHECK(a && keep_a && b && c && keep_c);
  WS(free)(a);
  WS(free)(b);
  WS(free)(c);
  WS(malloc_trim)(0);  // spans a heap keeps as spares go to the pool (nothing at the top to trim)
  unsigned char *block = WS(malloc)(32 * PAGE - 1024);
  printf("span fit: A at %p, B+C at %p, the 32-page block at %p\n", (void *)a, (void *)b, (void *)block);
  CHECK(block != NULL && block >= a && block < a + 128 * PAGE);
  WS(free)(block);
  WS(free)(keep_a);
  WS(free)(keep_c);
  return check_summary("span fit");
}
