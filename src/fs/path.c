// Path resolution: from the root, the working directory or a directory descriptor, one
// component at a time, following symlinks (at most WS_SYMLINK_MAX) and mounts.
//
// A walk holds a reference on the directory it stands in and, while looking up one name, that
// directory's read lock; it takes the child's reference before letting go of either, so a
// concurrent rename or unlink can never free a node under it.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

// As _ws_lookup_child; `walk` (may be NULL) records whether the answer is the backend's own and
// the directory's entry_changes when it was given (_ws_lookup_again).
static int lookup_child(ws_node *dir, const char *name, size_t length, ws_node **child, ws_walk *walk) {
  if (length == 1 && name[0] == '.') {
    _ws_node_ref(dir);
    *child = dir;
    return 0;
  }
  if (length == 2 && name[0] == '.' && name[1] == '.') {
    *child = _ws_mount_parent(dir);
    return *child != NULL ? 0 : -ENOENT;
  }
  ws_node *graft = _ws_graft_at(dir, name, length);
  if (graft != NULL) {
    _ws_node_ref(graft);
    *child = graft;
    return 0;
  }
  ws_rwlock_read(&dir->lock);
  int error = _ws_b_lookup(dir, name, length, child);
  uint32_t changes = dir->entry_changes;
  ws_rwlock_unlock(&dir->lock);
  ws_node *found = error == 0 ? *child : NULL;
  if (error == 0) *child = _ws_mount_traverse(*child);
  bool backends_own = error == -ENOENT || (error == 0 && *child == found);  // no mount over it
  if (walk != NULL && backends_own) {
    walk->answered = true;
    walk->changes_seen = changes;
  }
  return error;
}

int _ws_lookup_child(ws_node *dir, const char *name, size_t length, ws_node **child) {
  return lookup_child(dir, name, length, child, NULL);
}

int _ws_lookup_again(const ws_walk *walk, ws_node **child) {
  if (!walk->answered || walk->dir->entry_changes != walk->changes_seen) {
    return _ws_b_lookup(walk->dir, walk->name, walk->length, child);
  }
  if (walk->node == NULL) return -ENOENT;
  _ws_node_ref(walk->node);
  *child = walk->node;
  return 0;
}

// Replaces the walk's remaining path with `target` + "/" + `rest` (just `target` at the end).
static int splice_symlink(ws_walk *walk, ws_node *link, const char *rest, const char **cursor) {
  char target[WS_PATH_MAX];
  ws_rwlock_read(&link->lock);
  int length = _ws_b_readlink(link, target, sizeof target);
  ws_rwlock_unlock(&link->lock);
  if (length < 0) return length;
  size_t rest_length = strlen(rest), slash = rest_length > 0;  // no '/' after the last name
  if ((size_t)length + slash + rest_length + 1 > WS_PATH_MAX) return -ENAMETOOLONG;
  if (walk->scratch == NULL && (walk->scratch = malloc(WS_PATH_MAX)) == NULL) return -ENOMEM;
  memmove(walk->scratch + length + slash, rest, rest_length + 1);  // rest may already lie in scratch
  memcpy(walk->scratch, target, (size_t)length);
  if (slash) walk->scratch[length] = '/';
  *cursor = walk->scratch;
  return length == 0 ? -ENOENT : 0;  // an empty target names nothing
}

int _ws_walk_path(ws_node *at, const char *path, int flags, ws_walk *walk) {
  _ws_fs_init();
  *walk = (ws_walk){0};
  if (_ws_root() == NULL) return -ENOMEM;
  if (path == NULL) return -EFAULT;
  size_t path_length = strnlen(path, WS_PATH_MAX);
  if (path_length == WS_PATH_MAX) return -ENAMETOOLONG;
  if (path_length == 0) return -ENOENT;
  ws_node *dir;
  if (path[0] == '/') {
    dir = _ws_root();
    _ws_node_ref(dir);
  } else if (at != NULL) {
    dir = at;
    _ws_node_ref(dir);
  } else {
    dir = _ws_cwd();
  }
  const char *cursor = path;
  int links = 0, error = 0;
  for (;;) {
    while (*cursor == '/') cursor++;
    if (*cursor == '\0') break;  // the path ends in a directory ("/", "a/", "a/.")
    const char *name = cursor;
    while (*cursor != '\0' && *cursor != '/') cursor++;
    size_t length = (size_t)(cursor - name);
    const char *rest = cursor;
    while (*rest == '/') rest++;
    bool last = *rest == '\0', trailing = last && rest != cursor;
    if (length > WS_NAME_MAX) {
      error = -ENAMETOOLONG;
      break;
    }
    if (!ws_is_dir(dir)) {
      error = -ENOTDIR;
      break;
    }
    if ((error = _ws_node_permits(dir, X_OK)) != 0) break;
    if (last && (flags & WS_WALK_PARENT)) {
      walk->dir = dir;
      walk->name = name;
      walk->length = length;
      walk->trailing_slash = trailing;
      error = lookup_child(dir, name, length, &walk->node, walk);
      if (error == -ENOENT) error = 0;  // the caller may create it
      if (error != 0) {
        walk->dir = NULL;
        break;
      }
      return 0;
    }
    ws_node *child;
    if ((error = _ws_lookup_child(dir, name, length, &child)) != 0) break;
    bool follow = !last || trailing || !(flags & WS_WALK_NOFOLLOW);
    if (child->type == S_IFLNK && follow) {
      if (++links > WS_SYMLINK_MAX) {
        _ws_node_unref(child);
        error = -ELOOP;
        break;
      }
      error = splice_symlink(walk, child, rest, &cursor);
      _ws_node_unref(child);
      if (error != 0) break;
      if (*cursor == '/') {
        _ws_node_unref(dir);
        dir = _ws_root();
        _ws_node_ref(dir);
      }
      continue;
    }
    _ws_node_unref(dir);
    dir = child;
    cursor = rest;
    if (last) {
      walk->trailing_slash = trailing;
      break;
    }
  }
  if (error != 0) {
    _ws_node_unref(dir);
    _ws_walk_done(walk);
    return error;
  }
  if (walk->trailing_slash && !ws_is_dir(dir)) {
    _ws_node_unref(dir);
    _ws_walk_done(walk);
    return -ENOTDIR;
  }
  if (flags & WS_WALK_PARENT) {
    // No last name ("/", "dir/."): the node reached is its own parent for the caller's purposes.
    walk->dir = dir;
    _ws_node_ref(dir);
  }
  walk->node = dir;
  return 0;
}

void _ws_walk_done(ws_walk *walk) {
  _ws_node_unref(walk->dir);
  _ws_node_unref(walk->node);
  free(walk->scratch);
  *walk = (ws_walk){0};
}

int _ws_at_dir(int dirfd, const char *path, ws_node **at) {
  *at = NULL;
  if (dirfd == WS_AT_FDCWD || (path != NULL && path[0] == '/')) return 0;
  ws_file *file = _ws_fd_get(dirfd);
  if (file == NULL) return -EBADF;
  ws_node *node = file->node;
  _ws_node_ref(node);
  _ws_file_unref(file);
  if (!ws_is_dir(node) && path != NULL && path[0] != '\0') {
    _ws_node_unref(node);
    return -ENOTDIR;
  }
  *at = node;
  return 0;
}

int _ws_walk_at(int dirfd, const char *path, int flags, ws_walk *walk) {
  ws_node *at;
  int error = _ws_at_dir(dirfd, path, &at);
  if (error != 0) return error;
  error = _ws_walk_path(at, path, flags, walk);
  _ws_node_unref(at);
  return error;
}

int _ws_walk_follow(ws_walk *walk, char target[WS_PATH_MAX]) {
  ws_node *link = walk->node, *dir = walk->dir;
  ws_rwlock_read(&link->lock);
  int length = _ws_b_readlink(link, target, WS_PATH_MAX - 1);
  ws_rwlock_unlock(&link->lock);
  if (length < 0) return length;
  target[length] = '\0';
  _ws_node_ref(dir);
  _ws_walk_done(walk);
  int error = _ws_walk_path(dir, target, WS_WALK_PARENT, walk);
  _ws_node_unref(dir);
  return error;
}
