// The __syscall_* imports of Emscripten's libc, defined in Wasm so that emcc links no
// JavaScript file system and no call is proxied to the main thread. Each translates the ABI
// (pointers as longs, variadic modes, struct layouts) and calls the core (../core.h);
// results are -errno, as libc expects.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <termios.h>
#include <unistd.h>

#include "../core.h"
#include "../internal.h"
#include "abi.h"

#define PATH(p) ((const char *)(p))

// ----- open, close, descriptors --------------------------------------------------------------
static long open_variadic(long dirfd, long path, long flags, va_list modes) {
  uint32_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(modes, uint32_t) : 0;
  return _ws_fs_openat((int)dirfd, PATH(path), (int)flags, mode);
}

long __syscall_open(long path, long flags, ...) {
  va_list modes;
  va_start(modes, flags);
  long fd = open_variadic(WS_AT_FDCWD, path, flags, modes);
  va_end(modes);
  return fd;
}

long __syscall_openat(long dirfd, long path, long flags, ...) {
  va_list modes;
  va_start(modes, flags);
  long fd = open_variadic(dirfd, path, flags, modes);
  va_end(modes);
  return fd;
}

long __syscall_dup(long fd) { return _ws_fs_dup((int)fd); }
long __syscall_dup3(long fd, long new_fd, long flags) { return _ws_fs_dup3((int)fd, (int)new_fd, (int)flags); }

long __syscall_fcntl64(long fd, long command, ...) {
  va_list arguments;
  va_start(arguments, command);
  intptr_t argument = va_arg(arguments, intptr_t);  // an int or a struct flock *: both 32 bits
  va_end(arguments);
  return _ws_fs_fcntl((int)fd, (int)command, argument);
}

long __syscall_ioctl(long fd, long request, ...) {
  va_list arguments;
  va_start(arguments, request);
  void *argument = va_arg(arguments, void *);
  va_end(arguments);
  if (request == FIONBIO) {
    int flags = _ws_fs_fcntl((int)fd, F_GETFL, 0);
    if (flags < 0) return flags;
    return _ws_fs_fcntl((int)fd, F_SETFL, *(int *)argument ? flags | O_NONBLOCK : flags & ~O_NONBLOCK);
  }
  int tty = _ws_fs_isatty((int)fd);
  if (tty < 0) return tty;  // EBADF or ENOTTY: the remaining requests are the terminal's
  switch (request) {
    case TCGETS: memset(argument, 0, sizeof(struct termios)); return 0;
    case TCSETS:
    case TCSETSW:
    case TCSETSF:
    case TIOCSPGRP: return 0;
    case TIOCGPGRP: *(int *)argument = 0; return 0;
    case TIOCGWINSZ: *(struct winsize *)argument = (struct winsize){.ws_row = 24, .ws_col = 80}; return 0;
    case TIOCSWINSZ: return 0;
    case FIONREAD: *(int *)argument = 0; return 0;
    default: return -EINVAL;
  }
}

long __syscall_pipe(long fds) { return _ws_fs_pipe2((int *)fds, 0); }

long __syscall_poll(long fds, long count, long timeout) {
  return _ws_fs_poll((struct pollfd *)fds, (unsigned)count, (int)timeout);
}

// select() through poll(): every descriptor set in one of the three sets becomes a pollfd.
long __syscall__newselect(long count, long read_set, long write_set, long except_set, long timeout) {
  fd_set *sets[3] = {(fd_set *)read_set, (fd_set *)write_set, (fd_set *)except_set};
  if (count < 0 || count > FD_SETSIZE) return -EINVAL;
  struct pollfd fds[FD_SETSIZE];
  unsigned used = 0;
  for (int fd = 0; fd < count; fd++) {
    short events = (sets[0] && FD_ISSET(fd, sets[0]) ? POLLIN : 0) | (sets[1] && FD_ISSET(fd, sets[1]) ? POLLOUT : 0) |
                   (sets[2] && FD_ISSET(fd, sets[2]) ? POLLPRI : 0);
    if (events != 0) fds[used++] = (struct pollfd){.fd = fd, .events = events};
  }
  const struct timeval *limit = (const struct timeval *)timeout;
  int milliseconds = limit == NULL ? -1 : (int)(limit->tv_sec * 1000 + limit->tv_usec / 1000);
  int result = _ws_fs_poll(fds, used, milliseconds);
  if (result < 0) return result;
  for (int i = 0; i < 3; i++) {
    if (sets[i]) FD_ZERO(sets[i]);
  }
  int ready = 0;
  for (unsigned i = 0; i < used; i++) {
    if (fds[i].revents & POLLNVAL) return -EBADF;
    bool in = sets[0] && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && (fds[i].events & POLLIN);
    bool out = sets[1] && (fds[i].revents & (POLLOUT | POLLERR)) && (fds[i].events & POLLOUT);
    if (in) FD_SET(fds[i].fd, sets[0]);
    if (out) FD_SET(fds[i].fd, sets[1]);
    ready += in + out;
  }
  return ready;
}

// ----- data ----------------------------------------------------------------------------------
long __syscall_ftruncate64(long fd, WS_I64_PARAM(size)) { return _ws_fs_ftruncate((int)fd, WS_I64_VALUE(size)); }
long __syscall_truncate64(long path, WS_I64_PARAM(size)) { return _ws_fs_truncate(PATH(path), WS_I64_VALUE(size)); }
long __syscall_fallocate(long fd, long mode, WS_I64_PARAM(offset), WS_I64_PARAM(length)) {
  return _ws_fs_fallocate((int)fd, (int)mode, WS_I64_VALUE(offset), WS_I64_VALUE(length));
}
long __syscall_fdatasync(long fd) { return _ws_fs_fsync((int)fd); }

// posix_fadvise: advice only, so nothing to do once the descriptor and the advice are valid.
// (Emscripten's own JS answer would bring its JS file system in with it.)
long WS_SYSCALL_FADVISE(long fd, WS_I64_PARAM(offset), WS_I64_PARAM(length), long advice) {
  ws_stat info;
  long error = _ws_fs_fstat((int)fd, &info);
  if (error != 0) return error;
  if (S_ISFIFO(info.mode)) return -ESPIPE;
  if (advice < POSIX_FADV_NORMAL || advice > POSIX_FADV_NOREUSE || WS_I64_VALUE(length) < 0) return -EINVAL;
  (void)WS_I64_VALUE(offset);
  return 0;
}

typedef struct dirent_buffer {
  char *at;
  size_t room;
} dirent_buffer;

static int put_dirent(void *context, const ws_dirent *entry, uint64_t next) {
  dirent_buffer *out = context;
  size_t size = (offsetof(struct dirent, d_name) + entry->length + 1 + 7) & ~(size_t)7;
  if (size > out->room) return 0;
  struct dirent *record = (struct dirent *)out->at;
  record->d_ino = (ino_t)entry->ino;
  record->d_off = (off_t)next;
  record->d_reclen = (unsigned short)size;
  record->d_type = (unsigned char)(entry->type >> 12);  // IFTODT
  memcpy(record->d_name, entry->name, entry->length + 1);
  out->at += size;
  out->room -= size;
  return 1;
}

long __syscall_getdents64(long fd, long buffer, long size) {
  dirent_buffer out = {(char *)buffer, (size_t)size};
  int given = _ws_fs_getdents((int)fd, put_dirent, &out);
  return given < 0 ? given : (long)((size_t)size - out.room);
}

// ----- attributes ----------------------------------------------------------------------------
static void to_stat(const ws_stat *info, struct stat *out) {
  memset(out, 0, sizeof *out);
  out->st_dev = (dev_t)info->dev;
  out->st_ino = (ino_t)info->ino;
  out->st_mode = info->mode;
  out->st_nlink = info->nlink;
  out->st_rdev = (dev_t)info->rdev;
  out->st_size = (off_t)info->size;
  out->st_blksize = (blksize_t)info->blksize;
  out->st_blocks = (blkcnt_t)info->blocks;
  out->st_atim = info->atime;
  out->st_mtim = info->mtime;
  out->st_ctim = info->ctime;
}

static long stat_result(int error, const ws_stat *info, long buffer) {
  if (error == 0) to_stat(info, (struct stat *)buffer);
  return error;
}

long __syscall_fstat64(long fd, long buffer) {
  ws_stat info;
  return stat_result(_ws_fs_fstat((int)fd, &info), &info, buffer);
}

long __syscall_stat64(long path, long buffer) {
  ws_stat info;
  return stat_result(_ws_fs_fstatat(WS_AT_FDCWD, PATH(path), &info, 0), &info, buffer);
}

long __syscall_lstat64(long path, long buffer) {
  ws_stat info;
  return stat_result(_ws_fs_fstatat(WS_AT_FDCWD, PATH(path), &info, AT_SYMLINK_NOFOLLOW), &info, buffer);
}

long __syscall_fstatat64(long dirfd, long path, long buffer, long flags) {
  ws_stat info;
  return stat_result(_ws_fs_fstatat((int)dirfd, PATH(path), &info, (int)flags), &info, buffer);
}

// Later Emscripten releases name it after Linux's newfstatat.
long __syscall_newfstatat(long dirfd, long path, long buffer, long flags) {
  return __syscall_fstatat64(dirfd, path, buffer, flags);
}

static long statfs_result(int error, const ws_statfs *info, long size, long buffer) {
  if (error != 0) return error;
  if ((size_t)size < sizeof(struct statfs)) return -EINVAL;
  struct statfs *out = (struct statfs *)buffer;
  memset(out, 0, sizeof *out);
  out->f_type = 0x01021994;  // TMPFS_MAGIC: memory is where the files live
  out->f_bsize = (unsigned long)info->block_size;
  out->f_frsize = (unsigned long)info->block_size;
  out->f_blocks = (fsblkcnt_t)info->blocks;
  out->f_bfree = out->f_bavail = (fsblkcnt_t)info->blocks_free;
  out->f_files = (fsfilcnt_t)info->files;
  out->f_ffree = (fsfilcnt_t)info->files_free;
  out->f_namelen = (unsigned long)info->name_max;
  return 0;
}

long __syscall_statfs64(long path, long size, long buffer) {
  ws_statfs info;
  return statfs_result(_ws_fs_statfs(PATH(path), &info), &info, size, buffer);
}

long __syscall_fstatfs64(long fd, long size, long buffer) {
  ws_statfs info;
  return statfs_result(_ws_fs_fstatfs((int)fd, &info), &info, size, buffer);
}

long __syscall_chmod(long path, long mode) { return _ws_fs_fchmodat(WS_AT_FDCWD, PATH(path), (uint32_t)mode, 0); }
long __syscall_fchmod(long fd, long mode) { return _ws_fs_fchmod((int)fd, (uint32_t)mode); }

#if WS_SYSCALL_ABI == 31
long __syscall_fchmodat(long dirfd, long path, long mode, ...) {
  return _ws_fs_fchmodat((int)dirfd, PATH(path), (uint32_t)mode, 0);  // musl handles the flags itself
}
#else
long __syscall_fchmodat2(long dirfd, long path, long mode, long flags) {
  return _ws_fs_fchmodat((int)dirfd, PATH(path), (uint32_t)mode, (int)flags);
}
#endif

// One user, root, owns every file (as Emscripten's own answers say): so do the ids.
// (Emscripten 3.1.6 answers these in JS that brings its JS file system in with it.)
long __syscall_getuid32(void) { return 0; }
long __syscall_geteuid32(void) { return 0; }
long __syscall_getgid32(void) { return 0; }
long __syscall_getegid32(void) { return 0; }

// One user owns every file: changing owners succeeds once the file is found, and changes nothing.
long __syscall_chown32(long path, long owner, long group) {
  (void)owner, (void)group;
  ws_stat info;
  return _ws_fs_fstatat(WS_AT_FDCWD, PATH(path), &info, 0);
}
long __syscall_lchown32(long path, long owner, long group) {
  (void)owner, (void)group;
  ws_stat info;
  return _ws_fs_fstatat(WS_AT_FDCWD, PATH(path), &info, AT_SYMLINK_NOFOLLOW);
}
long __syscall_fchown32(long fd, long owner, long group) {
  (void)owner, (void)group;
  ws_stat info;
  return _ws_fs_fstat((int)fd, &info);
}
long __syscall_fchownat(long dirfd, long path, long owner, long group, long flags) {
  (void)owner, (void)group;
  ws_stat info;
  return _ws_fs_fstatat((int)dirfd, PATH(path), &info, (int)flags);
}

long __syscall_utimensat(long dirfd, long path, long times, long flags) {
  return _ws_fs_utimensat((int)dirfd, PATH(path), (const struct timespec *)times, (int)flags);
}

long __syscall_faccessat(long dirfd, long path, long mode, long flags) {
  return _ws_fs_faccessat((int)dirfd, PATH(path), (int)mode, (int)flags);
}

// ----- names ---------------------------------------------------------------------------------
long __syscall_mkdir(long path, long mode) { return _ws_fs_mkdirat(WS_AT_FDCWD, PATH(path), (uint32_t)mode); }
long __syscall_mkdirat(long dirfd, long path, long mode) { return _ws_fs_mkdirat((int)dirfd, PATH(path), (uint32_t)mode); }
long __syscall_mknod(long path, long mode, long dev) {
  (void)dev;
  return _ws_fs_mknodat(WS_AT_FDCWD, PATH(path), (uint32_t)mode);
}
long __syscall_mknodat(long dirfd, long path, long mode, long dev) {
  (void)dev;
  return _ws_fs_mknodat((int)dirfd, PATH(path), (uint32_t)mode);
}
long __syscall_rmdir(long path) { return _ws_fs_unlinkat(WS_AT_FDCWD, PATH(path), AT_REMOVEDIR); }
long __syscall_unlink(long path) { return _ws_fs_unlinkat(WS_AT_FDCWD, PATH(path), 0); }
long __syscall_unlinkat(long dirfd, long path, long flags) { return _ws_fs_unlinkat((int)dirfd, PATH(path), (int)flags); }
long __syscall_rename(long from, long to) { return _ws_fs_renameat(WS_AT_FDCWD, PATH(from), WS_AT_FDCWD, PATH(to)); }
long __syscall_renameat(long from_dirfd, long from, long to_dirfd, long to) {
  return _ws_fs_renameat((int)from_dirfd, PATH(from), (int)to_dirfd, PATH(to));
}
long __syscall_linkat(long from_dirfd, long from, long to_dirfd, long to, long flags) {
  return _ws_fs_linkat((int)from_dirfd, PATH(from), (int)to_dirfd, PATH(to), (int)flags);
}
long __syscall_symlink(long target, long path) { return _ws_fs_symlinkat(PATH(target), WS_AT_FDCWD, PATH(path)); }
long __syscall_symlinkat(long target, long dirfd, long path) {
  return _ws_fs_symlinkat(PATH(target), (int)dirfd, PATH(path));
}
long __syscall_readlink(long path, long buffer, long size) {
  return _ws_fs_readlinkat(WS_AT_FDCWD, PATH(path), (char *)buffer, (size_t)size);
}
long __syscall_readlinkat(long dirfd, long path, long buffer, long size) {
  return _ws_fs_readlinkat((int)dirfd, PATH(path), (char *)buffer, (size_t)size);
}
long __syscall_chdir(long path) { return _ws_fs_chdir(PATH(path)); }
long __syscall_fchdir(long fd) { return _ws_fs_fchdir((int)fd); }
long __syscall_getcwd(long buffer, long size) { return _ws_fs_getcwd((char *)buffer, (size_t)size); }
