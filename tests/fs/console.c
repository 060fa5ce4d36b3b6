// Console output from many threads: every line whole, none lost, including an unfinished last
// line at exit. Lines go out through printf (stdio's buffer, then write), raw write() in
// pieces, and stderr.
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { THREADS = 4, LINES = 200 };

static void *speaker(void *arg) {
  int me = (int)(long)arg;
  for (int line = 0; line < LINES; line++) {
    if (line % 10 == 9) {
      char text[64];
      int length = snprintf(text, sizeof text, "thread %d line %d end\n", me, line);
      write(1, text, 5);  // one line in two raw writes: it still arrives whole
      write(1, text + 5, (size_t)length - 5);
    } else {
      printf("thread %d line %d end\n", me, line);
    }
  }
  fprintf(stderr, "thread %d done\n", me);
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, speaker, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  printf("last words without a newline");
  return 0;
}
