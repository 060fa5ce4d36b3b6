// libc functions defined here rather than as syscalls (or missing from Emscripten's libc).
// Emscripten 3.1.6 keeps the syscalls
// behind link, umask, sync and pipe2 in one libstubs.a object together with getpid and
// others: defining one of those __syscall_* names would clash with that object as soon as a
// program calls getpid. Defining the libc functions keeps musl's versions (and with them the
// stubs object) out of the link.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core.h"
#include "../internal.h"

static int set_errno(long result) {
  if (result >= 0) return (int)result;
  errno = (int)-result;
  return -1;
}

int link(const char *from, const char *to) { return set_errno(_ws_fs_linkat(WS_AT_FDCWD, from, WS_AT_FDCWD, to, 0)); }

mode_t umask(mode_t mask) { return (mode_t)_ws_fs_umask((uint32_t)mask); }

int pipe2(int fds[2], int flags) { return set_errno(_ws_fs_pipe2(fds, flags)); }

// Linux's fallocate, which Emscripten's libc lacks (it has posix_fallocate, which reaches
// __syscall_fallocate).
int fallocate(int fd, int mode, off_t offset, off_t length) {
  return set_errno(_ws_fs_fallocate(fd, mode, offset, length));
}

void sync(void) { _ws_fs_sync_all(); }

// BSD flock, which Emscripten's libc answers with a stub that reports success and locks nothing.
// 3.1.6 defines that stub in the object with getpwnam and chroot, so a definition named flock
// would clash as soon as a program calls one of those: programs link with -Wl,--wrap=flock
// (tools/libraries.py), which sends their calls here.
int __wrap_flock(int fd, int operation);
int __wrap_flock(int fd, int operation) { return set_errno(_ws_fs_flock(fd, operation)); }
