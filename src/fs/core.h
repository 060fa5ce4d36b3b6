// wasmscale file system: the core's POSIX-shaped entry points. The syscall layer
// (syscalls/syscalls.c, wasi.c, libc.c) calls these; native tests call them directly. Flags and
// modes are the platform's own <fcntl.h>/<sys/stat.h> values; each returns >= 0 or -errno.
// Internal to the library, so named _ws_fs_* (docs/architecture.md, "Names"); the public API is
// include/wasmscale/fs.h's ws_fs_*.
#ifndef WASMSCALE_FS_CORE_H
#define WASMSCALE_FS_CORE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>

#define WS_AT_FDCWD (-100)  // AT_FDCWD on Linux and in Emscripten's musl

typedef struct ws_stat {
  uint64_t dev, ino, rdev;
  uint32_t mode, nlink;
  uint64_t size, blocks;
  uint32_t blksize;
  struct timespec atime, mtime, ctime;
} ws_stat;

typedef struct ws_statfs {
  uint64_t block_size, blocks, blocks_free, files, files_free;
  uint32_t name_max;
} ws_statfs;

struct ws_dirent;
// getdents: called per entry with the cookie after it; returns false when out of room.
typedef int (*ws_dirent_sink)(void *context, const struct ws_dirent *entry, uint64_t next);

// files (open.c, io.c)
int _ws_fs_openat(int dirfd, const char *path, int flags, uint32_t mode);
int _ws_fs_close(int fd);
int64_t _ws_fs_readv(int fd, const struct iovec *iov, int count, int64_t offset);  // offset -1: position
int64_t _ws_fs_writev(int fd, const struct iovec *iov, int count, int64_t offset);
int64_t _ws_fs_read(int fd, void *buffer, size_t length);
int64_t _ws_fs_write(int fd, const void *buffer, size_t length);
int64_t _ws_fs_lseek(int fd, int64_t offset, int whence);
int _ws_fs_dup(int fd);
int _ws_fs_dup3(int fd, int new_fd, int flags);  // flags: O_CLOEXEC; dup2 when new_fd == fd is the caller's
int _ws_fs_fcntl(int fd, int command, intptr_t argument);
int _ws_fs_flock(int fd, int operation);  // LOCK_SH, LOCK_EX or LOCK_UN, with LOCK_NB
int _ws_fs_ftruncate(int fd, int64_t size);
int _ws_fs_truncate(const char *path, int64_t size);
int _ws_fs_fsync(int fd);
// Flushes the console and every open file to its backend (sync(2)); the first error, or 0.
int _ws_fs_sync_all(void);
int _ws_fs_fallocate(int fd, int mode, int64_t offset, int64_t length);
int _ws_fs_isatty(int fd);  // 1, or -ENOTTY / -EBADF
int _ws_fs_getdents(int fd, ws_dirent_sink sink, void *context);  // entries given, or -errno
int _ws_fs_pipe2(int fds[2], int flags);
int _ws_fs_poll(struct pollfd *fds, unsigned count, int timeout_ms);

// mappings (mmap.c): `memory` (length bytes, the caller's) receives a copy of the file from
// `offset`; a MAP_SHARED writable mapping is written back at msync and unmap.
int _ws_fs_map(int fd, uint64_t offset, size_t length, int prot, int flags, void *memory);
int _ws_fs_msync(void *address, size_t length);
int _ws_fs_unmap(void *address, size_t length);

// names and attributes (namespace.c, attributes.c)
int _ws_fs_fstat(int fd, ws_stat *out);
int _ws_fs_fstatat(int dirfd, const char *path, ws_stat *out, int flags);  // AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH
int _ws_fs_mkdirat(int dirfd, const char *path, uint32_t mode);
int _ws_fs_mknodat(int dirfd, const char *path, uint32_t mode);
int _ws_fs_unlinkat(int dirfd, const char *path, int flags);  // AT_REMOVEDIR
int _ws_fs_renameat(int old_dirfd, const char *old_path, int new_dirfd, const char *new_path);
int _ws_fs_linkat(int old_dirfd, const char *old_path, int new_dirfd, const char *new_path, int flags);
int _ws_fs_symlinkat(const char *target, int dirfd, const char *path);
// A new read-only-until-written file at `path` whose `size` bytes are fetched from `url`
// (ws_prim_fetch) on first read, in blocks, by the reading thread: Emscripten's createLazyFile.
// A write, truncate or fallocate first fetches what it keeps, then the file is an ordinary
// one. Only backends with create_lazy hold such files, the memory backend's (EOPNOTSUPP
// elsewhere); EEXIST if `path` exists.
int _ws_fs_create_lazy(const char *path, const char *url, uint64_t size, uint32_t mode);
int _ws_fs_readlinkat(int dirfd, const char *path, char *buffer, size_t size);
int _ws_fs_fchmodat(int dirfd, const char *path, uint32_t mode, int flags);
int _ws_fs_fchmod(int fd, uint32_t mode);
// path NULL: dirfd itself.
int _ws_fs_utimensat(int dirfd, const char *path, const struct timespec times[2], int flags);
int _ws_fs_faccessat(int dirfd, const char *path, int mode, int flags);
int _ws_fs_chdir(const char *path);
int _ws_fs_fchdir(int fd);
int _ws_fs_getcwd(char *buffer, size_t size);  // bytes written including the zero
int _ws_fs_statfs(const char *path, ws_statfs *out);
int _ws_fs_fstatfs(int fd, ws_statfs *out);
uint32_t _ws_fs_umask(uint32_t mask);
uint32_t _ws_fs_current_umask(void);

#endif
