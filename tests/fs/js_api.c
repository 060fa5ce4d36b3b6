// The module's JavaScript file-system API, used by the host (js_api.pre.js) around a threaded
// program: the host writes the inputs before main; threads read them and write outputs; the
// host (on the main thread, while main's pthread waits) lists, reads and deletes the outputs;
// the threads see the deletion. Run with -sPROXY_TO_PTHREAD and js_api.pre.js.
#include <emscripten/em_asm.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { THREADS = 4, BINARY_BYTES = 200000 };

static int failures;

static void expect(int condition, const char *what) {
  if (!condition) {
    printf("js-api: %s (errno %d)\n", what, errno);
    failures++;
  }
}

static void *write_output(void *arg) {
  int me = (int)(intptr_t)arg;
  char path[64], text[64];
  snprintf(path, sizeof path, "/output/t%d.txt", me);
  snprintf(text, sizeof text, "thread %d done\n", me);
  FILE *file = fopen(path, "w");
  expect(file != NULL && fputs(text, file) >= 0 && fclose(file) == 0, "a thread writes its output");
  return NULL;
}

int main(void) {
  // What the host wrote before main.
  char text[64] = {0};
  FILE *file = fopen("/input/greeting.txt", "r");
  expect(file != NULL && fgets(text, sizeof text, file) != NULL && fclose(file) == 0, "reading the host's text file");
  expect(strcmp(text, "h\xc3\xa9llo from the host\n") == 0, "the host's text arrives as UTF-8");
  static unsigned char data[BINARY_BYTES + 1];
  file = fopen("/input/data.bin", "rb");
  size_t got = file != NULL ? fread(data, 1, sizeof data, file) : 0;
  if (file != NULL) fclose(file);
  expect(got == BINARY_BYTES, "the host's binary file has its length");
  int same = 1;
  for (size_t i = 0; i < got; i++) same &= data[i] == (unsigned char)(i * 7 + 3);
  expect(same, "the host's binary file has its bytes");
  struct stat info;
  expect(stat("/input/renamed.txt", &info) == 0 && S_ISREG(info.st_mode), "the host's rename is visible");

  expect(mkdir("/output", 0755) == 0, "mkdir /output");
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, write_output, (void *)(intptr_t)i);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);

  // The host checks the outputs from the main thread while this pthread waits for it.
  int host_failures = MAIN_THREAD_EM_ASM_INT({ return Module.checkOutputs($0); }, THREADS);
  expect(host_failures == 0, "the host's checks of the outputs");
  errno = 0;
  expect(access("/output/t0.txt", F_OK) == -1 && errno == ENOENT, "the host's unlink is visible to threads");
  printf("js-api: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
