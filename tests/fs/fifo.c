// FIFO opens that wait for each other, round after round: a thread opens one end and the
// program's thread the other, in either order; a writer may open, write, close and go before
// the reader's open has finished, and that reader must still return (a peer that came and
// went released it) and read the round's bytes, then end of file.
//   fifo [rounds]
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"

static _Atomic int failures;  // counted by both threads

static void fail(const char *what, int round, long detail) {
  printf("fifo: round %d: %s (%ld, errno %d)\n", round, what, detail, errno);
  failures++;
}

static void write_round(int round) {
  int fd = (int)t_open("fifo", O_WRONLY, 0);
  if (fd < 0) {
    fail("open for writing", round, fd);
    return;
  }
  long wrote = t_write(fd, &round, sizeof round);
  if (wrote != sizeof round) fail("write", round, wrote);
  t_close(fd);
}

static void read_round(int round) {
  int fd = (int)t_open("fifo", O_RDONLY, 0);
  if (fd < 0) {
    fail("open for reading", round, fd);
    return;
  }
  int got = -1;
  long length = t_read(fd, &got, sizeof got);
  if (length != sizeof got || got != round) fail("read the round's bytes", round, length == sizeof got ? got : length);
  long end = t_read(fd, &got, sizeof got);
  if (end != 0) fail("end of file after the writer closed", round, end);
  t_close(fd);
}

static void *writer(void *round) { return write_round((int)(intptr_t)round), NULL; }
static void *reader(void *round) { return read_round((int)(intptr_t)round), NULL; }

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 500;
  if (rounds < 1 || rounds > 100000) {
    printf("fifo: rounds must be 1-100000\n");
    return 2;
  }
  char dir[256];
  if (enter_scratch_dir("fifo", dir, sizeof dir) != 0 || t_mkfifo("fifo", 0644) != 0) {
    printf("fifo: cannot set up %s (errno %d)\n", dir, errno);
    return 1;
  }
  for (int round = 0; round < rounds && failures < 5; round++) {
    pthread_t peer;
    bool thread_writes = round % 2 == 0;
    pthread_create(&peer, NULL, thread_writes ? writer : reader, (void *)(intptr_t)round);
    if (thread_writes) read_round(round); else write_round(round);
    pthread_join(peer, NULL);
  }
  t_unlink("fifo");
  t_chdir("/");
  t_rmdir(dir);
  printf("fifo: %d rounds: %s\n", rounds, failures == 0 ? "every open returned, every round read" : "FAILED");
  return failures == 0 ? 0 : 1;
}
