// The mount table, the root file system and the working directory.
//
// The first file call of the program (from any thread) builds the root: a memory backend at
// "/", with /dev (devices.c), /tmp, and descriptors 0, 1 and 2 open on the console.
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static ws_mount root_mount;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
// Guards every node's `mounted` field and the working directory.
static pthread_mutex_t mount_lock = PTHREAD_MUTEX_INITIALIZER;
static ws_node *cwd;
static _Atomic uint32_t next_mount_id = 2;  // the root is 1

static void open_console(const char *path, int flags, int fd) {
  int opened = ws_fs_openat(WS_AT_FDCWD, path, flags, 0);
  if (opened >= 0 && opened != fd) {  // the table was empty: 0, 1, 2 come in order
    ws_fs_close(opened);
  }
}

#pragma weak ws_fs_mount_startup_dirs  // see internal.h
#pragma weak ws_fs_create_embedded_files

static _Thread_local bool building;  // build_root opens files: its own calls must not wait for it

static void build_root(void) {
  building = true;
  root_mount.id = 1;
  root_mount.backend = ws_fs_memory_backend();
  if (root_mount.backend->mount(&root_mount, NULL) != 0) {
    building = false;
    return;  // no memory at start-up: every call fails with ENOMEM (path.c)
  }
  root_mount.root->mode = S_IFDIR | 0755;
  ws_node_ref(root_mount.root);
  cwd = root_mount.root;
  ws_node *dev = NULL, *tmp = NULL;
  if (ws_b_create(root_mount.root, "dev", 3, S_IFDIR | 0755, NULL, &dev) == 0) {
    ws_devices_create(dev);
    ws_node_unref(dev);
  }
  if (ws_b_create(root_mount.root, "tmp", 3, S_IFDIR | 01777, NULL, &tmp) == 0) ws_node_unref(tmp);
  open_console("/dev/stdin", O_RDONLY, 0);
  open_console("/dev/stdout", O_WRONLY, 1);
  open_console("/dev/stderr", O_WRONLY, 2);
  // After the console, so a failure is reported on stderr. Weak: these are linked only into
  // programs that embed files or mount host directories (wasmscale-cc asks for them).
  if (ws_fs_create_embedded_files != NULL) ws_fs_create_embedded_files();
  if (ws_fs_mount_startup_dirs != NULL) ws_fs_mount_startup_dirs();
  building = false;
  atomic_store_explicit(&ws_fs_ready, true, memory_order_release);
}

_Atomic bool ws_fs_ready;

void ws_fs_init_once(void) {
  if (!building) pthread_once(&init_once, build_root);
}

ws_node *ws_root(void) { return root_mount.root; }

ws_node *ws_cwd(void) {
  pthread_mutex_lock(&mount_lock);
  ws_node *dir = cwd;
  ws_node_ref(dir);
  pthread_mutex_unlock(&mount_lock);
  return dir;
}

int ws_set_cwd(ws_node *dir) {
  ws_node_ref(dir);
  pthread_mutex_lock(&mount_lock);
  ws_node *old = cwd;
  cwd = dir;
  pthread_mutex_unlock(&mount_lock);
  ws_node_unref(old);
  return 0;
}

ws_node *ws_mount_traverse(ws_node *node) {
  if (atomic_load_explicit(&node->mounted, memory_order_acquire) == NULL) return node;  // the common case
  pthread_mutex_lock(&mount_lock);
  ws_node *top = node;
  while (top->mounted != NULL) top = top->mounted->root;
  ws_node_ref(top);
  pthread_mutex_unlock(&mount_lock);
  ws_node_unref(node);
  return top;
}

ws_node *ws_mount_parent(ws_node *dir) {
  ws_node *below = dir;
  pthread_mutex_lock(&mount_lock);
  while (below->mount->root == below && below->mount->covered != NULL) below = below->mount->covered;
  ws_node_ref(below);
  pthread_mutex_unlock(&mount_lock);
  ws_rwlock_read(&below->lock);
  ws_node *parent = below == root_mount.root ? below : below->parent;
  if (parent != NULL) ws_node_ref(parent);
  ws_rwlock_unlock(&below->lock);
  ws_node_unref(below);
  return parent == NULL ? NULL : ws_mount_traverse(parent);
}

int ws_fs_mount(const char *path, const ws_fs_backend *backend, const char *options) {
  ws_fs_init();
  ws_walk walk;
  int error = ws_walk_path(NULL, path, 0, &walk);
  if (error != 0) return error;
  ws_node *dir = walk.node;
  ws_mount *mount = calloc(1, sizeof *mount);
  if (!ws_is_dir(dir)) {
    error = -ENOTDIR;
  } else if (dir == dir->mount->root) {
    error = -EBUSY;  // already a mount point (or the root): no stacking
  } else if (mount == NULL) {
    error = -ENOMEM;
  } else {
    ws_rwlock_read(&dir->lock);
    error = ws_dir_check_empty(dir);
    ws_rwlock_unlock(&dir->lock);
  }
  if (error == 0) {
    mount->backend = backend;
    mount->id = atomic_fetch_add(&next_mount_id, 1);
    error = backend->mount(mount, options);
  }
  if (error == 0) {
    pthread_mutex_lock(&mount_lock);
    if (dir->mounted != NULL) {
      error = -EBUSY;
    } else {
      mount->covered = dir;
      ws_node_ref(dir);
      atomic_store(&dir->mounted, mount);
    }
    pthread_mutex_unlock(&mount_lock);
    if (error != 0) ws_node_unref(mount->root);
  }
  if (error != 0) free(mount);
  ws_walk_done(&walk);
  return error;
}

int ws_fs_unmount(const char *path) {
  ws_fs_init();
  ws_walk walk;
  int error = ws_walk_path(NULL, path, 0, &walk);
  if (error != 0) return error;
  ws_node *root = walk.node;
  ws_mount *mount = root->mount;
  pthread_mutex_lock(&mount_lock);
  if (mount == &root_mount || mount->root != root) {
    error = -EINVAL;
  } else if (root->mounted != NULL || cwd->mount == mount || atomic_load(&mount->open_files) > 0) {
    error = -EBUSY;
  } else {
    atomic_store(&mount->covered->mounted, NULL);
  }
  pthread_mutex_unlock(&mount_lock);
  ws_walk_done(&walk);
  if (error == 0) {
    // The mount itself stays allocated: a path walk that passed through it a moment ago may
    // still hold one of its nodes, whose release calls into the backend through it.
    ws_node_unref(mount->covered);
    ws_node_unref(mount->root);
  }
  return error;
}
