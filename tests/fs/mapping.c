// One file mapped by several threads at once. The file holds one page per thread. Each thread,
// round after round, opens it, maps its own page shared and writable, fills it with its
// (thread, round) pattern, msyncs and unmaps; maps the whole file shared and read-only and
// checks its own page and that every other page holds only its owner's bytes; and maps the
// whole file private, scribbles over it and unmaps (a private mapping never reaches the file).
// At the end every page holds its thread's last round, read with read() and with a new mapping.
// What is checked holds on Linux (where a mapping shares the page cache) and on wasmscale
// (where a mapping is a copy written back at msync and munmap).
//   mapping [threads] [rounds]
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK_NAME "mapping"
#include "check.h"

enum { MAX_THREADS = 16 };

static const char *path = "mapping.data";
static long page, threads, rounds;

// A page's bytes: the owner in the high nibble, so a page never holds another thread's byte
// whatever round it shows; the round (and position) in the low one.
static unsigned char pattern(long thread, long round, long i) { return (unsigned char)(thread << 4 | ((round + i) & 15)); }

static int page_holds(const unsigned char *bytes, long thread, long round) {
  for (long i = 0; i < page; i++) {
    if (bytes[i] != pattern(thread, round, i)) return 0;
  }
  return 1;
}

static void *worker(void *arg) {
  long self = (long)arg;
  for (long round = 0; round < rounds; round++) {
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0, "thread %ld round %ld: open", self, round);
    if (fd < 0) return NULL;
    unsigned char *own = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, self * page);
    CHECK(own != MAP_FAILED, "thread %ld round %ld: mmap of its page", self, round);
    if (own == MAP_FAILED) break;
    for (long i = 0; i < page; i++) own[i] = pattern(self, round, i);
    CHECK(msync(own, (size_t)page, MS_SYNC) == 0, "thread %ld round %ld: msync", self, round);
    CHECK(munmap(own, (size_t)page) == 0, "thread %ld round %ld: munmap", self, round);

    unsigned char *all = mmap(NULL, (size_t)(page * threads), PROT_READ, MAP_SHARED, fd, 0);
    CHECK(all != MAP_FAILED, "thread %ld round %ld: read-only mmap of the file", self, round);
    if (all == MAP_FAILED) break;
    CHECK(page_holds(all + self * page, self, round), "thread %ld round %ld: its page, mapped again, lost its write", self, round);
    for (long other = 0; other < threads; other++) {
      for (long i = 0; i < page; i++) {
        if (all[other * page + i] >> 4 != other) {
          CHECK(0, "thread %ld round %ld: page %ld holds byte %02x at %ld", self, round, other, all[other * page + i], i);
          break;
        }
      }
    }
    CHECK(munmap(all, (size_t)(page * threads)) == 0, "thread %ld round %ld: munmap", self, round);

    unsigned char *scratch = mmap(NULL, (size_t)(page * threads), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHECK(scratch != MAP_FAILED, "thread %ld round %ld: private mmap", self, round);
    if (scratch == MAP_FAILED) break;
    memset(scratch, 0xEE, (size_t)(page * threads));
    CHECK(munmap(scratch, (size_t)(page * threads)) == 0, "thread %ld round %ld: munmap", self, round);
    CHECK(close(fd) == 0, "thread %ld round %ld: close", self, round);
  }
  return NULL;
}

int main(int argc, char **argv) {
  threads = argc > 1 ? atol(argv[1]) : 4;
  rounds = argc > 2 ? atol(argv[2]) : 50;
  page = sysconf(_SC_PAGESIZE);
  if (threads < 1 || threads > MAX_THREADS || rounds < 1) {
    printf("mapping: usage: mapping [threads 1-%d] [rounds]\n", MAX_THREADS);
    return 2;
  }
  char dir[] = "/tmp/wasmscale-mapping-XXXXXX";
  if (mkdtemp(dir) == NULL || chdir(dir) != 0) {
    printf("mapping: cannot make a scratch directory\n");
    return 1;
  }
  // Every page starts as its owner's round -1 (pattern(t, -1, i)).
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  unsigned char *bytes = malloc((size_t)(page * threads));
  if (fd < 0 || bytes == NULL) return 1;
  for (long t = 0; t < threads; t++) {
    for (long i = 0; i < page; i++) bytes[t * page + i] = pattern(t, -1, i);
  }
  CHECK(write(fd, bytes, (size_t)(page * threads)) == page * threads, "write the file");

  pthread_t ids[MAX_THREADS];
  for (long t = 0; t < threads; t++) pthread_create(&ids[t], NULL, worker, (void *)t);
  for (long t = 0; t < threads; t++) pthread_join(ids[t], NULL);

  memset(bytes, 0, (size_t)(page * threads));
  CHECK(pread(fd, bytes, (size_t)(page * threads), 0) == page * threads, "read the file back");
  unsigned char *mapped = mmap(NULL, (size_t)(page * threads), PROT_READ, MAP_SHARED, fd, 0);
  CHECK(mapped != MAP_FAILED, "map the file at the end");
  for (long t = 0; t < threads && mapped != MAP_FAILED; t++) {
    CHECK(page_holds(bytes + t * page, t, rounds - 1), "page %ld, read: not thread %ld's last round", t, t);
    CHECK(page_holds(mapped + t * page, t, rounds - 1), "page %ld, mapped: not thread %ld's last round", t, t);
  }
  struct stat info;
  CHECK(fstat(fd, &info) == 0 && info.st_size == page * threads, "the file's size changed");
  if (mapped != MAP_FAILED) munmap(mapped, (size_t)(page * threads));
  close(fd);
  unlink(path);
  chdir("/");
  rmdir(dir);
  if (failures != 0) {
    printf("mapping: %d failures\n", failures);
    return 1;
  }
  printf("mapping: %ld threads x %ld rounds: every page its owner's, the last round kept\n", threads, rounds);
  return 0;
}
