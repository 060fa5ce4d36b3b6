// Host files for native builds: the POSIX calls themselves, so the host-directory backend runs
// under the sanitizers against a real directory.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>  // rename
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../platform.h"

#define RESULT(call) ((call) < 0 ? -errno : 0)

static void store_stat(const struct stat *info, ws_host_stat *out) {
  *out = (ws_host_stat){
      .mode = info->st_mode, .nlink = (uint32_t)info->st_nlink, .ino = info->st_ino, .size = (uint64_t)info->st_size,
      .blocks = (uint64_t)info->st_blocks, .atime_sec = info->st_atim.tv_sec, .atime_nsec = (int32_t)info->st_atim.tv_nsec,
      .mtime_sec = info->st_mtim.tv_sec, .mtime_nsec = (int32_t)info->st_mtim.tv_nsec,
      .ctime_sec = info->st_ctim.tv_sec, .ctime_nsec = (int32_t)info->st_ctim.tv_nsec};
}

int ws_prim_host_lstat(const char *path, ws_host_stat *out) {
  struct stat info;
  if (lstat(path, &info) != 0) return -errno;
  store_stat(&info, out);
  return 0;
}

int ws_prim_host_fstat(int fd, ws_host_stat *out) {
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

int ws_prim_host_open(const char *path, int how, uint32_t mode) {
  int flags = O_NOFOLLOW | O_CLOEXEC | (how & WS_HOST_READ_WRITE ? O_RDWR : O_RDONLY);
  if (how & WS_HOST_CREATE) flags |= O_CREAT | O_EXCL;
  int fd = open(path, flags, (mode_t)mode);
  return fd < 0 ? -errno : fd;
}

int ws_prim_host_close(int fd) { return RESULT(close(fd)); }

int64_t ws_prim_host_pread(int fd, void *buffer, size_t length, uint64_t offset) {
  ssize_t got = pread(fd, buffer, length, (off_t)offset);
  return got < 0 ? -errno : got;
}

int64_t ws_prim_host_pwrite(int fd, const void *buffer, size_t length, uint64_t offset) {
  ssize_t put = pwrite(fd, buffer, length, (off_t)offset);
  return put < 0 ? -errno : put;
}

int ws_prim_host_ftruncate(int fd, uint64_t size) { return RESULT(ftruncate(fd, (off_t)size)); }
int ws_prim_host_fsync(int fd) { return RESULT(fsync(fd)); }
int ws_prim_host_mkdir(const char *path, uint32_t mode) { return RESULT(mkdir(path, (mode_t)mode)); }
int ws_prim_host_rmdir(const char *path) { return RESULT(rmdir(path)); }
int ws_prim_host_unlink(const char *path) { return RESULT(unlink(path)); }
int ws_prim_host_rename(const char *from, const char *to) { return RESULT(rename(from, to)); }
int ws_prim_host_link(const char *existing, const char *path) { return RESULT(link(existing, path)); }
int ws_prim_host_symlink(const char *target, const char *path) { return RESULT(symlink(target, path)); }

int ws_prim_host_readlink(const char *path, char *buffer, size_t size) {
  ssize_t length = readlink(path, buffer, size);
  return length < 0 ? -errno : (int)length;
}

int64_t ws_prim_host_list(const char *path, void *buffer, size_t size) {
  DIR *dir = opendir(path);
  if (dir == NULL) return -errno;
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
