// The file calls the fsx and thread tests make, either through libc (natively against Linux,
// or in Wasm against wasmscale's file system) or, with -DWS_TEST_CORE, straight into
// wasmscale's core built natively, so that it runs under ASan/UBSan and TSan.
#ifndef WASMSCALE_TESTS_FS_CALLS_H
#define WASMSCALE_TESTS_FS_CALLS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifdef WS_TEST_CORE
#include "../../src/fs/core.h"
#include "../../src/fs/internal.h"

static inline long fs_result(long long result) {
  if (result >= 0) return (long)result;
  errno = (int)-result;
  return -1;
}
static inline long t_pread(int fd, void *buffer, size_t length, long long offset) {
  return fs_result(_ws_fs_readv(fd, &(struct iovec){buffer, length}, 1, offset));
}
static inline long t_pwrite(int fd, const void *buffer, size_t length, long long offset) {
  return fs_result(_ws_fs_writev(fd, &(struct iovec){(void *)buffer, length}, 1, offset));
}
static inline long long t_size(int fd) {
  ws_stat info;
  return _ws_fs_fstat(fd, &info) == 0 ? (long long)info.size : -1;
}
static inline long long t_ino(const char *path) {
  ws_stat info;
  return fs_result(_ws_fs_fstatat(WS_AT_FDCWD, path, &info, 0)) == 0 ? (long long)info.ino : -1;
}
static inline char *t_getcwd(char *buffer, size_t size) { return fs_result(_ws_fs_getcwd(buffer, size)) >= 0 ? buffer : NULL; }
#define t_open(path, flags, mode) fs_result(_ws_fs_openat(WS_AT_FDCWD, path, flags, mode))
#define t_close(fd) fs_result(_ws_fs_close(fd))
#define t_read(fd, buffer, length) fs_result(_ws_fs_read(fd, buffer, length))
#define t_write(fd, buffer, length) fs_result(_ws_fs_write(fd, buffer, length))
#define t_ftruncate(fd, size) fs_result(_ws_fs_ftruncate(fd, size))
#define t_rename(from, to) fs_result(_ws_fs_renameat(WS_AT_FDCWD, from, WS_AT_FDCWD, to))
#define t_unlink(path) fs_result(_ws_fs_unlinkat(WS_AT_FDCWD, path, 0))
#define t_mkdir(path, mode) fs_result(_ws_fs_mkdirat(WS_AT_FDCWD, path, mode))
#define t_rmdir(path) fs_result(_ws_fs_unlinkat(WS_AT_FDCWD, path, AT_REMOVEDIR))
#define t_chdir(path) fs_result(_ws_fs_chdir(path))
#define t_dup2(fd, new_fd) fs_result(_ws_fs_dup3(fd, new_fd, 0))
#define t_mkfifo(path, mode) fs_result(_ws_fs_mknodat(WS_AT_FDCWD, path, S_IFIFO | (mode)))
#define t_openat(dirfd, path, flags, mode) fs_result(_ws_fs_openat(dirfd, path, flags, mode))
#define t_fsync(fd) fs_result(_ws_fs_fsync(fd))
#define t_lseek(fd, offset, whence) fs_result(_ws_fs_lseek(fd, offset, whence))
#define t_lock(fd, command, lock) fs_result(_ws_fs_fcntl(fd, command, (intptr_t)(lock)))
#define t_flock(fd, operation) fs_result(_ws_fs_flock(fd, operation))
#define t_link(from, to) fs_result(_ws_fs_linkat(WS_AT_FDCWD, from, WS_AT_FDCWD, to, 0))
#define t_readlink(path, buffer, size) fs_result(_ws_fs_readlinkat(WS_AT_FDCWD, path, buffer, size))
#define t_fallocate(fd, offset, length) fs_result(_ws_fs_fallocate(fd, 0, offset, length))
static inline long t_lstat(const char *path, ws_stat *out) {
  return fs_result(_ws_fs_fstatat(WS_AT_FDCWD, path, out, AT_SYMLINK_NOFOLLOW));
}
static inline long t_fstat(int fd, ws_stat *out) { return fs_result(_ws_fs_fstat(fd, out)); }
#define T_SIZE(info) ((info).size)
#define T_NLINK(info) ((info).nlink)
// The entries of directory `path` (not . or ..), each name, d_ino and d_type (DT_*) passed to
// `take`; -1 on error.
typedef void t_take_entry(void *context, const char *name, unsigned long long ino, unsigned type);
struct named_entries {
  t_take_entry *take;
  void *context;
};
static int name_entry(void *context, const struct ws_dirent *entry, uint64_t next) {
  (void)next;
  struct named_entries *named = context;
  if (strcmp(entry->name, ".") != 0 && strcmp(entry->name, "..") != 0) {
    named->take(named->context, entry->name, entry->ino, entry->type >> 12);  // S_IFMT bits to DT_*
  }
  return 1;
}
static inline int t_list(const char *path, t_take_entry *take, void *context) {
  int fd = (int)_ws_fs_openat(WS_AT_FDCWD, path, O_RDONLY | O_DIRECTORY, 0);
  if (fd < 0) return (int)fs_result(fd);
  struct named_entries named = {take, context};
  int got;
  while ((got = _ws_fs_getdents(fd, name_entry, &named)) > 0) {
  }
  _ws_fs_close(fd);
  return got < 0 ? (int)fs_result(got) : 0;
}
#define t_unlinkat(dirfd, path, flags) fs_result(_ws_fs_unlinkat(dirfd, path, flags))
#define t_symlink(target, path) fs_result(_ws_fs_symlinkat(target, WS_AT_FDCWD, path))
#define t_chmod(path, mode) fs_result(_ws_fs_fchmodat(WS_AT_FDCWD, path, mode, 0))
#define t_utimens(path, times) fs_result(_ws_fs_utimensat(WS_AT_FDCWD, path, times, 0))
static inline long t_stat(const char *path, ws_stat *out) { return fs_result(_ws_fs_fstatat(WS_AT_FDCWD, path, out, 0)); }
typedef ws_stat t_stat_t;
#define T_MTIME(info) ((info).mtime)
#define T_MODE(info) ((info).mode)
#define T_INO(info) ((info).ino)
#define T_BLOCKS(info) ((info).blocks)
#else
static inline long t_pread(int fd, void *buffer, size_t length, long long offset) { return pread(fd, buffer, length, offset); }
static inline long t_pwrite(int fd, const void *buffer, size_t length, long long offset) {
  return pwrite(fd, buffer, length, offset);
}
static inline long long t_size(int fd) {
  struct stat info;
  return fstat(fd, &info) == 0 ? (long long)info.st_size : -1;
}
static inline long long t_ino(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 ? (long long)info.st_ino : -1;
}
#define t_getcwd getcwd
#define t_open open
#define t_close close
#define t_read read
#define t_write write
#define t_ftruncate ftruncate
#define t_rename rename
#define t_unlink unlink
#define t_mkdir mkdir
#define t_rmdir rmdir
#define t_chdir chdir
#define t_dup2 dup2
#define t_mkfifo mkfifo
#define t_openat openat
#define t_fsync fsync
#define t_lseek lseek
#define t_lock fcntl
#define t_flock flock
#define t_link link
#define t_readlink readlink
#define t_fallocate(fd, offset, length) fallocate(fd, 0, offset, length)
#define t_lstat lstat
#define t_fstat fstat
#define T_SIZE(info) ((info).st_size)
#define T_NLINK(info) ((info).st_nlink)
typedef void t_take_entry(void *context, const char *name, unsigned long long ino, unsigned type);
static inline int t_list(const char *path, t_take_entry *take, void *context) {
  DIR *dir = opendir(path);
  if (dir == NULL) return -1;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) take(context, entry->d_name, entry->d_ino, entry->d_type);
  }
  closedir(dir);
  return 0;
}
#define t_unlinkat unlinkat
#define t_symlink symlink
#define t_chmod chmod
#define t_utimens(path, times) utimensat(AT_FDCWD, path, times, 0)
#define t_stat stat
typedef struct stat t_stat_t;
#define T_MTIME(info) ((info).st_mtim)
#define T_MODE(info) ((info).st_mode)
#define T_INO(info) ((info).st_ino)
#define T_BLOCKS(info) ((info).st_blocks)
#endif

// Entries of directory `path` called `name`, or (name NULL) those not starting with '.'; -1 on error.
struct counted_entries {
  const char *name;
  int count;
};
static void count_name(void *context, const char *name, unsigned long long ino, unsigned type) {
  (void)ino, (void)type;
  struct counted_entries *counted = context;
  counted->count += counted->name != NULL ? strcmp(name, counted->name) == 0 : name[0] != '.';
}
static inline int t_entries_named(const char *path, const char *name) {
  struct counted_entries counted = {name, 0};
  return t_list(path, count_name, &counted) < 0 ? -1 : counted.count;
}

static inline int t_count_entries(const char *path) { return t_entries_named(path, NULL); }

// A fresh directory for the test: under /tmp natively (mkdtemp), /tmp/NAME in Wasm.
static inline int enter_scratch_dir(const char *name, char *path, size_t size) {
#ifdef __EMSCRIPTEN__
  snprintf(path, size, "/tmp/%s", name);
  if (t_mkdir(path, 0755) != 0) return -1;
#elif defined(WS_TEST_CORE)
  snprintf(path, size, "/%s", name);  // the core's own root, in memory
  if (t_mkdir(path, 0755) != 0) return -1;
#else
  snprintf(path, size, "/tmp/%s-XXXXXX", name);
  if (mkdtemp(path) == NULL) return -1;
#endif
  return t_chdir(path);
}

#endif
