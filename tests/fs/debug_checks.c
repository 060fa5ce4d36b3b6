// The debug build's checks in the file system (src/platform/debug.h): a backend method called
// without the lock struct ws_fs_backend says it needs stops the program at the choke point
// (backend.c), with one line naming the check; the release build has no such check and the
// write goes through. Natively on the core, and in Wasm, where the line must reach the console
// although the failing call is inside the file system that serves the program's stderr.
//   debug_checks
#include <fcntl.h>
#include <stdio.h>

#include "../../src/fs/core.h"
#include "../../src/fs/internal.h"

int main(void) {
  int fd = _ws_fs_openat(WS_AT_FDCWD, "/tmp/debug-checks", O_CREAT | O_RDWR, 0644);
  if (fd < 0) {
    fprintf(stderr, "debug_checks: open failed (%d)\n", fd);
    return 1;
  }
  ws_file *file = _ws_fd_get(fd);
  int64_t written = _ws_b_write(file->node, "x", 1, 0);  // without the node's lock
  _ws_file_unref(file);
  printf("debug checks: a write without the node's lock (%lld): no check stopped it\n", (long long)written);
  return 0;
}
