// Calls that read or change attributes: stat family, chmod, utimensat, access, statfs, umask.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static _Atomic uint32_t umask_bits = 022;

uint32_t _ws_fs_umask(uint32_t mask) { return atomic_exchange(&umask_bits, mask & 0777); }
uint32_t _ws_fs_current_umask(void) { return atomic_load(&umask_bits); }

static void fill_stat(ws_node *node, ws_stat *out) {
  if (atomic_load_explicit(&node->time_marks, memory_order_relaxed) != 0) {
    ws_rwlock_write(&node->lock);
    _ws_node_resolve_times(node);
    ws_rwlock_unlock(&node->lock);
  }
  ws_rwlock_read(&node->lock);
  *out = (ws_stat){
      .dev = node->mount != NULL ? node->mount->id : 0,
      .ino = node->ino,
      .rdev = node->device,
      .mode = node->mode,
      .nlink = node->nlink,
      .size = node->type == S_IFREG || node->type == S_IFLNK ? node->size : node->type == S_IFDIR ? WS_BLOCK_SIZE : 0,
      .blocks = node->blocks,
      .blksize = WS_BLOCK_SIZE,
      .atime = node->atime,
      .mtime = node->mtime,
      .ctime = node->ctime,
  };
  ws_rwlock_unlock(&node->lock);
}

int _ws_fs_fstat(int fd, ws_stat *out) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  fill_stat(file->node, out);
  _ws_file_unref(file);
  return 0;
}

// Resolves the node an *at call with AT_SYMLINK_NOFOLLOW / AT_EMPTY_PATH names.
static int walk_at_flags(int dirfd, const char *path, int flags, int allowed, ws_walk *walk) {
  if (flags & ~allowed) return -EINVAL;
  if (path != NULL && path[0] == '\0' && (flags & AT_EMPTY_PATH)) {
    ws_node *at;
    *walk = (ws_walk){0};
    int error = _ws_at_dir(dirfd, path, &at);
    if (error != 0) return error;
    walk->node = at != NULL ? at : _ws_cwd();
    return 0;
  }
  return _ws_walk_at(dirfd, path, (flags & AT_SYMLINK_NOFOLLOW) ? WS_WALK_NOFOLLOW : 0, walk);
}

int _ws_fs_fstatat(int dirfd, const char *path, ws_stat *out, int flags) {
  ws_walk walk;
  int error = walk_at_flags(dirfd, path, flags, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT, &walk);
  if (error != 0) return error;
  fill_stat(walk.node, out);
  _ws_walk_done(&walk);
  return 0;
}

// The backend applies the change first (a host file's mode on disk); only then is it recorded.
static int change_mode(ws_node *node, uint32_t mode) {
  ws_rwlock_write(&node->lock);
  int error = _ws_b_set_mode(node, mode & 07777);
  if (error == 0) {
    atomic_store(&node->mode, node->type | (mode & 07777));
    _ws_node_touch(node, false);
  }
  ws_rwlock_unlock(&node->lock);
  return error;
}

static int chmod_once(int dirfd, const char *path, uint32_t mode, int flags) {
  ws_walk walk;
  int error = walk_at_flags(dirfd, path, flags, AT_SYMLINK_NOFOLLOW, &walk);
  if (error != 0) return error;
  if (walk.node->type == S_IFLNK) {
    error = -EOPNOTSUPP;  // Linux cannot change a symlink's mode either
  } else {
    error = change_mode(walk.node, mode);
  }
  _ws_walk_done(&walk);
  return error;
}

int _ws_fs_fchmodat(int dirfd, const char *path, uint32_t mode, int flags) {
  int error, tries = 0;
  do error = chmod_once(dirfd, path, mode, flags); while (ws_stale_again(error, &tries));
  return error;
}

int _ws_fs_fchmod(int fd, uint32_t mode) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  int error = change_mode(file->node, mode);
  _ws_file_unref(file);
  return error;
}

static bool valid_time(const struct timespec *time) {
  return time->tv_nsec == UTIME_NOW || time->tv_nsec == UTIME_OMIT || (time->tv_nsec >= 0 && time->tv_nsec < 1000000000);
}

static int set_times_once(int dirfd, const char *path, const struct timespec times[2], int flags) {
  if (times != NULL && (!valid_time(&times[0]) || !valid_time(&times[1]))) return -EINVAL;
  ws_walk walk;
  int error;
  if (path == NULL) {  // futimens
    if (flags != 0) return -EINVAL;
    ws_file *file = _ws_fd_get(dirfd);
    if (file == NULL) return -EBADF;
    walk = (ws_walk){.node = file->node};
    _ws_node_ref(file->node);
    _ws_file_unref(file);
  } else if ((error = walk_at_flags(dirfd, path, flags, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH, &walk)) != 0) {
    return error;
  }
  struct timespec now;
  ws_prim_realtime(&now);
  ws_node *node = walk.node;
  ws_rwlock_write(&node->lock);
  _ws_node_resolve_times(node);  // earlier marks must not override the times given here
  struct timespec resolved[2] = {node->atime, node->mtime};
  for (int i = 0; i < 2; i++) {
    const struct timespec *given = times != NULL ? &times[i] : NULL;
    if (given != NULL && given->tv_nsec == UTIME_OMIT) continue;
    resolved[i] = given == NULL || given->tv_nsec == UTIME_NOW ? now : *given;
  }
  error = _ws_b_set_times(node, resolved);
  if (error == 0) {
    node->atime = resolved[0];
    node->mtime = resolved[1];
    node->ctime = now;
  }
  ws_rwlock_unlock(&node->lock);
  _ws_walk_done(&walk);
  return error;
}

int _ws_fs_utimensat(int dirfd, const char *path, const struct timespec times[2], int flags) {
  int error, tries = 0;
  do error = set_times_once(dirfd, path, times, flags); while (ws_stale_again(error, &tries));
  return error;
}

int _ws_fs_faccessat(int dirfd, const char *path, int mode, int flags) {
  if (mode & ~(R_OK | W_OK | X_OK)) return -EINVAL;
  ws_walk walk;
  int error = walk_at_flags(dirfd, path, flags, AT_SYMLINK_NOFOLLOW | AT_EACCESS | AT_EMPTY_PATH, &walk);
  if (error != 0) return error;
  error = _ws_node_permits(walk.node, mode);
  _ws_walk_done(&walk);
  return error;
}

static void fill_statfs(ws_statfs *out) {
  // Files live in linear memory, which can grow to 4 GiB: report that as the file system's size.
  *out = (ws_statfs){.block_size = WS_BLOCK_SIZE, .blocks = (4ull << 30) / WS_BLOCK_SIZE,
                     .blocks_free = (4ull << 30) / WS_BLOCK_SIZE, .files = 1u << 20, .files_free = 1u << 20,
                     .name_max = WS_NAME_MAX};
}

int _ws_fs_statfs(const char *path, ws_statfs *out) {
  ws_walk walk;
  int error = _ws_walk_path(NULL, path, 0, &walk);
  if (error != 0) return error;
  fill_statfs(out);
  _ws_walk_done(&walk);
  return 0;
}

int _ws_fs_fstatfs(int fd, ws_statfs *out) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  fill_statfs(out);
  _ws_file_unref(file);
  return 0;
}
