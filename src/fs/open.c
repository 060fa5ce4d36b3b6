// open/openat, close, dup/dup3 and fcntl.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

// Flags an open description keeps (the rest act only during open).
#define KEPT_FLAGS (O_ACCMODE | O_APPEND | O_NONBLOCK | O_SYNC | O_DSYNC | O_DIRECTORY | O_NOFOLLOW | O_LARGEFILE)
// Status flags fcntl(F_SETFL) may change, as on Linux.
#define SETTABLE_FLAGS (O_APPEND | O_NONBLOCK)

// Creates `walk->name` in `walk->dir` as a regular file, or finds the one a racing thread made.
static int create_file(ws_walk *walk, int flags, uint32_t mode, bool *created) {
  ws_node *dir = walk->dir;
  if (walk->length == 0 || walk->trailing_slash) return -EISDIR;
  ws_rwlock_write(&dir->lock);
  int error = _ws_dir_may_add(dir);
  if (error == 0) {
    error = _ws_lookup_again(walk, &walk->node);
    if (error == 0) {
      error = (flags & O_EXCL) ? -EEXIST : 0;  // lost a race to another creator
    } else if (error == -ENOENT) {
      error = _ws_b_create(dir, walk->name, walk->length, S_IFREG | (mode & 07777 & ~_ws_fs_current_umask()), NULL,
                          &walk->node);
      if (error == 0) {
        *created = true;
        _ws_node_touch(dir, true);
      } else if (error == -EEXIST && !(flags & O_EXCL)) {
        error = _ws_b_lookup(dir, walk->name, walk->length, &walk->node);  // made on the host meanwhile
      }
    }
  }
  ws_rwlock_unlock(&dir->lock);
  return error;
}

// Finds (or creates) the node open() names; walk->node holds it on success. With O_CREAT a
// symlink in the last component is followed, and a missing target is created (as Linux does:
// a dangling link names the file to make), unless O_EXCL or O_NOFOLLOW says otherwise.
static int open_node(int dirfd, const char *path, int flags, uint32_t mode, ws_walk *walk, bool *created,
                     char target[WS_PATH_MAX]) {
  int walk_flags = (flags & O_NOFOLLOW) ? WS_WALK_NOFOLLOW : 0;
  if (!(flags & O_CREAT)) return _ws_walk_at(dirfd, path, walk_flags, walk);
  int error = _ws_walk_at(dirfd, path, WS_WALK_PARENT, walk);
  for (int links = 0; error == 0; links++) {
    if (walk->node == NULL) return create_file(walk, flags, mode, created);
    if (flags & O_EXCL) return -EEXIST;
    if (walk->node->type != S_IFLNK || (flags & O_NOFOLLOW)) return 0;
    if (links == WS_SYMLINK_MAX) return -ELOOP;
    error = _ws_walk_follow(walk, target);
  }
  return error;
}

static int check_open(ws_node *node, int flags, bool created) {
  int access = flags & O_ACCMODE;
  if (node->type == S_IFLNK) return -ELOOP;  // O_NOFOLLOW on a symlink
  if ((flags & O_DIRECTORY) && !ws_is_dir(node)) return -ENOTDIR;
  if (ws_is_dir(node) && (access != O_RDONLY || (flags & (O_CREAT | O_TRUNC)))) return -EISDIR;
  if (access == O_ACCMODE) return -EINVAL;
  if (created) return 0;  // the creator may open it in any mode, whatever mode bits it got
  int want = (access != O_WRONLY ? R_OK : 0) | (access != O_RDONLY || (flags & O_TRUNC) ? W_OK : 0);
  return _ws_node_permits(node, want);
}

static int open_once(int dirfd, const char *path, int flags, uint32_t mode) {
  ws_walk walk;
  bool created = false;
  char target[WS_PATH_MAX];  // a symlink followed to create its target: walk.name may point here
  int error = open_node(dirfd, path, flags, mode, &walk, &created, target);
  if (error != 0) {
    _ws_walk_done(&walk);
    return error;
  }
  ws_node *node = walk.node;
  if ((error = check_open(node, flags, created)) == 0) error = _ws_b_open(node, flags);
  if (error == 0 && (flags & O_TRUNC) && node->type == S_IFREG && !created) {
    ws_rwlock_write(&node->lock);
    if (node->size != 0) {
      error = _ws_b_truncate(node, 0);
      if (error == 0) _ws_node_touch(node, true);
    }
    ws_rwlock_unlock(&node->lock);
  }
  ws_file *file = NULL;
  ws_pipe *fifo = error == 0 ? node->pipe : NULL;
  uint32_t peer_mark = fifo != NULL ? _ws_pipe_peer_mark(fifo, flags & O_ACCMODE) : 0;
  if (error == 0) {
    _ws_node_ref(node);
    file = _ws_file_new(node, flags & KEPT_FLAGS);
    if (file == NULL) {
      _ws_node_unref(node);
      error = -ENOMEM;
    }
  }
  _ws_walk_done(&walk);
  if (error == 0 && fifo != NULL) {  // the file keeps the node, and so the FIFO, alive
    error = _ws_pipe_await_peer(fifo, flags & O_ACCMODE, (flags & O_NONBLOCK) != 0, peer_mark);
    if (error != 0) _ws_file_unref(file);
  }
  if (error != 0) return error;
  int fd = _ws_fd_install(file, 0, (flags & O_CLOEXEC) ? WS_FD_CLOEXEC : 0);
  if (fd < 0) _ws_file_unref(file);
  return fd;
}

int _ws_fs_openat(int dirfd, const char *path, int flags, uint32_t mode) {
  int result, tries = 0;
  do result = open_once(dirfd, path, flags, mode); while (ws_stale_again(result, &tries));
  return result;
}

int _ws_fs_close(int fd) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  _ws_locks_release_process(file->node);  // POSIX: any close drops the process's record locks
  _ws_file_unref(file);
  return _ws_fd_close(fd);
}

int _ws_fs_dup(int fd) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  int copy = _ws_fd_install(file, 0, 0);
  if (copy < 0) _ws_file_unref(file);
  return copy;
}

int _ws_fs_dup3(int fd, int new_fd, int flags) {
  if (flags & ~O_CLOEXEC) return -EINVAL;
  if (fd == new_fd) return _ws_fd_get_flags(fd) < 0 ? -EBADF : -EINVAL;
  if (new_fd < 0 || new_fd >= WS_FD_MAX) return -EBADF;
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  return _ws_fd_install_at(file, new_fd, (flags & O_CLOEXEC) ? WS_FD_CLOEXEC : 0);
}

int _ws_fs_flock(int fd, int operation) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  int result = _ws_locks_flock(file, operation);
  _ws_file_unref(file);
  return result;
}

int _ws_fs_fcntl(int fd, int command, intptr_t argument) {
  switch (command) {
    case F_GETFD: {
      int fd_flags = _ws_fd_get_flags(fd);
      return fd_flags < 0 ? fd_flags : (fd_flags & WS_FD_CLOEXEC) ? FD_CLOEXEC : 0;
    }
    case F_SETFD: return _ws_fd_set_flags(fd, (argument & FD_CLOEXEC) ? WS_FD_CLOEXEC : 0);
    default: break;
  }
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  int result;
  switch (command) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
      if (argument < 0 || argument >= WS_FD_MAX) {
        result = -EINVAL;
        break;
      }
      result = _ws_fd_install(file, (int)argument, command == F_DUPFD_CLOEXEC ? WS_FD_CLOEXEC : 0);
      if (result >= 0) return result;  // the table keeps our reference
      break;
    case F_GETFL: result = atomic_load(&file->flags) & ~(O_DIRECTORY | O_NOFOLLOW); break;
    case F_SETFL: {
      int old = atomic_load(&file->flags);
      while (!atomic_compare_exchange_weak(&file->flags, &old,
                                           (old & ~SETTABLE_FLAGS) | ((int)argument & SETTABLE_FLAGS))) {
      }
      result = 0;
      break;
    }
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW:
      result = argument == 0 ? -EFAULT : _ws_locks_fcntl(file, command, (struct flock *)argument);
      break;
    default: result = -EINVAL; break;
  }
  _ws_file_unref(file);
  return result;
}
