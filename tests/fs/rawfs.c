// A host directory as the root (wasmscale-cc -sNODERAWFS, --mount=/=DIR; natively the
// environment's WASMSCALE_MOUNTS="/=DIR"). Run in a host directory that holds input.txt
// ("hello from the host\n"), a symlink `escape` to ../secret.txt, a directory dev/, for TMP
// "host" a directory tmp/ with keep.txt ("keep\n"), and then later.txt; checks:
//   - the program starts in START ("/" when the root is the working directory, else the
//     working directory's host path) and reads the host's files by relative path;
//   - /dev is the program's own (in memory): usable, listed once in "/", hiding the host's
//     dev/ but none of the entries listed after it (later.txt), and it cannot be removed,
//     renamed or unmounted; ".." of /dev is the root;
//   - /tmp is the host's tmp/ (TMP "host") or the program's own in memory (TMP "memory"); TMP
//     "skip" leaves /tmp alone (the root is the host's /: its /tmp is everyone's);
//   - nothing leads above the root (when the root is the working directory);
//   - THREADS threads write files of records on the host (and in /tmp) at once, and read them
//     back; the test that runs this checks the host side.
//   rawfs START THREADS TMP
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"
#define CHECK_NAME "rawfs"
#include "check.h"
#include "wasmscale/fs.h"

enum { RECORD = 32, ROUNDS = 100, MAX_THREADS = 16 };

static bool use_tmp;

static bool fails_with(long result, int error) { return result == -1 && errno == error; }

// Writes ROUNDS records to `path` (each naming the thread and the round), then reads them back.
static void write_and_check(const char *path, int thread) {
  int fd = (int)t_open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
  CHECK(fd >= 0, "open %s", path);
  if (fd < 0) return;
  unsigned char record[RECORD], back[RECORD];
  for (int round = 0; round < ROUNDS; round++) {
    memset(record, thread * 16 + round % 16, sizeof record);
    record[0] = (unsigned char)thread;
    record[1] = (unsigned char)round;
    CHECK(t_write(fd, record, RECORD) == RECORD, "write %s", path);
  }
  for (int round = 0; round < ROUNDS; round++) {
    bool read = t_pread(fd, back, RECORD, (long long)round * RECORD) == RECORD;
    CHECK(read && back[0] == thread && back[1] == round, "%s: record %d", path, round);
  }
  t_close(fd);
}

static void *worker(void *arg) {
  int thread = (int)(intptr_t)arg;
  char path[64];
  snprintf(path, sizeof path, "out/t%d.bin", thread);
  write_and_check(path, thread);
  if (use_tmp) {
    snprintf(path, sizeof path, "/tmp/t%d.bin", thread);
    write_and_check(path, thread);
    CHECK(t_unlink(path) == 0, "unlink %s", path);
  }
  return NULL;
}

static void check_read(const char *path, const char *expected) {
  char buffer[64] = {0};
  int fd = (int)t_open(path, O_RDONLY, 0);
  long got = fd >= 0 ? t_read(fd, buffer, sizeof buffer - 1) : -1;
  CHECK(got == (long)strlen(expected) && strcmp(buffer, expected) == 0, "%s reads \"%s\"", path, buffer);
  if (fd >= 0) t_close(fd);
}

static void check_tmp(bool host_tmp) {
  int fd = (int)t_open("/tmp/scratch.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
  CHECK(fd >= 0 && t_write(fd, "scratch\n", 8) == 8, "/tmp/scratch.txt");
  if (fd >= 0) t_close(fd);
  check_read("/tmp/scratch.txt", "scratch\n");
  CHECK(t_entries_named("/tmp", "scratch.txt") == 1, "/tmp lists scratch.txt");
  CHECK(t_entries_named("/", "tmp") == 1, "\"/\" lists tmp %d times", t_entries_named("/", "tmp"));
  if (host_tmp) {
    check_read("/tmp/keep.txt", "keep\n");
  } else {
    CHECK(fails_with(t_rename("/tmp/scratch.txt", "/scratch.txt"), EXDEV), "rename out of /tmp: EXDEV");
    CHECK(fails_with(t_rmdir("/tmp"), EBUSY), "rmdir /tmp: EBUSY");
  }
}

static void check_dev(void) {
  unsigned char zeros[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  int fd = (int)t_open("/dev/null", O_WRONLY, 0);
  CHECK(fd >= 0 && t_write(fd, "gone", 4) == 4, "/dev/null takes a write");
  if (fd >= 0) t_close(fd);
  fd = (int)t_open("/dev/zero", O_RDONLY, 0);
  CHECK(fd >= 0 && t_read(fd, zeros, sizeof zeros) == sizeof zeros && zeros[0] == 0 && zeros[7] == 0, "/dev/zero");
  if (fd >= 0) t_close(fd);
  CHECK(t_entries_named("/", "dev") == 1, "\"/\" lists dev %d times", t_entries_named("/", "dev"));
  CHECK(fails_with(t_open("/dev/keep.txt", O_RDONLY, 0), ENOENT), "the host's dev/keep.txt is hidden");
  CHECK(fails_with(t_rmdir("/dev"), EBUSY), "rmdir /dev: EBUSY");
  CHECK(fails_with(t_unlink("/dev"), EISDIR), "unlink /dev: EISDIR");
  CHECK(fails_with(t_mkdir("/dev", 0755), EEXIST), "mkdir /dev: EEXIST");
  CHECK(fails_with(t_rename("/dev", "/moved"), EBUSY), "rename /dev: EBUSY");
  CHECK(fails_with(t_rename("input.txt", "/dev"), EBUSY), "rename onto /dev: EBUSY");
#ifdef WS_TEST_CORE
  CHECK(ws_fs_unmount("/dev") == -EBUSY, "unmount /dev: EBUSY");
#endif
}

static void check_dot_dot(const char *start) {
  char here[4096];
  CHECK(t_chdir("/dev") == 0 && t_getcwd(here, sizeof here) != NULL && strcmp(here, "/dev") == 0,
        "chdir /dev: getcwd gives %s", here);
  CHECK(t_ino("..") == t_ino("/") && t_ino("/dev/..") == t_ino("/"), "/dev/.. is the root");
  CHECK(t_chdir("..") == 0 && t_getcwd(here, sizeof here) != NULL && strcmp(here, "/") == 0,
        "chdir .. from /dev: getcwd gives %s", here);
  CHECK(t_ino("/..") == t_ino("/"), "/.. is the root");
  CHECK(t_chdir(start) == 0, "back to %s", start);
  if (strcmp(start, "/") == 0) {  // the root is the working directory: nothing above it
    CHECK(fails_with(t_open("../secret.txt", O_RDONLY, 0), ENOENT), "../secret.txt is out of reach");
    CHECK(fails_with(t_open("escape", O_RDONLY, 0), ENOENT), "a symlink to ../secret.txt is out of reach");
  }
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: rawfs START THREADS host|memory|skip\n");
    return 2;
  }
  const char *start = argv[1];
  int threads = atoi(argv[2]);
  if (threads < 1 || threads > MAX_THREADS) threads = 1;
  char here[4096];
  CHECK(t_getcwd(here, sizeof here) != NULL && strcmp(here, start) == 0, "starts in %s, expected %s", here, start);
  check_read("input.txt", "hello from the host\n");
  if (strcmp(start, "/") == 0) check_read("/input.txt", "hello from the host\n");
  check_dev();
  // The host's entries on both sides of the dev/ (and tmp/) that grafts hide are listed, once
  // each: the test makes input.txt before dev/ and later.txt after it.
  if (strcmp(start, "/") == 0) {
    CHECK(t_entries_named("/", "input.txt") == 1 && t_entries_named("/", "later.txt") == 1,
          "\"/\" lists input.txt %d times and later.txt %d times", t_entries_named("/", "input.txt"),
          t_entries_named("/", "later.txt"));
  }
  use_tmp = strcmp(argv[3], "skip") != 0;
  if (use_tmp) check_tmp(strcmp(argv[3], "host") == 0);
  check_dot_dot(start);
  CHECK(t_mkdir("out", 0755) == 0, "mkdir out");
  pthread_t ids[MAX_THREADS];
  for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, worker, (void *)(intptr_t)i);
  for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
  CHECK(t_count_entries("out") == threads, "out lists %d entries", t_count_entries("out"));
  if (failures != 0) return 1;
  printf("rawfs: %d threads: host root verified\n", threads);
  return 0;
}
