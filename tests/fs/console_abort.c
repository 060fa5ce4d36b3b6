// Console output when the program stops in the middle: an unfinished line written (printf,
// then fflush) just before abort() or running out of memory still reaches the host, ended with
// a newline, before the runtime's message about the abort.
//   console_abort abort | oom
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "abort";
  printf("unfinished line before %s", how);
  fflush(stdout);
  if (strcmp(how, "oom") == 0) {
    for (;;) {
      volatile char *block = malloc(1 << 20);  // the runtime aborts when memory is out
      if (block != NULL) block[0] = 1;
    }
  }
  abort();
}
