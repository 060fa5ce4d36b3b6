// Host files for native builds: the POSIX *at calls beneath held directories (O_PATH
// descriptors), so the host-directory backend runs under the sanitizers against a real directory.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>  // snprintf
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../platform.h"

#define RESULT(call) ((call) < 0 ? -errno : 0)

static void store_stat(const struct stat *info, ws_host_stat *out) {
  *out = (ws_host_stat){
      .mode = info->st_mode, .nlink = (uint32_t)info->st_nlink,
      .dev = info->st_dev, .ino = info->st_ino, .size = (uint64_t)info->st_size,
      .blocks = (uint64_t)info->st_blocks, .atime_sec = info->st_atim.tv_sec, .atime_nsec = (int32_t)info->st_atim.tv_nsec,
      .mtime_sec = info->st_mtim.tv_sec, .mtime_nsec = (int32_t)info->st_mtim.tv_nsec,
      .ctime_sec = info->st_ctim.tv_sec, .ctime_nsec = (int32_t)info->st_ctim.tv_nsec};
}

static int host_open_root(const char *path) {
  int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

// O_PATH: a held directory needs no read permission, as a path walk through it needs none.
static int host_open_dir(int dir, const char *name) {
  int fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

static int host_lstat(int dir, const char *name, ws_host_stat *out) {
  struct stat info;
  if (fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) != 0) return -errno;
  store_stat(&info, out);
  return 0;
}

static int host_fstat(int fd, ws_host_stat *out) {
  struct stat info;
  if (fstat(fd, &info) != 0) return -errno;
  store_stat(&info, out);
  return 0;
}

int ws_prim_host_realpath(const char *path, char *out, size_t size) {
  char *resolved = realpath(path, NULL);
  if (resolved == NULL) return -errno;
  int error = strlen(resolved) < size ? 0 : -ENAMETOOLONG;
  if (error == 0) strcpy(out, resolved);
  free(resolved);
  return error;
}

static int host_open(int dir, const char *name, int how, uint32_t mode) {
  int flags = O_NOFOLLOW | O_CLOEXEC | (how & WS_HOST_READ_WRITE ? O_RDWR : O_RDONLY);
  if (how & WS_HOST_CREATE) flags |= O_CREAT | O_EXCL;
  int fd = openat(dir, name, flags, (mode_t)mode);
  return fd < 0 ? -errno : fd;
}

static int host_close(int fd) { return RESULT(close(fd)); }

static int64_t host_pread(int fd, void *buffer, size_t length, uint64_t offset) {
  ssize_t got = pread(fd, buffer, length, (off_t)offset);
  return got < 0 ? -errno : got;
}

static int64_t host_pwrite(int fd, const void *buffer, size_t length, uint64_t offset) {
  ssize_t put = pwrite(fd, buffer, length, (off_t)offset);
  return put < 0 ? -errno : put;
}

static int host_ftruncate(int fd, uint64_t size) { return RESULT(ftruncate(fd, (off_t)size)); }
static int host_fsync(int fd) { return RESULT(fsync(fd)); }

// Through the descriptor's /proc entry, which also serves O_PATH descriptors (fchmod and
// futimens refuse those); the kernel resolves it to the descriptor's own file.
static void proc_path(int fd, char out[32]) { snprintf(out, 32, "/proc/self/fd/%d", fd); }

static int host_chmod(int fd, uint32_t mode) {
  char path[32];
  proc_path(fd, path);
  return RESULT(chmod(path, (mode_t)mode));
}

static int host_utimes(int fd, const int64_t seconds[2], const int32_t nanoseconds[2]) {
  char path[32];
  proc_path(fd, path);
  struct timespec times[2] = {{(time_t)seconds[0], nanoseconds[0]}, {(time_t)seconds[1], nanoseconds[1]}};
  return RESULT(utimensat(AT_FDCWD, path, times, 0));
}

static int host_mkdir(int dir, const char *name, uint32_t mode) { return RESULT(mkdirat(dir, name, (mode_t)mode)); }
static int host_rmdir(int dir, const char *name) { return RESULT(unlinkat(dir, name, AT_REMOVEDIR)); }
static int host_unlink(int dir, const char *name) { return RESULT(unlinkat(dir, name, 0)); }
static int host_rename(int from_dir, const char *from, int to_dir, const char *to) {
  return RESULT(renameat(from_dir, from, to_dir, to));
}
static int host_link(int from_dir, const char *from, int to_dir, const char *to) {
  return RESULT(linkat(from_dir, from, to_dir, to, 0));
}
static int host_symlink(const char *target, int dir, const char *name) { return RESULT(symlinkat(target, dir, name)); }

static int host_readlink(int dir, const char *name, char *buffer, size_t size) {
  ssize_t length = readlinkat(dir, name, buffer, size);
  return length < 0 ? -errno : (int)length;
}

static int64_t host_list(int held, void *buffer, size_t size) {
  int fd = openat(held, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // an O_PATH descriptor cannot be read
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (dir == NULL) {
    int error = -errno;
    if (fd >= 0) close(fd);
    return error;
  }
  uint8_t *out = buffer;
  size_t needed = 0;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    uint8_t type = (uint8_t)(DTTOIF(entry->d_type) >> 12);
    uint64_t ino = entry->d_ino;
    size_t length = strlen(entry->d_name);
    if (needed + 10 + length <= size) {
      out[needed] = type;
      for (int i = 0; i < 8; i++) out[needed + 1 + i] = (uint8_t)(ino >> (8 * i));
      memcpy(out + needed + 9, entry->d_name, length + 1);
    }
    needed += 10 + length;
  }
  closedir(dir);
  return (int64_t)needed;
}

// Native programs mount through the C API; the environment's WASMSCALE_MOUNTS (lines
// VIRTUAL=HOST_DIR) plays the driver's --mount, so the start-up mounts run under the sanitizers.
size_t ws_prim_host_startup_mounts(char *buffer, size_t size) {
  const char *list = getenv("WASMSCALE_MOUNTS");
  size_t needed = 0;
  for (const char *line = list; line != NULL && *line != '\0';) {
    size_t length = strcspn(line, "\n");
    const char *equals = memchr(line, '=', length);
    for (size_t i = 0; equals != NULL && i < length; i++) {  // '=' ends the virtual path
      if (needed < size) buffer[needed] = line + i == equals ? '\0' : line[i];
      needed++;
    }
    if (equals != NULL && needed++ < size) buffer[needed - 1] = '\0';
    line += length + (line[length] == '\n');
  }
  return needed;
}

const ws_host_io ws_prim_host_io = WS_HOST_IO(host);
