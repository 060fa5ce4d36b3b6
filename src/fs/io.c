// Data calls on descriptors: read/write (plain, vectored, positioned), lseek, truncate, fsync,
// fallocate and getdents. A regular file's data is read under its node's shared lock (readers
// never block readers) and written under its exclusive lock; a description's position has a
// lock of its own (a bit of its reference word), taken only by calls that use it.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define IOV_LIMIT 1024  // IOV_MAX on Linux

static bool seekable(const ws_node *node) { return node->type == S_IFREG || node->type == S_IFDIR; }

static bool is_console(const ws_node *node) {
  return node->type == S_IFCHR &&
         (node->device == WS_DEV_STDIN || node->device == WS_DEV_STDOUT || node->device == WS_DEV_STDERR);
}

// pread/pwrite: files, and devices like /dev/zero that ignore the offset; not pipes or terminals.
static bool positionable(const ws_node *node) { return seekable(node) || (node->type == S_IFCHR && !is_console(node)); }

int64_t _ws_node_read(ws_file *file, ws_node *node, void *buffer, size_t length, uint64_t offset) {
  bool nonblocking = (atomic_load_explicit(&file->flags, memory_order_relaxed) & O_NONBLOCK) != 0;
  switch (node->type) {
    case S_IFREG: {
      ws_rwlock_read(&node->lock);
      int64_t result = _ws_b_read(node, buffer, length, offset);
      ws_rwlock_unlock(&node->lock);
      return result;
    }
    case S_IFIFO: return _ws_pipe_read(node->pipe, buffer, length, nonblocking);
    case S_IFCHR: return _ws_device_read(node->device, buffer, length);
    case S_IFDIR: return -EISDIR;
    default: return -EINVAL;
  }
}

// Writes at *offset (at the end, stored back in *offset, for O_APPEND).
static int64_t node_write(ws_file *file, ws_node *node, const void *buffer, size_t length, uint64_t *offset) {
  int flags = atomic_load_explicit(&file->flags, memory_order_relaxed);
  switch (node->type) {
    case S_IFREG: {
      ws_rwlock_write(&node->lock);
      if (flags & O_APPEND) *offset = node->size;
      int64_t result = _ws_b_write(node, buffer, length, *offset);
      if (result > 0) _ws_node_touch(node, true);
      ws_rwlock_unlock(&node->lock);
      return result;
    }
    case S_IFIFO: return _ws_pipe_write(node->pipe, buffer, length, (flags & O_NONBLOCK) != 0);
    case S_IFCHR: return _ws_device_write(node->device, buffer, length);
    default: return -EINVAL;
  }
}

// Sums the lengths of an I/O vector, or -EINVAL (bad count, total beyond SSIZE_MAX).
static int64_t vector_length(const struct iovec *iov, int count) {
  if (count < 0 || count > IOV_LIMIT) return -EINVAL;
  uint64_t total = 0;
  for (int i = 0; i < count; i++) {
    if (iov[i].iov_len > (uint64_t)SSIZE_MAX - total) return -EINVAL;
    total += iov[i].iov_len;
  }
  return (int64_t)total;
}

// The common shape of readv/writev/preadv/pwritev. offset < 0: at (and advancing) the position.
// Every read and write runs through it: `flatten` inlines the lock and predicate helpers it
// calls, which the file system's -Oz would leave as calls (the Makefile's FS_SPEED builds whole
// files at -O2 instead; this one would cost more bytes that way).
__attribute__((flatten)) static int64_t transfer(int fd, const struct iovec *iov, int count, int64_t offset,
                                                 bool writing) {
  int64_t total = vector_length(iov, count);
  if (total < 0) return total;
  // Taken with the position; a pipe or device gives it back at once, since it has no position
  // and a blocked read must not keep another thread from writing through the same description.
  ws_file *file = offset < 0 ? _ws_fd_get_position(fd) : _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  ws_node *node = file->node;
  bool positioned = offset < 0 && seekable(node);
  if (offset < 0 && !positioned) _ws_file_release_position(file);
  int access = atomic_load_explicit(&file->flags, memory_order_relaxed) & O_ACCMODE;
  int64_t done = 0, result = 0;
  if (access == (writing ? O_RDONLY : O_WRONLY)) {
    result = -EBADF;
  } else if (ws_is_dir(node)) {
    result = writing ? -EBADF : -EISDIR;
  } else if (offset >= 0 && !positionable(node)) {
    result = -ESPIPE;
  } else {
    uint64_t at = positioned ? file->position : (uint64_t)(offset < 0 ? 0 : offset);
    for (int i = 0; i < count && result >= 0; i++) {
      if (iov[i].iov_len == 0) continue;
      if (writing) {
        result = node_write(file, node, iov[i].iov_base, iov[i].iov_len, &at);
      } else {
        result = _ws_node_read(file, node, iov[i].iov_base, iov[i].iov_len, at);
      }
      if (result > 0) {
        done += result;
        at += (uint64_t)result;
      }
      if (result < (int64_t)iov[i].iov_len) break;  // short: end of file, pipe empty, error
    }
    if (positioned) file->position = at;
  }
  if (positioned) {
    _ws_file_put_position(file);
  } else {
    _ws_file_unref(file);
  }
  return done > 0 ? done : result;  // an error after some bytes moved reports the bytes
}

int64_t _ws_fs_readv(int fd, const struct iovec *iov, int count, int64_t offset) {
  return transfer(fd, iov, count, offset, false);
}

int64_t _ws_fs_writev(int fd, const struct iovec *iov, int count, int64_t offset) {
  return transfer(fd, iov, count, offset, true);
}

int64_t _ws_fs_read(int fd, void *buffer, size_t length) {
  struct iovec one = {buffer, length};
  return transfer(fd, &one, 1, -1, false);
}

int64_t _ws_fs_write(int fd, const void *buffer, size_t length) {
  struct iovec one = {(void *)buffer, length};
  return transfer(fd, &one, 1, -1, true);
}

int64_t _ws_fs_lseek(int fd, int64_t offset, int whence) {
  ws_file *file = _ws_fd_get_position(fd);
  if (file == NULL) return -EBADF;
  ws_node *node = file->node;
  int64_t result;
  if (node->type == S_IFCHR && !is_console(node)) {
    result = 0;  // /dev/null and friends: every position is the start, as on Linux
  } else if (!seekable(node)) {
    result = -ESPIPE;
  } else {
    int64_t base = -1;
    if (whence == SEEK_SET) {
      base = 0;
    } else if (whence == SEEK_CUR) {
      base = (int64_t)file->position;
    } else if (whence == SEEK_END) {
      ws_rwlock_read(&node->lock);
      base = (int64_t)node->size;
      ws_rwlock_unlock(&node->lock);
    }
    if (base < 0) {
      result = -EINVAL;
    } else if (offset > 0 && base > INT64_MAX - offset) {
      result = -EOVERFLOW;
    } else if (base + offset < 0) {
      result = -EINVAL;
    } else {
      result = base + offset;
      file->position = (uint64_t)result;
    }
  }
  _ws_file_put_position(file);
  return result;
}

static int truncate_node(ws_node *node, int64_t size) {
  if (size < 0) return -EINVAL;
  ws_rwlock_write(&node->lock);
  int error = 0;
  if ((uint64_t)size != node->size) error = _ws_b_truncate(node, (uint64_t)size);
  if (error == 0) _ws_node_touch(node, true);
  ws_rwlock_unlock(&node->lock);
  return error;
}

int _ws_fs_ftruncate(int fd, int64_t size) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  int error;
  if ((atomic_load(&file->flags) & O_ACCMODE) == O_RDONLY || file->node->type != S_IFREG) {
    error = -EINVAL;  // Linux: EINVAL for a descriptor not open for writing or not a file
  } else {
    error = truncate_node(file->node, size);
  }
  _ws_file_unref(file);
  return error;
}

static int truncate_once(const char *path, int64_t size) {
  ws_walk walk;
  int error = _ws_walk_path(NULL, path, 0, &walk);
  if (error != 0) return error;
  ws_node *node = walk.node;
  if (ws_is_dir(node)) {
    error = -EISDIR;
  } else if (node->type != S_IFREG) {
    error = -EINVAL;
  } else if ((error = _ws_node_permits(node, W_OK)) == 0) {
    error = truncate_node(node, size);
  }
  _ws_walk_done(&walk);
  return error;
}

int _ws_fs_truncate(const char *path, int64_t size) {
  int error, tries = 0;
  do error = truncate_once(path, size); while (ws_stale_again(error, &tries));
  return error;
}

int _ws_write_file(const char *path, const void *data, size_t length, uint32_t mode) {
  int fd = _ws_fs_openat(WS_AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return fd;
  int64_t result = 0;
  for (size_t done = 0; done < length && result >= 0; done += (size_t)result) {
    result = _ws_fs_write(fd, (const char *)data + done, length - done);
  }
  int closed = _ws_fs_close(fd);
  return result < 0 ? (int)result : closed;
}

// fsync's work on an open description's node (the caller holds a reference to it).
static int sync_node(ws_node *node) {
  int error = 0;
  if (node->type == S_IFREG) {
    ws_rwlock_write(&node->lock);
    error = _ws_b_sync(node);
    ws_rwlock_unlock(&node->lock);
  } else if (node->type == S_IFCHR) {
    _ws_console_flush();
  } else if (node->type == S_IFIFO) {
    error = -EINVAL;
  }
  return error;
}

int _ws_fs_fsync(int fd) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  int error = sync_node(file->node);
  _ws_file_unref(file);
  return error;
}

int _ws_fs_sync_all(void) {
  _ws_console_flush();
  int first_error = 0;
  for (int fd = 0; fd < WS_FD_MAX; fd++) {
    ws_file *file = _ws_fd_get(fd);
    if (file == NULL) continue;
    int error = file->node->type == S_IFREG ? sync_node(file->node) : 0;
    if (first_error == 0) first_error = error;
    _ws_file_unref(file);
  }
  return first_error;
}

int _ws_fs_fallocate(int fd, int mode, int64_t offset, int64_t length) {
  if (offset < 0 || length <= 0) return -EINVAL;
  if (offset > INT64_MAX - length) return -EFBIG;
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  ws_node *node = file->node;
  int error;
  if ((atomic_load(&file->flags) & O_ACCMODE) == O_RDONLY) {
    error = -EBADF;
  } else if (mode != 0) {
    error = -EOPNOTSUPP;  // only the default mode: reserve, extending the size
  } else if (node->type == S_IFIFO) {
    error = -ESPIPE;
  } else if (ws_is_dir(node)) {
    error = -EISDIR;
  } else if (node->type != S_IFREG) {
    error = -ENODEV;
  } else {
    ws_rwlock_write(&node->lock);
    error = _ws_b_allocate(node, (uint64_t)offset, (uint64_t)length);
    if (error == 0) _ws_node_touch(node, false);
    ws_rwlock_unlock(&node->lock);
  }
  _ws_file_unref(file);
  return error;
}

int _ws_fs_isatty(int fd) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  enum ws_device device = file->node->type == S_IFCHR ? file->node->device : WS_DEV_NONE;
  _ws_file_unref(file);
  return device == WS_DEV_STDIN || device == WS_DEV_STDOUT || device == WS_DEV_STDERR ? 1 : -ENOTTY;
}

// Cookies 0 and 1 are "." and ".."; then the grafts hanging from the directory (only a host
// root has any: /dev, /tmp), which hide the backend's entries of the same name; the backend's
// entry n is the cookie after those plus n.
int _ws_fs_getdents(int fd, ws_dirent_sink sink, void *context) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  ws_node *dir = file->node;
  if (!ws_is_dir(dir)) {
    _ws_file_unref(file);
    return -ENOTDIR;
  }
  ws_node *parent = _ws_mount_parent(dir);
  uint64_t first = 2 + _ws_graft_count(dir);  // the backend's first entry
  ws_dirent entry;
  int given = 0, result = 0;
  _ws_file_hold_position(file);
  ws_rwlock_read(&dir->lock);
  for (;;) {
    uint64_t cookie = file->position, next;
    if (cookie < 2) {
      entry.ino = cookie == 0 || parent == NULL ? dir->ino : parent->ino;
      entry.type = S_IFDIR;
      entry.length = (uint16_t)(cookie + 1);
      memcpy(entry.name, "..", cookie + 1);
      entry.name[cookie + 1] = '\0';
      next = cookie + 1;
    } else if (dir->nlink == 0) {
      break;  // removed: nothing but . and ..
    } else if (cookie < first) {
      _ws_graft_entry(dir, (uint32_t)(cookie - 2), &entry);
      next = cookie + 1;
    } else {
      result = _ws_b_readdir(dir, cookie - first, &entry, &next);
      if (result <= 0) break;
      next += first;
      if (_ws_graft_at(dir, entry.name, entry.length) != NULL) {
        file->position = next;  // hidden by a graft
        continue;
      }
    }
    if (!sink(context, &entry, next)) {
      if (given == 0) result = -EINVAL;  // the buffer cannot hold even one entry
      break;
    }
    file->position = next;
    given++;
  }
  ws_rwlock_unlock(&dir->lock);
  _ws_node_unref(parent);
  _ws_file_put_position(file);
  return result < 0 ? result : given;
}
