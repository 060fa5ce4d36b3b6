// Console output from many threads: every line whole, none lost, including an unfinished last
// line at exit. Lines go out through printf (stdio's buffer, then write), raw write() in
// pieces, and stderr. fsync(1) and sync() send an unfinished line on: a line another thread
// writes after them follows it ("fsync sends this line on", "sync sends this line on").
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

static void *rest_of_line(void *arg) {
  (void)arg;
  write(1, "this line on\n", 13);
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, speaker, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  write(1, "fsync sends ", 12);
  fsync(1);
  pthread_t rest;
  pthread_create(&rest, NULL, rest_of_line, NULL);
  pthread_join(rest, NULL);
  write(1, "sync sends ", 11);
  sync();
  pthread_create(&rest, NULL, rest_of_line, NULL);
  pthread_join(rest, NULL);
  printf("last words without a newline");
  return 0;
}
