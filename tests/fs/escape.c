// The escape suite: tries to leave a host mount through what the program holds, as an
// adversary would, and counts every boundary crossing (a read of the secret outside, or a file
// made outside, which the test running this checks on the host).
//   escape HOST_DIR OUTSIDE_DIR TRIES [swap] [tmpfs]
// HOST_DIR holds inside.txt, sub/, race/ and rootswap/, each with an inside.txt reading
// "inside\n"; OUTSIDE_DIR holds inside.txt reading "SECRET\n". HOST_DIR is mounted twice, at /a
// and /b, and HOST_DIR/rootswap once more at /r. Then:
//   1. a held descriptor: /a/sub is opened; through /b the program renames sub away and puts a
//      symlink to OUTSIDE_DIR in its place; openat on the descriptor must still mean the
//      renamed directory (as on Linux), for reading and for creating;
//   2. the working directory: the same swap under a directory the program is in;
//   3. for TRIES rounds, while something swaps race/ and rootswap/ on the host with symlinks to
//      OUTSIDE_DIR ("swap": a thread here making the real calls, natively; otherwise the test
//      runs a host process doing it, from when the program makes HOST_DIR/ready), reads and
//      creates through a held race/, fresh paths, and the /r mount whose own directory is
//      being swapped;
//   4. with "tmpfs": HOST_DIR/t1 and HOST_DIR/t2 are two file systems (mounted by the test),
//      whose equal inode numbers must not make one node: a file made in each stays there.
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"
#define CHECK_NAME "escape"
#include "check.h"
#include "wasmscale/fs.h"

static const char *outside;
static _Atomic long crossings, reads_inside;

// What fd holds: 1 "inside", 0 anything else that is not the secret, and the secret counts
// as a crossing.
static int judge_fd(int fd, const char *what) {
  char buffer[64] = {0};
  long got = fd >= 0 ? t_read(fd, buffer, sizeof buffer - 1) : -1;
  if (fd >= 0) t_close(fd);
  if (got > 0 && strstr(buffer, "SECRET") != NULL) {
    atomic_fetch_add(&crossings, 1);
    printf("escape: CROSSED through %s\n", what);
    return 0;
  }
  bool inside = got > 0 && strcmp(buffer, "inside\n") == 0;
  if (inside) atomic_fetch_add(&reads_inside, 1);
  return inside;
}

static void held_descriptor(void) {
  int dir = (int)t_open("/a/sub", O_RDONLY | O_DIRECTORY, 0);
  CHECK(dir >= 0, "open /a/sub");
  CHECK(t_rename("/b/sub", "/b/sub-moved") == 0, "rename through the second mount");
  CHECK(t_symlink(outside, "/b/sub") == 0, "symlink to the outside in its place");
  CHECK(judge_fd((int)t_openat(dir, "inside.txt", O_RDONLY, 0), "a held descriptor"),
        "openat on the held descriptor did not read the renamed directory's file");
  int made = (int)t_openat(dir, "made-by-fd.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
  CHECK(made >= 0, "create through the held descriptor");
  if (made >= 0) t_close(made);
  CHECK(t_open("/a/sub-moved/made-by-fd.txt", O_RDONLY, 0) >= 0, "the file made through the held descriptor is not in the renamed directory");
  t_close(dir);
  CHECK(t_unlink("/b/sub") == 0 && t_rename("/b/sub-moved", "/b/sub") == 0, "put sub back");
}

static void working_directory(void) {
  CHECK(t_chdir("/a/sub") == 0, "chdir /a/sub");
  CHECK(t_rename("/b/sub", "/b/sub-moved") == 0 && t_symlink(outside, "/b/sub") == 0, "swap sub for a symlink");
  CHECK(judge_fd((int)t_open("inside.txt", O_RDONLY, 0), "the working directory"),
        "a relative open did not read the renamed directory's file");
  int made = (int)t_open("made-by-cwd.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
  CHECK(made >= 0, "create relative to the working directory");
  if (made >= 0) t_close(made);
  CHECK(t_open("/a/sub-moved/made-by-cwd.txt", O_RDONLY, 0) >= 0, "the relative file is not in the renamed directory");
  CHECK(t_chdir("/") == 0, "chdir /");
  CHECK(t_unlink("/b/sub") == 0 && t_rename("/b/sub-moved", "/b/sub") == 0, "put sub back");
}

#ifdef WS_TEST_CORE
// Natively the host's own calls are at hand: a thread swaps the directories for real.
#include <sched.h>
static _Atomic bool swapping = true;
static const char *host_dir;

static void *swapper(void *unused) {
  (void)unused;
  char path[4096], away[4096];
  while (atomic_load(&swapping)) {
    for (int i = 0; i < 2; i++) {
      snprintf(path, sizeof path, "%s/%s", host_dir, i == 0 ? "race" : "rootswap");
      snprintf(away, sizeof away, "%s.away", path);
      if (rename(path, away) != 0) continue;
      if (symlink(outside, path) == 0) {
        sched_yield();
        unlink(path);
      }
      rename(away, path);
    }
  }
  return NULL;
}
#endif

// `held` is /a/race, opened before anything swapped.
static void races(int held, int tries) {
  for (int i = 0; i < tries; i++) {
    judge_fd((int)t_openat(held, "inside.txt", O_RDONLY, 0), "a held descriptor, while the host swapped");
    judge_fd((int)t_open("/a/race/inside.txt", O_RDONLY, 0), "a fresh path, while the host swapped");
    judge_fd((int)t_open("/r/inside.txt", O_RDONLY, 0), "a mount whose directory the host swapped");
    int made = (int)t_openat(held, "race-made.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (made >= 0) {
      t_close(made);
      CHECK(t_unlinkat(held, "race-made.txt", 0) == 0, "unlink what was made through the held descriptor");
    }
  }
  if (held >= 0) t_close(held);
}

// Two file systems inside the mount: files keep to their own.
static void two_devices(void) {
  t_stat_t one, two;
  CHECK(t_stat("/a/t1", &one) == 0 && t_stat("/a/t2", &two) == 0, "stat the two file systems");
  CHECK(T_INO(one) != T_INO(two), "two directories on two devices show one inode number");
  int fd = (int)t_open("/a/t2/two.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
  CHECK(fd >= 0, "create /a/t2/two.txt");
  if (fd >= 0) t_close(fd);
  fd = (int)t_open("/a/t1/one.txt", O_WRONLY | O_CREAT | O_EXCL, 0644);
  CHECK(fd >= 0, "create /a/t1/one.txt");
  if (fd >= 0) t_close(fd);
  CHECK(t_entries_named("/a/t1", "two.txt") == 0 && t_entries_named("/a/t2", "one.txt") == 0,
        "a file made on one file system is listed on the other");
}

int main(int argc, char **argv) {
  if (argc < 4) {
    printf("usage: escape HOST_DIR OUTSIDE_DIR TRIES [swap] [tmpfs]\n");
    return 2;
  }
  outside = argv[2];
  int tries = atoi(argv[3]);
  bool swap = false, tmpfs = false;
  for (int i = 4; i < argc; i++) {
    swap |= strcmp(argv[i], "swap") == 0;
    tmpfs |= strcmp(argv[i], "tmpfs") == 0;
  }
  char rootswap[4096];
  snprintf(rootswap, sizeof rootswap, "%s/rootswap", argv[1]);
  CHECK(t_mkdir("/a", 0755) == 0 && t_mkdir("/b", 0755) == 0 && t_mkdir("/r", 0755) == 0, "mkdir /a /b /r");
  CHECK(ws_fs_mount("/a", ws_fs_host_backend(), argv[1]) == 0, "mount /a");
  CHECK(ws_fs_mount("/b", ws_fs_host_backend(), argv[1]) == 0, "mount /b");
  CHECK(ws_fs_mount("/r", ws_fs_host_backend(), rootswap) == 0, "mount /r");
  CHECK(judge_fd((int)t_open("/a/inside.txt", O_RDONLY, 0), "the mount"), "/a/inside.txt");
  held_descriptor();
  working_directory();
  if (tmpfs) two_devices();
  int held = (int)t_open("/a/race", O_RDONLY | O_DIRECTORY, 0);
  CHECK(held >= 0, "open /a/race");
  int ready = (int)t_open("/a/ready", O_WRONLY | O_CREAT | O_EXCL, 0644);  // the host's swapper starts
  CHECK(ready >= 0, "create /a/ready");
  if (ready >= 0) t_close(ready);
#ifdef WS_TEST_CORE
  pthread_t thread;
  host_dir = argv[1];
  if (swap) pthread_create(&thread, NULL, swapper, NULL);
#else
  (void)swap;
#endif
  races(held, tries);
#ifdef WS_TEST_CORE
  if (swap) {
    atomic_store(&swapping, false);
    pthread_join(thread, NULL);
  }
#endif
  printf("escape: %ld boundary crossings in %d tries (%ld reads inside)%s: %s\n", atomic_load(&crossings), tries,
         atomic_load(&reads_inside), tmpfs ? ", two devices" : "", failures == 0 && crossings == 0 ? "held" : "FAILED");
  return failures == 0 && crossings == 0 ? 0 : 1;
}
