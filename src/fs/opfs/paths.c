// The OPFS backend's calls: a held-directory host (platform.h's ws_host_io) over OPFS, which
// names files by path. A held directory is the path it was opened on, moved along by renames
// made here. OPFS has no links or symlinks, so no path built from a held directory leaves it:
// link and symlink give -EPERM. It keeps no modes or times: chmod and utimes give -EOPNOTSUPP.
// Every call gives -ENODEV where there is no OPFS (Node, a program built without -pthread).
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opfs.h"

#define DIR_BASE WS_OPFS_FILES_MAX  // held directories (see below) from here on
#define PATH_BYTES 4096             // an OPFS path with its terminating zero

// ----- held directories ------------------------------------------------------------------------
// OPFS names files by path; the backend names them beneath held directories (platform.h). A
// held directory here is the path it was opened on: DIR_BASE plus its index in held_paths,
// above every file descriptor, so that close and fstat tell the two apart. A rename made
// through this backend moves the held paths below it along, as a host descriptor would follow.
static char **held_paths;
static uint32_t held_capacity;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

// Holds `path` (taken over): a held directory, or -ENOMEM.
static int hold(char *path) {
  if (path == NULL) return -ENOMEM;
  pthread_mutex_lock(&held_lock);
  uint32_t slot = 0;
  while (slot < held_capacity && held_paths[slot] != NULL) slot++;
  if (slot == held_capacity) {
    uint32_t capacity = held_capacity != 0 ? held_capacity * 2 : 16;
    char **grown = realloc(held_paths, capacity * sizeof *grown);
    if (grown != NULL) {
      memset(grown + held_capacity, 0, (capacity - held_capacity) * sizeof *grown);
      held_paths = grown;
      held_capacity = capacity;
    }
  }
  int dir = slot < held_capacity ? DIR_BASE + (int)slot : -ENOMEM;
  if (dir >= 0) held_paths[slot] = path;
  pthread_mutex_unlock(&held_lock);
  if (dir < 0) free(path);
  return dir;
}

static bool is_held(int dir) { return dir >= DIR_BASE && (uint32_t)(dir - DIR_BASE) < held_capacity; }

// The OPFS path of `name` beneath held directory `dir` (of `dir` itself when name is NULL), in
// `out`; -EBADF for a directory not held, -ENAMETOOLONG.
static int path_of(int dir, const char *name, char out[PATH_BYTES]) {
  pthread_mutex_lock(&held_lock);
  const char *base = is_held(dir) ? held_paths[dir - DIR_BASE] : NULL;
  int written = base == NULL  ? -1
                : name == NULL ? snprintf(out, PATH_BYTES, "%s", base)
                               : snprintf(out, PATH_BYTES, "%s/%s", base, name);
  pthread_mutex_unlock(&held_lock);
  return base == NULL ? -EBADF : written >= PATH_BYTES ? -ENAMETOOLONG : 0;
}

// After a rename of `from` to `to`: held directories at or below `from` are now below `to`.
static void move_held(const char *from, const char *to) {
  size_t from_length = strlen(from);
  pthread_mutex_lock(&held_lock);
  for (uint32_t i = 0; i < held_capacity; i++) {
    char *path = held_paths[i];
    bool below = path != NULL && strncmp(path, from, from_length) == 0 &&
                 (path[from_length] == '\0' || path[from_length] == '/');
    if (!below) continue;
    char *moved = malloc(strlen(to) + strlen(path + from_length) + 1);
    if (moved == NULL) continue;  // keeps the old path: later calls through it fail with ENOENT
    strcpy(moved, to);
    strcat(moved, path + from_length);
    free(path);
    held_paths[i] = moved;
  }
  pthread_mutex_unlock(&held_lock);
}

// ----- the calls ----------------------------------------------------------------------------------
static int call_path(enum ws_opfs_call call, const char *path, const char *path2) {
  ws_opfs_request request = {.call = call, .path = path, .path2 = path2, .fd = -1};
  return (int)ws_prim_opfs_send(&request);
}

static int lstat_path(const char *path, ws_host_stat *out) {
  ws_opfs_request request = {.call = WS_OPFS_LSTAT, .path = path, .buffer = out, .fd = -1};
  int error = (int)ws_prim_opfs_send(&request);
  if (error == 0) _ws_opfs_cached_size(request.fd, out);  // open here: the cache knows better
  return error;
}

static int opfs_fstat(int fd, ws_host_stat *out) {
  if (fd < DIR_BASE) return _ws_opfs_fstat_file(fd, out);
  char path[PATH_BYTES];  // a held directory: what its path names now
  int error = path_of(fd, NULL, path);
  return error != 0 ? error : lstat_path(path, out);
}

static int opfs_open_root(const char *path) {
  char resolved[PATH_BYTES];
  ws_opfs_request request = {.call = WS_OPFS_REALPATH, .path = path, .buffer = resolved, .length = sizeof resolved};
  int error = (int)ws_prim_opfs_send(&request);
  return error != 0 ? error : hold(strdup(resolved));
}

static int opfs_open_dir(int dir, const char *name) {
  char path[PATH_BYTES];
  ws_host_stat info;
  int error = path_of(dir, name, path);
  if (error == 0) error = lstat_path(path, &info);
  if (error == 0 && (info.mode & 0170000) != 0040000) error = -ENOTDIR;
  return error != 0 ? error : hold(strdup(path));
}

static int opfs_lstat(int dir, const char *name, ws_host_stat *out) {
  char path[PATH_BYTES];
  int error = path_of(dir, name, path);
  return error != 0 ? error : lstat_path(path, out);
}

static int opfs_open(int dir, const char *name, int how, uint32_t mode) {
  (void)mode;  // OPFS keeps no modes
  char path[PATH_BYTES];
  int error = path_of(dir, name, path);
  return error != 0 ? error : _ws_opfs_open_file(path, how);
}

static int opfs_close(int fd) {
  if (fd < DIR_BASE) return _ws_opfs_close_file(fd);
  pthread_mutex_lock(&held_lock);
  char *path = is_held(fd) ? held_paths[fd - DIR_BASE] : NULL;
  if (path != NULL) held_paths[fd - DIR_BASE] = NULL;
  pthread_mutex_unlock(&held_lock);
  free(path);
  return path != NULL ? 0 : -EBADF;
}

static int opfs_chmod(int fd, uint32_t mode) {
  (void)fd, (void)mode;
  return -EOPNOTSUPP;
}

static int opfs_utimes(int fd, const int64_t seconds[2], const int32_t nanoseconds[2]) {
  (void)fd, (void)seconds, (void)nanoseconds;
  return -EOPNOTSUPP;
}

static int call_at(enum ws_opfs_call call, int dir, const char *name) {
  char path[PATH_BYTES];
  int error = path_of(dir, name, path);
  return error != 0 ? error : call_path(call, path, NULL);
}

static int opfs_mkdir(int dir, const char *name, uint32_t mode) {
  (void)mode;
  return call_at(WS_OPFS_MKDIR, dir, name);
}

static int opfs_rmdir(int dir, const char *name) { return call_at(WS_OPFS_RMDIR, dir, name); }
static int opfs_unlink(int dir, const char *name) { return call_at(WS_OPFS_UNLINK, dir, name); }

static int opfs_rename(int from_dir, const char *from, int to_dir, const char *to) {
  char from_path[PATH_BYTES], to_path[PATH_BYTES];
  int error = path_of(from_dir, from, from_path);
  if (error == 0) error = path_of(to_dir, to, to_path);
  if (error == 0) error = call_path(WS_OPFS_RENAME, from_path, to_path);
  if (error == 0) move_held(from_path, to_path);
  return error;
}

static int opfs_link(int from_dir, const char *from, int to_dir, const char *to) {
  (void)from_dir, (void)from, (void)to_dir, (void)to;
  return -EPERM;  // OPFS has no hard links (link(2)'s answer on such file systems)
}

static int opfs_symlink(const char *target, int dir, const char *name) {
  (void)target, (void)dir, (void)name;
  return -EPERM;
}

static int opfs_readlink(int dir, const char *name, char *buffer, size_t size) {
  (void)dir, (void)name, (void)buffer, (void)size;
  return -EINVAL;  // nothing in OPFS is a symlink
}

static int64_t opfs_list(int dir, void *buffer, size_t size) {
  char path[PATH_BYTES];
  int error = path_of(dir, NULL, path);
  if (error != 0) return error;
  ws_opfs_request request = {.call = WS_OPFS_LIST, .path = path, .buffer = buffer, .length = (uint32_t)size};
  return (int64_t)ws_prim_opfs_send(&request);
}

const ws_host_io _ws_opfs_io = {
    .open_root = opfs_open_root, .open_dir = opfs_open_dir, .lstat = opfs_lstat, .fstat = opfs_fstat,
    .open = opfs_open, .close = opfs_close, .pread = _ws_opfs_pread, .pwrite = _ws_opfs_pwrite,
    .ftruncate = _ws_opfs_ftruncate, .fsync = _ws_opfs_fsync, .chmod = opfs_chmod, .utimes = opfs_utimes,
    .mkdir = opfs_mkdir, .rmdir = opfs_rmdir, .unlink = opfs_unlink, .rename = opfs_rename, .link = opfs_link,
    .symlink = opfs_symlink, .readlink = opfs_readlink, .list = opfs_list,
};
