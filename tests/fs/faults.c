// Errors that must leave everything already written intact: backend failures injected at the
// choke point (ws_fs_inject_failure), EXDEV between mounts, and real ENOSPC when linear memory
// cannot grow (built with a small -sMAXIMUM_MEMORY). Wasm only: it uses wasmscale's C API.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wasmscale/fs.h"

static int failures;

#define EXPECT(condition, what)                                         \
  do {                                                                  \
    if (!(condition)) {                                                 \
      printf("faults: FAIL %s (errno %s)\n", what, strerror(errno));    \
      failures++;                                                       \
    }                                                                   \
  } while (0)

static int file_is(const char *path, const char *text) {
  char buffer[256] = {0};
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  ssize_t got = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  return got == (ssize_t)strlen(text) && memcmp(buffer, text, (size_t)got) == 0;
}

static void injected(void) {
  int fd = open("/tmp/keep", O_RDWR | O_CREAT | O_TRUNC, 0644);
  EXPECT(write(fd, "original", 8) == 8, "first write");
  ws_fs_inject_failure(WS_FS_OP_WRITE, 0, ENOSPC);
  EXPECT(pwrite(fd, "XXXXXXXXXXXX", 12, 4) == -1 && errno == ENOSPC, "an injected write failure reaches the caller");
  EXPECT(file_is("/tmp/keep", "original"), "the file is unchanged after the failed write");
  ws_fs_inject_failure(WS_FS_OP_TRUNCATE, 0, EIO);
  EXPECT(ftruncate(fd, 2) == -1 && errno == EIO, "an injected truncate failure");
  EXPECT(file_is("/tmp/keep", "original"), "the file is unchanged after the failed truncate");
  close(fd);
  ws_fs_inject_failure(WS_FS_OP_CREATE, 0, ENOSPC);
  EXPECT(open("/tmp/new", O_WRONLY | O_CREAT, 0644) == -1 && errno == ENOSPC, "an injected create failure");
  EXPECT(access("/tmp/new", F_OK) == -1 && errno == ENOENT, "no half-created file");
  ws_fs_inject_failure(WS_FS_OP_RENAME, 0, EIO);
  EXPECT(rename("/tmp/keep", "/tmp/kept") == -1 && errno == EIO, "an injected rename failure");
  EXPECT(file_is("/tmp/keep", "original") && access("/tmp/kept", F_OK) == -1, "both names as before the rename");
  ws_fs_inject_failure(WS_FS_OP_LOOKUP, 1, ENOENT);  // the second lookup fails
  EXPECT(access("/tmp/keep", F_OK) == -1 && errno == ENOENT, "an injected lookup failure, after one skipped");
  EXPECT(access("/tmp/keep", F_OK) == 0, "the injection fires once");
  EXPECT(ws_fs_injected_failures() == 5, "every injection fired");
  unlink("/tmp/keep");
}

static void mounts(void) {
  EXPECT(mkdir("/mnt", 0755) == 0, "mkdir /mnt");
  EXPECT(ws_fs_mount("/mnt", ws_fs_memory_backend(), NULL) == 0, "mount a memory backend");
  EXPECT(ws_fs_mount("/mnt", ws_fs_memory_backend(), NULL) == -EBUSY, "mount twice");
  int fd = open("/mnt/inside", O_WRONLY | O_CREAT, 0644);
  EXPECT(fd >= 0 && write(fd, "m", 1) == 1, "a file on the mount");
  EXPECT(rename("/mnt/inside", "/tmp/outside") == -1 && errno == EXDEV, "rename across mounts");
  EXPECT(link("/mnt/inside", "/tmp/outside") == -1 && errno == EXDEV, "link across mounts");
  struct stat root, mounted;
  EXPECT(stat("/", &root) == 0 && stat("/mnt/inside", &mounted) == 0 && root.st_dev != mounted.st_dev,
         "a mount has its own st_dev");
  EXPECT(ws_fs_unmount("/mnt") == -EBUSY, "unmount with an open file");
  close(fd);
  EXPECT(chdir("/mnt") == 0 && chdir("..") == 0, "\"..\" leaves the mount");
  char cwd[64];
  EXPECT(getcwd(cwd, sizeof cwd) != NULL && strcmp(cwd, "/") == 0, "and arrives at /");
  EXPECT(ws_fs_unmount("/mnt") == 0, "unmount");
  EXPECT(access("/mnt/inside", F_OK) == -1 && errno == ENOENT, "the covered directory shows again");
  EXPECT(ws_fs_unmount("/tmp") == -EINVAL, "unmount what is not a mount");
}

// Writes 1 MiB pieces until memory runs out: ENOSPC, and every earlier piece reads back.
static void out_of_memory(void) {
  static char piece[1 << 20];
  int fd = open("/tmp/big", O_RDWR | O_CREAT | O_TRUNC, 0644);
  int written = 0;
  for (;; written++) {
    memset(piece, 'a' + written % 26, sizeof piece);
    if (write(fd, piece, sizeof piece) != (ssize_t)sizeof piece) break;
  }
  EXPECT(errno == ENOSPC, "memory runs out as ENOSPC");
  EXPECT(written > 4, "several pieces fit first");
  struct stat info;
  EXPECT(fstat(fd, &info) == 0 && info.st_size == (off_t)written << 20, "the size counts only whole pieces");
  int intact = 1;
  for (int i = 0; i < written && intact; i++) {
    intact = pread(fd, piece, sizeof piece, (off_t)i << 20) == (ssize_t)sizeof piece && piece[0] == 'a' + i % 26 &&
             piece[sizeof piece - 1] == 'a' + i % 26;
  }
  EXPECT(intact, "every earlier piece reads back");
  close(fd);
  EXPECT(unlink("/tmp/big") == 0, "unlink gives the memory back");
  fd = open("/tmp/after", O_WRONLY | O_CREAT, 0644);
  EXPECT(fd >= 0 && write(fd, piece, sizeof piece) == (ssize_t)sizeof piece, "and it can be used again");
  close(fd);
  printf("faults: %d MiB written before ENOSPC\n", written);
}

int main(void) {
  injected();
  mounts();
  out_of_memory();
  printf("faults: %s\n", failures == 0 ? "all passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
