// Counts its runs in /saved/runs.txt, which the pre-js (idbfs.pre.js) mounts with Emscripten's
// IDBFS, then syncs the mount back as Emscripten programs do: a page loaded twice prints run 1,
// then run 2.
#include <emscripten.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int runs = 0;
  FILE *file = fopen("/saved/runs.txt", "r");
  if (file != NULL) {
    if (fscanf(file, "%d", &runs) != 1) runs = -1000;
    fclose(file);
  }
  file = fopen("/saved/runs.txt", "w");
  if (file == NULL || fprintf(file, "%d\n", runs + 1) < 0 || fclose(file) != 0) {
    perror("idbfs: write /saved/runs.txt");
    return 1;
  }
  // wasmscale's syncfs calls back before it returns (Emscripten's IDBFS would call back later).
  int synced = EM_ASM_INT({
    var result = 'no callback';
    FS.syncfs(false, function(error) { result = error; });
    return result === null ? 1 : 0;
  });
  printf("idbfs: run %d, synced %s\n", runs + 1, synced ? "yes" : "no");
  return 0;
}
