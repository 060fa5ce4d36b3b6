// Without checked mode the allocator still refuses the frees it can tell apart at no cost (by
// the page a pointer lies in): a pointer it never returned, a large block freed twice, and a
// pointer into a large block's later pages each stop the program with one line. Run with one
// argument naming the misuse; "none" frees validly.
//   test_bad_free invalid-pointer | large-double-free | large-interior-pointer | none
#include "check.h"

#include <string.h>

int main(int argc, char **argv) {
  const char *misuse = argc > 1 ? argv[1] : "none";
  unsigned char *large = WS(malloc)(200000);  // thirteen pages
  CHECK(large != NULL);
  if (strcmp(misuse, "invalid-pointer") == 0) {
    static unsigned char not_heap[64];
    WS(free)(not_heap);
  } else if (strcmp(misuse, "large-double-free") == 0) {
    WS(free)(large);
    WS(free)(large);
  } else if (strcmp(misuse, "large-interior-pointer") == 0) {
    WS(free)(large + 100000);
  } else {
    WS(free)(large);
  }
  return check_summary("bad free");
}
