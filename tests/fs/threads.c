// Many threads on one file system at once: each creates, writes, renames, reads and deletes
// files in a private directory and in a shared one, appends fixed-size records to one common
// file, and races a renamer that flips one file between two names. At the end the state is
// checked: exactly the files that should exist do, each with its own content, and every
// appended record is whole.
//   threads [threads] [rounds]
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"

enum { RECORD = 32, FLIP_CONTENT_BYTES = 64 };

static int rounds;
static _Atomic int failures, flip_done;

#define CHECK(condition, ...)                 \
  do {                                        \
    if (!(condition)) {                       \
      printf("threads: " __VA_ARGS__);        \
      printf(" (errno %d)\n", errno);         \
      atomic_fetch_add(&failures, 1);         \
      return NULL;                            \
    }                                         \
  } while (0)

static size_t content_size(int thread, int round) { return 100 + (size_t)((thread * 7919 + round * 131) % 9000); }
static unsigned char content_byte(int thread, int round, size_t i) { return (unsigned char)(thread * 31 + round * 7 + i); }

static int check_content(const char *path, int thread, int round) {
  static _Thread_local unsigned char data[10000];
  int fd = (int)t_open(path, O_RDONLY, 0);
  if (fd < 0) return -1;
  size_t size = content_size(thread, round);
  long got = t_read(fd, data, sizeof data);
  t_close(fd);
  if (got != (long)size) return -2;
  for (size_t i = 0; i < size; i++) {
    if (data[i] != content_byte(thread, round, i)) return -3;
  }
  return 0;
}

static void *worker(void *arg) {
  int me = (int)(intptr_t)arg;
  char private_dir[32], path[64], shared[64];
  unsigned char data[10000];
  snprintf(private_dir, sizeof private_dir, "t%d", me);
  CHECK(t_mkdir(private_dir, 0755) == 0, "mkdir %s", private_dir);
  int common = (int)t_open("common", O_WRONLY | O_APPEND, 0);
  CHECK(common >= 0, "open common");
  for (int round = 0; round < rounds; round++) {
    snprintf(path, sizeof path, "t%d/f%d", me, round);
    snprintf(shared, sizeof shared, "shared/t%d-%d", me, round);
    size_t size = content_size(me, round);
    for (size_t i = 0; i < size; i++) data[i] = content_byte(me, round, i);
    int fd = (int)t_open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    CHECK(fd >= 0, "create %s", path);
    CHECK(t_write(fd, data, size) == (long)size, "write %s", path);
    CHECK(t_close(fd) == 0, "close %s", path);
    CHECK(check_content(path, me, round) == 0, "read back %s", path);
    CHECK(t_rename(path, shared) == 0, "rename %s to %s", path, shared);
    CHECK(check_content(shared, me, round) == 0, "read back %s", shared);
    if (round % 3 == 2) CHECK(t_unlink(shared) == 0, "unlink %s", shared);
    snprintf(path, sizeof path, "t%d/sub", me);
    CHECK(t_mkdir(path, 0755) == 0 && t_rmdir(path) == 0, "mkdir+rmdir %s", path);
    unsigned char record[RECORD];
    memset(record, 'a' + me % 26, sizeof record);
    memcpy(record, &round, sizeof round);
    CHECK(t_write(common, record, RECORD) == RECORD, "append to common");
    // The flipping file: present under one of two names at any moment.
    for (int name = 0; name < 2; name++) {
      fd = (int)t_open(name ? "shared/flip-b" : "shared/flip-a", O_RDONLY, 0);
      CHECK(fd >= 0 || errno == ENOENT, "open the flipping file");
      if (fd >= 0) {
        long got = t_read(fd, data, FLIP_CONTENT_BYTES + 1);
        t_close(fd);
        CHECK(got == FLIP_CONTENT_BYTES && data[0] == 'F', "read the flipping file (%ld bytes)", got);
      }
    }
  }
  t_close(common);
  return NULL;
}

static void *flipper(void *arg) {
  (void)arg;
  for (int flips = 0; !atomic_load(&flip_done) || flips < 2; flips++) {
    CHECK(t_rename(flips % 2 ? "shared/flip-b" : "shared/flip-a", flips % 2 ? "shared/flip-a" : "shared/flip-b") == 0,
          "flip");
  }
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  rounds = argc > 2 ? atoi(argv[2]) : 60;
  char dir[256];
  if (enter_scratch_dir("threads", dir, sizeof dir) != 0 || t_mkdir("shared", 0755) != 0) {
    printf("threads: cannot set up %s\n", dir);
    return 1;
  }
  int fd = (int)t_open("common", O_WRONLY | O_CREAT, 0644);
  t_close(fd);
  unsigned char flip[FLIP_CONTENT_BYTES];
  memset(flip, 'F', sizeof flip);
  fd = (int)t_open("shared/flip-a", O_WRONLY | O_CREAT, 0644);
  t_write(fd, flip, sizeof flip);
  t_close(fd);
  pthread_t workers[64], renamer;
  pthread_create(&renamer, NULL, flipper, NULL);
  for (int i = 0; i < threads; i++) pthread_create(&workers[i], NULL, worker, (void *)(intptr_t)i);
  for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
  atomic_store(&flip_done, 1);
  pthread_join(renamer, NULL);
  // The final state.
  int expected = 1 + threads * (rounds - rounds / 3);  // + the flipping file
  int found = t_count_entries("shared");
  if (found != expected) {
    printf("threads: shared holds %d entries, expected %d\n", found, expected);
    failures++;
  }
  for (int t = 0; t < threads; t++) {
    char path[64];
    for (int round = 0; round < rounds; round++) {
      snprintf(path, sizeof path, "shared/t%d-%d", t, round);
      int result = check_content(path, t, round);
      if ((round % 3 == 2) != (result == -1) || (result != 0 && result != -1)) {
        printf("threads: %s: check gave %d\n", path, result);
        failures++;
      }
      if (result == 0) t_unlink(path);
    }
    snprintf(path, sizeof path, "t%d", t);
    if (t_count_entries(path) != 0 || t_rmdir(path) != 0) {
      printf("threads: %s is not empty at the end\n", path);
      failures++;
    }
  }
  fd = (int)t_open("common", O_RDONLY, 0);
  long long size = t_size(fd);
  int counts[64] = {0};
  unsigned char record[RECORD];
  while (t_read(fd, record, RECORD) == RECORD) {
    int me = -1;
    for (int t = 0; t < threads; t++) me = record[RECORD - 1] == 'a' + t % 26 ? t : me;
    int whole = me >= 0;
    for (int i = (int)sizeof(int); i < RECORD; i++) whole &= record[i] == record[RECORD - 1];
    if (!whole) {
      printf("threads: a torn record in the common file\n");
      failures++;
      break;
    }
    // One thread's appends land in its order: its records carry rounds 0, 1, 2...
    int round;
    memcpy(&round, record, sizeof round);
    if (threads <= 26 && round != counts[me]) {
      printf("threads: thread %d's record %d carries round %d\n", me, counts[me], round);
      failures++;
      break;
    }
    counts[me]++;
  }
  t_close(fd);
  for (int t = 0; t < threads && threads <= 26; t++) {
    if (counts[t] != rounds) {
      printf("threads: thread %d has %d records in the common file, expected %d\n", t, counts[t], rounds);
      failures++;
    }
  }
  if (size != (long long)threads * rounds * RECORD) {
    printf("threads: the common file has %lld bytes, expected %lld\n", size, (long long)threads * rounds * RECORD);
    failures++;
  }
  t_unlink("common");
  t_unlink("shared/flip-a");
  t_unlink("shared/flip-b");
  t_rmdir("shared");
  t_chdir("/");
  t_rmdir(dir);
  printf("threads: %d threads x %d rounds: %s\n", threads, rounds, failures == 0 ? "final state verified" : "FAILED");
  return failures == 0 ? 0 : 1;
}
