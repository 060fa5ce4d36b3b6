// The WASI imports Emscripten's libc uses for descriptors (fd_read, fd_write, fd_seek...).
// They return a positive errno (Emscripten's errno values are WASI's) instead of -errno.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <wasi/api.h>

#include "../core.h"
#include "../internal.h"

static __wasi_errno_t count_or_errno(int64_t result, __wasi_size_t *count) {
  if (result < 0) return (__wasi_errno_t)-result;
  *count = (__wasi_size_t)result;
  return 0;
}

// __wasi_iovec_t and struct iovec have the same layout in wasm32: a pointer and a size_t.
_Static_assert(sizeof(__wasi_iovec_t) == sizeof(struct iovec), "iovec layouts differ");

__wasi_errno_t __wasi_fd_read(__wasi_fd_t fd, const __wasi_iovec_t *iovs, size_t count, __wasi_size_t *nread) {
  return count_or_errno(_ws_fs_readv((int)fd, (const struct iovec *)iovs, (int)count, -1), nread);
}

__wasi_errno_t __wasi_fd_write(__wasi_fd_t fd, const __wasi_ciovec_t *iovs, size_t count, __wasi_size_t *nwritten) {
  return count_or_errno(_ws_fs_writev((int)fd, (const struct iovec *)iovs, (int)count, -1), nwritten);
}

__wasi_errno_t __wasi_fd_pread(__wasi_fd_t fd, const __wasi_iovec_t *iovs, size_t count, __wasi_filesize_t offset,
                               __wasi_size_t *nread) {
  if (offset > INT64_MAX) return EINVAL;
  return count_or_errno(_ws_fs_readv((int)fd, (const struct iovec *)iovs, (int)count, (int64_t)offset), nread);
}

__wasi_errno_t __wasi_fd_pwrite(__wasi_fd_t fd, const __wasi_ciovec_t *iovs, size_t count, __wasi_filesize_t offset,
                                __wasi_size_t *nwritten) {
  if (offset > INT64_MAX) return EINVAL;
  return count_or_errno(_ws_fs_writev((int)fd, (const struct iovec *)iovs, (int)count, (int64_t)offset), nwritten);
}

__wasi_errno_t __wasi_fd_seek(__wasi_fd_t fd, __wasi_filedelta_t offset, __wasi_whence_t whence,
                              __wasi_filesize_t *position) {
  int where = whence == __WASI_WHENCE_SET ? SEEK_SET : whence == __WASI_WHENCE_CUR ? SEEK_CUR
            : whence == __WASI_WHENCE_END ? SEEK_END : -1;
  int64_t result = _ws_fs_lseek((int)fd, offset, where);
  if (result < 0) return (__wasi_errno_t)-result;
  *position = (__wasi_filesize_t)result;
  return 0;
}

__wasi_errno_t __wasi_fd_close(__wasi_fd_t fd) { return (__wasi_errno_t)-_ws_fs_close((int)fd); }

__wasi_errno_t __wasi_fd_sync(__wasi_fd_t fd) { return (__wasi_errno_t)-_ws_fs_fsync((int)fd); }

// musl's isatty asks this: only the console is a character device *terminal*, so /dev/null
// reports "unknown" here (isatty false, as on Linux) while fstat still says S_IFCHR.
__wasi_errno_t __wasi_fd_fdstat_get(__wasi_fd_t fd, __wasi_fdstat_t *stat) {
  ws_stat info;
  int error = _ws_fs_fstat((int)fd, &info);
  if (error < 0) return (__wasi_errno_t)-error;
  int flags = _ws_fs_fcntl((int)fd, F_GETFL, 0);
  __wasi_filetype_t type = __WASI_FILETYPE_UNKNOWN;
  if (S_ISREG(info.mode)) type = __WASI_FILETYPE_REGULAR_FILE;
  if (S_ISDIR(info.mode)) type = __WASI_FILETYPE_DIRECTORY;
  if (S_ISLNK(info.mode)) type = __WASI_FILETYPE_SYMBOLIC_LINK;
  if (_ws_fs_isatty((int)fd) == 1) type = __WASI_FILETYPE_CHARACTER_DEVICE;
  *stat = (__wasi_fdstat_t){
      .fs_filetype = type,
      .fs_flags = (uint16_t)(((flags & O_APPEND) ? __WASI_FDFLAGS_APPEND : 0) |
                             ((flags & O_NONBLOCK) ? __WASI_FDFLAGS_NONBLOCK : 0)),
      .fs_rights_base = ~(__wasi_rights_t)0,
      .fs_rights_inheriting = ~(__wasi_rights_t)0,
  };
  return 0;
}

// At exit: stdio's buffers first, then the console's unfinished lines (stdio's own exit flush
// runs after the atexit handlers, too late for them). Registered from here because fd_write
// is in every program that prints, so this object is always linked.
static void flush_at_exit(void) {
  fflush(NULL);
  _ws_console_flush();
}

__attribute__((constructor)) static void register_exit_flush(void) { atexit(flush_at_exit); }
