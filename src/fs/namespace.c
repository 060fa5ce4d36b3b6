// Calls that change names: mkdir, mknod, unlink/rmdir, rename, link, symlink, readlink,
// chdir/fchdir and getcwd.
//
// rename_lock serialises renames, rmdir and getcwd: the tree's shape (directories' parents and
// names) changes only under it, so a rename can check that a directory is not moved into
// itself and lock both parents in a safe order (an ancestor before its descendant).
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t rename_lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_dot_or_dotdot(const ws_walk *walk) {
  return (walk->length == 1 && walk->name[0] == '.') ||
         (walk->length == 2 && walk->name[0] == '.' && walk->name[1] == '.');
}

// Creates `walk->name` in `walk->dir` with `mode` (S_IFMT included), a lazy file when `lazy`
// is not NULL; EEXIST if it exists. Whether it exists is asked under the directory's lock, as
// another thread may have made or removed the name since the walk; only a graft, which no
// backend entry names, is told from the walk.
static int create_node(ws_walk *walk, uint32_t mode, const char *target, const ws_lazy_source *lazy) {
  if (walk->length == 0 || is_dot_or_dotdot(walk) || (walk->node != NULL && ws_is_graft_root(walk->node))) {
    return -EEXIST;
  }
  ws_node *dir = walk->dir, *child = NULL;
  ws_rwlock_write(&dir->lock);
  int error = _ws_dir_may_add(dir);
  if (error == 0) error = _ws_lookup_again(walk, &child) == 0 ? -EEXIST : 0;
  if (error == 0) {
    error = lazy != NULL ? _ws_b_create_lazy(dir, walk->name, walk->length, mode, lazy, &child)
                         : _ws_b_create(dir, walk->name, walk->length, mode, target, &child);
  }
  if (error == 0) _ws_node_touch(dir, true);
  ws_rwlock_unlock(&dir->lock);
  _ws_node_unref(child);
  return error;
}

int _ws_fs_mkdirat(int dirfd, const char *path, uint32_t mode) {
  ws_walk walk;
  int error = _ws_walk_at(dirfd, path, WS_WALK_PARENT | WS_WALK_NOFOLLOW, &walk);
  if (error != 0) return error;
  error = create_node(&walk, S_IFDIR | (mode & 01777 & ~_ws_fs_current_umask()), NULL, NULL);
  _ws_walk_done(&walk);
  return error;
}

int _ws_fs_mknodat(int dirfd, const char *path, uint32_t mode) {
  uint32_t type = (mode & S_IFMT) ? (mode & S_IFMT) : S_IFREG;
  // As Linux for an unprivileged caller: devices (and here sockets, which wasmscale has not)
  // and directories are not permitted, anything else is no file type at all.
  if (type == S_IFCHR || type == S_IFBLK || type == S_IFSOCK || type == S_IFDIR) return -EPERM;
  if (type != S_IFREG && type != S_IFIFO) return -EINVAL;
  ws_walk walk;
  int error = _ws_walk_at(dirfd, path, WS_WALK_PARENT | WS_WALK_NOFOLLOW, &walk);
  if (error != 0) return error;
  if (walk.trailing_slash && walk.node == NULL) error = -ENOENT;
  if (error == 0) error = create_node(&walk, type | (mode & 07777 & ~_ws_fs_current_umask()), NULL, NULL);
  _ws_walk_done(&walk);
  return error;
}

int _ws_fs_symlinkat(const char *target, int dirfd, const char *path) {
  if (target == NULL) return -EFAULT;
  if (target[0] == '\0') return -ENOENT;
  if (strnlen(target, WS_PATH_MAX) == WS_PATH_MAX) return -ENAMETOOLONG;
  ws_walk walk;
  int error = _ws_walk_at(dirfd, path, WS_WALK_PARENT | WS_WALK_NOFOLLOW, &walk);
  if (error != 0) return error;
  if (walk.trailing_slash && walk.node == NULL) error = -ENOENT;
  if (error == 0) error = create_node(&walk, S_IFLNK | 0777, target, NULL);
  _ws_walk_done(&walk);
  return error;
}

int _ws_fs_create_lazy(const char *path, const char *url, uint64_t size, uint32_t mode) {
  if (url == NULL) return -EFAULT;
  if (url[0] == '\0') return -ENOENT;
  ws_walk walk;
  int error = _ws_walk_at(WS_AT_FDCWD, path, WS_WALK_PARENT | WS_WALK_NOFOLLOW, &walk);
  if (error != 0) return error;
  if (walk.trailing_slash && walk.node == NULL) error = -ENOENT;
  // The mode as given, as Emscripten's createLazyFile sets it (no umask).
  if (error == 0) error = create_node(&walk, S_IFREG | (mode & 07777), NULL, &(ws_lazy_source){url, size});
  _ws_walk_done(&walk);
  return error;
}

int _ws_fs_readlinkat(int dirfd, const char *path, char *buffer, size_t size) {
  if (size == 0 || size > INT32_MAX) return -EINVAL;
  ws_walk walk;
  int error = _ws_walk_at(dirfd, path, WS_WALK_NOFOLLOW, &walk);
  if (error != 0) return error;
  if (walk.node->type != S_IFLNK) {
    error = -EINVAL;
  } else {
    ws_rwlock_read(&walk.node->lock);
    error = _ws_b_readlink(walk.node, buffer, size);
    ws_rwlock_unlock(&walk.node->lock);
  }
  _ws_walk_done(&walk);
  return error;
}

int _ws_dir_check_empty(ws_node *dir) {
  ws_dirent entry;
  uint64_t next;
  int found = _ws_b_readdir(dir, 0, &entry, &next);
  return found < 0 ? found : found > 0 ? -ENOTEMPTY : 0;
}

static int remove_dir(ws_walk *walk) {
  ws_node *dir = walk->dir, *child = NULL;
  pthread_mutex_lock(&rename_lock);
  ws_rwlock_write(&dir->lock);
  int error = _ws_node_permits(dir, W_OK | X_OK);
  if (error == 0) error = _ws_lookup_again(walk, &child);
  if (error == 0 && !ws_is_dir(child)) error = -ENOTDIR;
  if (error == 0 && atomic_load(&child->mounted) != NULL) error = -EBUSY;  // a mount point, as Linux
  if (error == 0) {
    ws_rwlock_write(&child->lock);
    error = _ws_dir_check_empty(child);
    if (error == 0) error = _ws_b_unlink(dir, walk->name, walk->length, child);
    if (error == 0) {
      child->nlink = 0;
      child->parent = NULL;
      _ws_node_touch(child, false);
      _ws_node_touch(dir, true);
    }
    ws_rwlock_unlock(&child->lock);
  }
  ws_rwlock_unlock(&dir->lock);
  pthread_mutex_unlock(&rename_lock);
  _ws_node_unref(child);
  return error;
}

static int remove_file(ws_walk *walk) {
  ws_node *dir = walk->dir, *child = NULL;
  ws_rwlock_write(&dir->lock);
  int error = _ws_node_permits(dir, W_OK | X_OK);
  if (error == 0) error = _ws_lookup_again(walk, &child);
  if (error == 0 && ws_is_dir(child)) error = -EISDIR;
  if (error == 0) error = _ws_b_unlink(dir, walk->name, walk->length, child);
  if (error == 0) {
    ws_rwlock_write(&child->lock);
    child->nlink--;
    _ws_node_touch(child, false);
    ws_rwlock_unlock(&child->lock);
    _ws_node_touch(dir, true);
  }
  ws_rwlock_unlock(&dir->lock);
  _ws_node_unref(child);
  return error;
}

int _ws_fs_unlinkat(int dirfd, const char *path, int flags) {
  if (flags & ~AT_REMOVEDIR) return -EINVAL;
  bool rmdir = (flags & AT_REMOVEDIR) != 0;
  ws_walk walk;
  int error = _ws_walk_at(dirfd, path, WS_WALK_PARENT | WS_WALK_NOFOLLOW, &walk);
  if (error != 0) return error;
  if (walk.length == 0) {
    error = rmdir ? -EBUSY : -EISDIR;  // "/"
  } else if (is_dot_or_dotdot(&walk)) {
    error = !rmdir ? -EISDIR : walk.length == 1 ? -EINVAL : -ENOTEMPTY;
  } else if (walk.node == NULL) {
    error = -ENOENT;
  } else if (ws_is_graft_root(walk.node)) {
    error = rmdir ? -EBUSY : -EISDIR;  // a graft has no entry a backend could remove
  } else if (rmdir) {
    error = remove_dir(&walk);
  } else if (walk.trailing_slash) {
    error = ws_is_dir(walk.node) ? -EISDIR : -ENOTDIR;
  } else {
    error = remove_file(&walk);
  }
  _ws_walk_done(&walk);
  return error;
}

static bool is_ancestor(const ws_node *ancestor, const ws_node *node) {
  for (; node != NULL; node = node->parent) {
    if (node == ancestor) return true;
  }
  return false;
}

// The checks and the backend call of a rename, with both directories locked.
static int rename_locked(ws_walk *from, ws_walk *to, ws_node **source, ws_node **target, char **new_name) {
  int error = _ws_node_permits(from->dir, W_OK | X_OK);
  if (error == 0) error = _ws_node_permits(to->dir, W_OK | X_OK);
  // A removed source directory has no entries: the source's lookup below answers ENOENT.
  if (error == 0 && to->dir->nlink == 0) error = -ENOENT;
  if (error == 0) error = _ws_b_lookup(from->dir, from->name, from->length, source);
  if (error != 0) return error;
  error = _ws_b_lookup(to->dir, to->name, to->length, target);
  if (error == -ENOENT) {
    error = 0;
    *target = NULL;
  }
  if (error != 0) return error;
  if (*source == *target) return 1;  // the same file: nothing to do, successfully
  bool dir = ws_is_dir(*source);
  if ((from->trailing_slash || to->trailing_slash) && !dir) return -ENOTDIR;
  if (atomic_load(&(*source)->mounted) != NULL || (*target && atomic_load(&(*target)->mounted) != NULL)) return -EBUSY;
  if (dir && is_ancestor(*source, to->dir)) return -EINVAL;  // into itself
  if (*target != NULL) {
    if (is_ancestor(*target, from->dir)) return -ENOTEMPTY;  // it holds the source (not locked: order)
    if (dir && !ws_is_dir(*target)) return -ENOTDIR;
    if (!dir && ws_is_dir(*target)) return -EISDIR;
    if (dir) {
      ws_rwlock_read(&(*target)->lock);
      error = _ws_dir_check_empty(*target);
      ws_rwlock_unlock(&(*target)->lock);
      if (error != 0) return error;
    }
  }
  if (dir && (*new_name = strndup(to->name, to->length)) == NULL) return -ENOMEM;
  return _ws_b_rename(from->dir, from->name, from->length, to->dir, to->name, to->length);
}

int _ws_fs_renameat(int old_dirfd, const char *old_path, int new_dirfd, const char *new_path) {
  ws_walk from, to;
  int error = _ws_walk_at(old_dirfd, old_path, WS_WALK_PARENT | WS_WALK_NOFOLLOW, &from);
  if (error != 0) return error;
  error = _ws_walk_at(new_dirfd, new_path, WS_WALK_PARENT | WS_WALK_NOFOLLOW, &to);
  if (error != 0) {
    _ws_walk_done(&from);
    return error;
  }
  ws_node *source = NULL, *target = NULL;
  char *new_name = NULL;
  if (from.length == 0 || to.length == 0 || is_dot_or_dotdot(&from) || is_dot_or_dotdot(&to)) {
    error = -EBUSY;
  } else if (from.node == NULL) {
    error = -ENOENT;
  } else if (ws_is_graft_root(from.node) || (to.node != NULL && ws_is_graft_root(to.node))) {
    error = -EBUSY;  // a graft has no entry a backend could rename
  } else if (from.dir->mount != to.dir->mount) {
    error = -EXDEV;
  } else {
    pthread_mutex_lock(&rename_lock);
    ws_node *first = from.dir, *second = to.dir;
    if (is_ancestor(second, first) || (!is_ancestor(first, second) && (uintptr_t)second < (uintptr_t)first)) {
      first = to.dir;
      second = from.dir;
    }
    ws_rwlock_write(&first->lock);
    if (second != first) ws_rwlock_write(&second->lock);
    error = rename_locked(&from, &to, &source, &target, &new_name);
    if (error == 0) {
      _ws_node_touch(from.dir, true);
      _ws_node_touch(to.dir, true);
      _ws_node_touch(source, false);  // a rename changes the moved node's ctime, as on Linux
      if (ws_is_dir(source)) {
        ws_rwlock_write(&source->lock);
        free(source->name);
        source->name = new_name;
        new_name = NULL;
        source->parent = to.dir;
        ws_rwlock_unlock(&source->lock);
      }
      if (target != NULL) {
        ws_rwlock_write(&target->lock);
        if (ws_is_dir(target)) {
          target->nlink = 0;
          target->parent = NULL;
        } else {
          target->nlink--;
        }
        _ws_node_touch(target, false);
        ws_rwlock_unlock(&target->lock);
      }
    }
    if (second != first) ws_rwlock_unlock(&second->lock);
    ws_rwlock_unlock(&first->lock);
    pthread_mutex_unlock(&rename_lock);
  }
  free(new_name);
  _ws_node_unref(source);
  _ws_node_unref(target);
  _ws_walk_done(&from);
  _ws_walk_done(&to);
  return error > 0 ? 0 : error;
}

int _ws_fs_linkat(int old_dirfd, const char *old_path, int new_dirfd, const char *new_path, int flags) {
  if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)) return -EINVAL;
  // The source by its directory and name (a backend may need them to reach the file), a final
  // symlink followed only with AT_SYMLINK_FOLLOW.
  ws_walk from, to;
  char target[WS_PATH_MAX];
  int error = _ws_walk_at(old_dirfd, old_path, WS_WALK_PARENT | WS_WALK_NOFOLLOW, &from);
  for (int links = 0; error == 0 && (flags & AT_SYMLINK_FOLLOW) && from.node != NULL && from.node->type == S_IFLNK;
       links++) {
    error = links == WS_SYMLINK_MAX ? -ELOOP : _ws_walk_follow(&from, target);
  }
  if (error == 0 && from.node == NULL) error = -ENOENT;
  if (error == 0 && from.trailing_slash && !ws_is_dir(from.node)) error = -ENOTDIR;
  if (error != 0) {
    _ws_walk_done(&from);
    return error;
  }
  error = _ws_walk_at(new_dirfd, new_path, WS_WALK_PARENT | WS_WALK_NOFOLLOW, &to);
  if (error != 0) {
    _ws_walk_done(&from);
    return error;
  }
  ws_node *node = from.node, *dir = to.dir;
  if (to.length == 0 || is_dot_or_dotdot(&to) || (to.node != NULL && ws_is_graft_root(to.node))) {
    error = -EEXIST;
  } else {
    // Whether the new name exists is asked under the directory's lock (as create_node does),
    // and reported before a directory to link: Linux looks the name up first.
    ws_node *existing = NULL;
    ws_rwlock_write(&dir->lock);
    error = _ws_b_lookup(dir, to.name, to.length, &existing) == 0 ? -EEXIST : 0;
    if (error == 0 && ws_is_dir(node)) error = -EPERM;
    if (error == 0 && to.trailing_slash) error = -ENOENT;
    if (error == 0 && node->mount != dir->mount) error = -EXDEV;
    if (error == 0) error = _ws_dir_may_add(dir);
    if (error == 0) {
      ws_rwlock_write(&node->lock);
      error = node->nlink == 0 ? -ENOENT : _ws_b_link(dir, to.name, to.length, node, from.dir, from.name, from.length);
      if (error == 0) {
        node->nlink++;
        _ws_node_touch(node, false);
      }
      ws_rwlock_unlock(&node->lock);
    }
    if (error == 0) _ws_node_touch(dir, true);
    ws_rwlock_unlock(&dir->lock);
    _ws_node_unref(existing);
  }
  _ws_walk_done(&from);
  _ws_walk_done(&to);
  return error;
}

static int change_dir(ws_node *node) {
  if (!ws_is_dir(node)) return -ENOTDIR;
  int error = _ws_node_permits(node, X_OK);
  return error != 0 ? error : _ws_set_cwd(node);
}

int _ws_fs_chdir(const char *path) {
  ws_walk walk;
  int error = _ws_walk_path(NULL, path, 0, &walk);
  if (error != 0) return error;
  error = change_dir(walk.node);
  _ws_walk_done(&walk);
  return error;
}

int _ws_fs_fchdir(int fd) {
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  int error = change_dir(file->node);
  _ws_file_unref(file);
  return error;
}

int _ws_fs_getcwd(char *buffer, size_t size) {
  if (size == 0) return -EINVAL;
  _ws_fs_init();  // a program's first call may be this one
  ws_node *dir = _ws_cwd();
  char path[WS_PATH_MAX];
  size_t at = sizeof path - 1;
  path[at] = '\0';
  int error = 0;
  pthread_mutex_lock(&rename_lock);
  for (ws_node *node = dir;;) {
    while (ws_is_mount_root(node) && node->mount->covered != NULL && node->mount->graft == NULL) {
      node = node->mount->covered;
    }
    if (node == _ws_root()) break;
    bool graft = ws_is_graft_root(node);  // named by the mount, hanging from the directory it covers
    if (!graft && node->parent == NULL) {
      error = -ENOENT;  // the working directory was removed
      break;
    }
    const char *name = graft ? node->mount->graft : node->name;
    size_t length = strlen(name);
    if (length + 1 > at) {
      error = -ENAMETOOLONG;
      break;
    }
    at -= length;
    memcpy(path + at, name, length);
    path[--at] = '/';
    node = graft ? node->mount->covered : node->parent;
  }
  pthread_mutex_unlock(&rename_lock);
  _ws_node_unref(dir);
  if (error != 0) return error;
  if (at == sizeof path - 1) path[--at] = '/';
  size_t length = sizeof path - at;  // with the zero
  if (length > size) return -ERANGE;
  memcpy(buffer, path + at, length);
  return (int)length;
}

int _ws_make_dirs(const char *path, uint32_t mode) {
  char partial[WS_PATH_MAX];
  size_t length = strlen(path);
  if (length >= sizeof partial) return -ENAMETOOLONG;
  for (size_t at = 1; at <= length; at++) {
    if (path[at] != '/' && path[at] != '\0') continue;
    memcpy(partial, path, at);
    partial[at] = '\0';
    int error = _ws_fs_mkdirat(WS_AT_FDCWD, partial, mode);
    if (error != 0 && error != -EEXIST) return error;
  }
  return 0;
}
