// Record locks and flock between threads, each thread with its own open file description of
// one file (so OFD locks and flock locks of different threads conflict, as between processes).
//   locking [threads] [rounds]
// Phase 1, records: the file holds RECORDS 8-byte counters. Each round a thread takes an
// F_OFD_SETLKW write lock on two neighbouring counters, reads both, yields, writes both back
// incremented, then unlocks the first counter alone (a split of its lock) and the second after.
// A reader thread meanwhile takes read locks on the whole file and reads every counter twice
// with a yield between: no writer may change one under its lock. Then every counter must equal
// the number of increments made to it: an update lost means two writers held one range.
// Phase 2, flock: each round a thread takes LOCK_EX, increments a counter the same way and lets
// go; some rounds take LOCK_SH and read the counter twice. The counter must end at the number
// of LOCK_EX rounds.
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>

#include "calls.h"
#define CHECK_NAME "locking"
#include "check.h"

enum { MAX_THREADS = 16, RECORDS = 8, COUNTER = 8 };

static const char *path = "locking.data";
static int rounds;
static _Atomic int writers_left;

static uint64_t read_counter(int fd, int index) {
  uint64_t value = 0;
  CHECK(t_pread(fd, &value, sizeof value, (long long)index * COUNTER) == sizeof value, "read counter %d", index);
  return value;
}

static void write_counter(int fd, int index, uint64_t value) {
  CHECK(t_pwrite(fd, &value, sizeof value, (long long)index * COUNTER) == sizeof value, "write counter %d", index);
}

static int set_lock(int fd, int command, short type, int first, int count) {
  struct flock lock = {.l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)first * COUNTER,
                       .l_len = (off_t)count * COUNTER};
  return (int)t_lock(fd, command, &lock);
}

// The first of the two counters thread `self` increments in `round`.
static int record_of(long self, int round) { return (int)((self * 3 + round * 5) % (RECORDS - 1)); }

static void *record_writer(void *arg) {
  long self = (long)arg;
  int fd = (int)t_open(path, O_RDWR, 0);
  CHECK(fd >= 0, "thread %ld: open", self);
  for (int round = 0; round < rounds && fd >= 0; round++) {
    int first = record_of(self, round);
    CHECK(set_lock(fd, F_OFD_SETLKW, F_WRLCK, first, 2) == 0, "thread %ld: F_OFD_SETLKW on %d", self, first);
    uint64_t a = read_counter(fd, first), b = read_counter(fd, first + 1);
    sched_yield();
    write_counter(fd, first, a + 1);
    write_counter(fd, first + 1, b + 1);
    CHECK(set_lock(fd, F_OFD_SETLK, F_UNLCK, first, 1) == 0, "thread %ld: unlock %d", self, first);
    sched_yield();
    CHECK(set_lock(fd, F_OFD_SETLK, F_UNLCK, first + 1, 1) == 0, "thread %ld: unlock %d", self, first + 1);
  }
  if (fd >= 0) t_close(fd);
  atomic_fetch_sub(&writers_left, 1);
  return NULL;
}

static void *record_reader(void *arg) {
  (void)arg;
  int fd = (int)t_open(path, O_RDONLY, 0);
  CHECK(fd >= 0, "reader: open");
  while (fd >= 0 && atomic_load(&writers_left) > 0) {
    CHECK(set_lock(fd, F_OFD_SETLKW, F_RDLCK, 0, RECORDS) == 0, "reader: F_OFD_SETLKW read lock");
    uint64_t before[RECORDS], after[RECORDS];
    for (int i = 0; i < RECORDS; i++) before[i] = read_counter(fd, i);
    sched_yield();
    for (int i = 0; i < RECORDS; i++) after[i] = read_counter(fd, i);
    for (int i = 0; i < RECORDS; i++) {
      CHECK(before[i] == after[i], "reader: counter %d changed under a read lock", i);
    }
    CHECK(set_lock(fd, F_OFD_SETLK, F_UNLCK, 0, 0) == 0, "reader: unlock");
    sched_yield();  // let a waiting writer in
  }
  if (fd >= 0) t_close(fd);
  return NULL;
}

static void *flock_user(void *arg) {
  long self = (long)arg;
  int fd = (int)t_open(path, O_RDWR, 0);
  CHECK(fd >= 0, "thread %ld: open", self);
  for (int round = 0; round < rounds && fd >= 0; round++) {
    if (round % 4 == 3) {
      CHECK(t_flock(fd, LOCK_SH) == 0, "thread %ld: LOCK_SH", self);
      uint64_t before = read_counter(fd, RECORDS);
      sched_yield();
      CHECK(read_counter(fd, RECORDS) == before, "thread %ld: the counter changed under LOCK_SH", self);
    } else {
      // Without waiting first (EAGAIN while another thread holds it), then waiting.
      int tried = (int)t_flock(fd, LOCK_EX | LOCK_NB);
      CHECK(tried == 0 || errno == EWOULDBLOCK, "thread %ld: LOCK_EX|LOCK_NB", self);
      if (tried != 0) CHECK(t_flock(fd, LOCK_EX) == 0, "thread %ld: LOCK_EX", self);
      uint64_t value = read_counter(fd, RECORDS);
      sched_yield();
      write_counter(fd, RECORDS, value + 1);
    }
    CHECK(t_flock(fd, LOCK_UN) == 0, "thread %ld: LOCK_UN", self);
  }
  if (fd >= 0) t_close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  rounds = argc > 2 ? atoi(argv[2]) : 200;
  if (threads < 1 || threads > MAX_THREADS || rounds < 1) {
    printf("locking: usage: locking [threads 1-%d] [rounds]\n", MAX_THREADS);
    return 2;
  }
  char dir[256];
  if (enter_scratch_dir("locking", dir, sizeof dir) != 0) {
    printf("locking: cannot make a scratch directory\n");
    return 1;
  }
  int fd = (int)t_open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0 && t_ftruncate(fd, (RECORDS + 1) * COUNTER) == 0, "create the file");

  pthread_t ids[MAX_THREADS + 1];
  writers_left = threads;
  for (long t = 0; t < threads; t++) pthread_create(&ids[t], NULL, record_writer, (void *)t);
  pthread_create(&ids[threads], NULL, record_reader, NULL);
  for (int t = 0; t <= threads; t++) pthread_join(ids[t], NULL);
  uint64_t expected[RECORDS] = {0};
  for (long t = 0; t < threads; t++) {
    for (int round = 0; round < rounds; round++) expected[record_of(t, round)]++, expected[record_of(t, round) + 1]++;
  }
  for (int i = 0; i < RECORDS; i++) {
    uint64_t got = read_counter(fd, i);
    CHECK(got == expected[i], "counter %d is %llu, not %llu: an update was lost", i, (unsigned long long)got,
          (unsigned long long)expected[i]);
  }

  for (long t = 0; t < threads; t++) pthread_create(&ids[t], NULL, flock_user, (void *)t);
  for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  uint64_t exclusive = 0;
  for (int round = 0; round < rounds; round++) exclusive += round % 4 != 3;
  exclusive *= (uint64_t)threads;
  uint64_t got = read_counter(fd, RECORDS);
  CHECK(got == exclusive, "the flock counter is %llu, not %llu: an update was lost", (unsigned long long)got,
        (unsigned long long)exclusive);
  t_close(fd);
  t_unlink(path);
  if (failures != 0) {
    printf("locking: %d failures\n", failures);
    return 1;
  }
  printf("locking: %d threads x %d rounds: no update lost under record locks or flock\n", threads, rounds);
  return 0;
}
