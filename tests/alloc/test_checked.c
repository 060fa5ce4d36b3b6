// Checked mode: each kind of misuse must stop the program with one line naming the problem
// and the address. Run with one argument naming the misuse; "none" must run cleanly.
//   test_checked double-free | invalid-pointer | interior-pointer | overflow | large-overflow | none
#include "check.h"

#include <string.h>

static volatile unsigned char sink;

int main(int argc, char **argv) {
  const char *misuse = argc > 1 ? argv[1] : "none";
  unsigned char *block = WS(malloc)(40);
  unsigned char *large = WS(malloc)(100000);
  memset(block, 1, 40);
  memset(large, 2, 100000);
  CHECK(WS(malloc_usable_size)(block) == 40);  // checked mode reports the requested size
  if (strcmp(misuse, "double-free") == 0) {
    WS(free)(block);
    WS(free)(block);
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
  } else {
    unsigned char *grown = WS(realloc)(block, 80);  // moves, and keeps the contents
    CHECK(grown != NULL && grown[39] == 1);
    sink = grown[0];
    WS(free)(grown);
    WS(free)(large);
    return check_summary("checked");
  }
  printf("checked: the misuse '%s' was not detected\n", misuse);
  return 1;
}
