// The memory backend's operation table: the default root file system and /tmp. Directories
// are dir.c's hash tables, file data file.c's chunked extents, symlink targets plain strings.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "memory.h"

static int memory_mount(ws_mount *mount, const char *options) {
  (void)options;
  ws_node *root = _ws_node_new(mount, S_IFDIR | 0755);
  if (root == NULL) return -ENOMEM;
  if ((root->data = _ws_mem_dir_new()) == NULL) {
    _ws_node_unref(root);
    return -ENOMEM;
  }
  mount->root = root;
  return 0;
}

static int memory_lookup(ws_node *dir, const char *name, size_t length, ws_node **child) {
  ws_node *found = _ws_mem_dir_find(dir->data, name, length);
  if (found == NULL) return -ENOENT;
  _ws_node_ref(found);
  *child = found;
  return 0;
}

// An entry naming `node`, with room for it in `dir`: after this, putting it cannot fail.
static int prepare_entry(ws_node *dir, const char *name, size_t length, ws_node *node, mem_entry **entry) {
  *entry = _ws_mem_entry_new(name, length, node);
  if (*entry == NULL) return -ENOSPC;
  int error = _ws_mem_dir_reserve(dir->data);
  if (error != 0) free(*entry);
  return error;
}

// Adds an entry naming `node` (taking one reference for it), or fails having changed nothing.
static int add_entry(ws_node *dir, const char *name, size_t length, ws_node *node) {
  mem_entry *entry;
  int error = prepare_entry(dir, name, length, node, &entry);
  if (error != 0) return error;
  _ws_node_ref(node);
  _ws_mem_dir_put(dir->data, entry);
  return 0;
}

// Puts new `node` into `dir` as `name` (the entry's reference is its own, the caller's becomes
// *child); `error` is how making it went: on any failure the node goes and nothing changed.
static int add_new_node(ws_node *dir, const char *name, size_t length, ws_node *node, int error, ws_node **child) {
  if (error == 0 && S_ISDIR(node->type)) error = _ws_node_place(node, dir, name, length);
  if (error == 0) error = add_entry(dir, name, length, node);
  if (error != 0) {
    _ws_node_unref(node);
    return error;
  }
  if (S_ISDIR(node->type)) dir->nlink++;
  *child = node;
  return 0;
}

static int memory_create(ws_node *dir, const char *name, size_t length, uint32_t mode, const char *target,
                         ws_node **child) {
  ws_node *node = _ws_node_new(dir->mount, mode);
  if (node == NULL) return -ENOSPC;
  int error = 0;
  if (S_ISDIR(mode)) {
    node->data = _ws_mem_dir_new();
    if (node->data == NULL) error = -ENOSPC;
  } else if (S_ISLNK(mode)) {
    node->size = strlen(target);
    node->data = strdup(target);
    if (node->data == NULL) error = -ENOSPC;
  }
  return add_new_node(dir, name, length, node, error, child);
}

static int memory_create_lazy(ws_node *dir, const char *name, size_t length, uint32_t mode, const ws_lazy_source *source,
                              ws_node **child) {
  if (source->size > MEM_MAX_FILE_BYTES) return -EFBIG;
  ws_node *node = _ws_node_new(dir->mount, mode);
  if (node == NULL) return -ENOSPC;
  mem_data *data = NULL;
  int error = _ws_mem_lazy_data(source->url, source->size, &data);
  node->data = data;
  node->size = source->size;
  // Counted as held, as if fetched: the data is the file's, only kept elsewhere until read.
  node->blocks = (source->size + 511) / 512;
  return add_new_node(dir, name, length, node, error, child);
}

static int memory_link(ws_node *dir, const char *name, size_t length, ws_node *node, ws_node *from_dir,
                       const char *from, size_t from_length) {
  (void)from_dir, (void)from, (void)from_length;  // a memory node is its own: no name needed to reach it
  return add_entry(dir, name, length, node);
}

static int memory_unlink(ws_node *dir, const char *name, size_t length, ws_node *found) {
  (void)found;  // the entry itself says what it holds
  ws_node *node = _ws_mem_dir_take(dir->data, name, length);
  if (node == NULL) return -ENOENT;
  if (ws_is_dir(node)) dir->nlink--;
  _ws_node_unref(node);
  return 0;
}

static int memory_rename(ws_node *from_dir, const char *from, size_t from_length, ws_node *to_dir, const char *to,
                         size_t to_length) {
  ws_node *node = _ws_mem_dir_find(from_dir->data, from, from_length);
  if (node == NULL) return -ENOENT;
  // Everything that can fail happens before anything changes.
  mem_entry *entry;
  int error = prepare_entry(to_dir, to, to_length, node, &entry);
  if (error != 0) return error;
  ws_node *replaced = _ws_mem_dir_take(to_dir->data, to, to_length);
  if (replaced != NULL && ws_is_dir(replaced)) to_dir->nlink--;
  _ws_mem_dir_take(from_dir->data, from, from_length);  // its reference moves to the new entry
  _ws_mem_dir_put(to_dir->data, entry);
  if (ws_is_dir(node) && from_dir != to_dir) {
    from_dir->nlink--;
    to_dir->nlink++;
  }
  _ws_node_unref(replaced);
  return 0;
}

static int memory_readdir(ws_node *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next) {
  return _ws_mem_dir_entry(dir->data, cookie, entry, next);
}

static int memory_readlink(ws_node *link, char *buffer, size_t size) {
  size_t length = (size_t)link->size;
  if (length > size) length = size;
  memcpy(buffer, link->data, length);
  return (int)length;
}

static int memory_sync(ws_node *file) {
  (void)file;
  return 0;  // memory is as durable as it gets
}

static void memory_release(ws_node *node) {
  if (S_ISDIR(node->type)) {
    _ws_mem_dir_free(node->data);
  } else if (S_ISLNK(node->type)) {
    free(node->data);
  } else {
    _ws_mem_file_free(node->data);
  }
  node->data = NULL;
}

static const ws_fs_backend memory_backend = {
    .name = "memory",
    .mount = memory_mount,
    .lookup = memory_lookup,
    .create = memory_create,
    .create_lazy = memory_create_lazy,
    .link = memory_link,
    .unlink = memory_unlink,
    .rename = memory_rename,
    .readdir = memory_readdir,
    .readlink = memory_readlink,
    .read = _ws_mem_file_read,
    .write = _ws_mem_file_write,
    .truncate = _ws_mem_file_truncate,
    .sync = memory_sync,
    .allocate = _ws_mem_file_allocate,
    .release = memory_release,
};

const ws_fs_backend *ws_fs_memory_backend(void) { return &memory_backend; }
