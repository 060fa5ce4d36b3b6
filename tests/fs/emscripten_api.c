// The program of tests/fs/emscripten_api.pre.js: main sees what the script wrote through
// Emscripten's FS API, in memory and on the mounted host directory.
#include <stdio.h>

static void show(const char *path) {
  char text[64] = {0};
  FILE *file = fopen(path, "r");
  if (file == NULL) {
    printf("main: %s: cannot open\n", path);
    return;
  }
  size_t length = fread(text, 1, sizeof text - 1, file);
  fclose(file);
  printf("main: %s: %.*s\n", path, (int)length, text);
}

int main(void) {
  show("/work/pre.txt");
  show("/pkg/data/packed.txt");
  show("/pkg/data/lazy.txt");
  show("/host/from-script.txt");
  show("/host/from-host.txt");
  return 0;
}
