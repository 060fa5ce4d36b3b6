// The mount table, the root file system and the working directory.
//
// The first file call of the program (from any thread) builds the root: a memory backend at
// "/", with /dev (devices.c), /tmp, and descriptors 0, 1 and 2 open on the console. With
// `wasmscale-cc --mount=/=HOST_DIR` (or -sNODERAWFS) the root is that host directory instead,
// and /dev (and /tmp, when the host directory has none) are grafts: memory mounts attached
// under those names of the root without a directory of that name in the host, so nothing is
// created there (a host "dev" is hidden, untouched). Grafts are made only while the root is
// built, before any other thread can look, and never change, so lookups read them unlocked.
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "linked.h"

static ws_mount root_mount;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
// Guards every node's `mounted` field and the working directory.
static pthread_mutex_t mount_lock = PTHREAD_MUTEX_INITIALIZER;
static ws_node *cwd;
static _Atomic uint32_t next_mount_id = 2;  // the root is 1

enum { GRAFT_MAX = 2 };
static ws_mount grafts[GRAFT_MAX];
static uint32_t graft_count;

static void open_console(const char *path, int flags, int fd) {
  int opened = _ws_fs_openat(WS_AT_FDCWD, path, flags, 0);
  if (opened >= 0 && opened != fd) {  // the table was empty: 0, 1, 2 come in order
    _ws_fs_close(opened);
  }
}

#pragma weak _ws_fs_mount_startup_dirs  // see internal.h
#pragma weak _ws_fs_mount_startup_root
#pragma weak _ws_fs_create_embedded_files

static _Thread_local bool building;  // build_root opens files: its own calls must not wait for it

// The directory `name` under the root, referenced: an ordinary memory directory with `mode` in
// a memory root. Over a host root a graft, unless `host_may_provide` and the host directory has
// a directory of that name (a host /tmp is the host's; the devices are always the program's).
// NULL when memory is short.
static ws_node *make_system_dir(const char *name, uint32_t mode, bool host_may_provide) {
  ws_node *dir = NULL, *root = root_mount.root;
  // (No other thread can see the root yet; the locks are the backends' contract all the same.)
  if (root_mount.backend == ws_fs_memory_backend()) {
    ws_rwlock_write(&root->lock);
    _ws_b_create(root, name, strlen(name), S_IFDIR | mode, NULL, &dir);
    ws_rwlock_unlock(&root->lock);
    return dir;
  }
  if (host_may_provide) {
    ws_rwlock_read(&root->lock);
    int error = _ws_b_lookup(root, name, strlen(name), &dir);
    ws_rwlock_unlock(&root->lock);
    if (error == 0) {
      if (ws_is_dir(dir)) return dir;
      _ws_node_unref(dir);  // not a directory: hidden by the graft
    }
  }
  ws_mount *graft = &grafts[graft_count];
  graft->backend = ws_fs_memory_backend();
  graft->covered = root_mount.root;
  graft->graft = name;
  graft->id = atomic_fetch_add(&next_mount_id, 1);
  if (graft->backend->mount(graft, NULL) != 0) return NULL;
  graft_count++;
  graft->root->mode = S_IFDIR | mode;
  _ws_node_ref(graft->root);
  return graft->root;
}

static void build_root(void) {
  building = true;
  root_mount.id = 1;
  // A host root (--mount=/=HOST_DIR) when the program asked for one and it could be mounted
  // (else it said why on stderr, once the console is open): then the program's working
  // directory is where the host's lies, if that is inside it.
  int host_root = _ws_fs_mount_startup_root != NULL ? _ws_fs_mount_startup_root(&root_mount) : 1;
  if (host_root != 0) {
    root_mount.backend = ws_fs_memory_backend();
    if (root_mount.backend->mount(&root_mount, NULL) != 0) {
      building = false;
      return;  // no memory at start-up: every call fails with ENOMEM (path.c)
    }
    root_mount.root->mode = S_IFDIR | 0755;
  }
  _ws_node_ref(root_mount.root);
  cwd = root_mount.root;
  ws_node *dev = make_system_dir("dev", 0755, false), *tmp = make_system_dir("tmp", 01777, true);
  if (dev != NULL) _ws_devices_create(dev);
  _ws_node_unref(dev);
  _ws_node_unref(tmp);
  open_console("/dev/stdin", O_RDONLY, 0);
  open_console("/dev/stdout", O_WRONLY, 1);
  open_console("/dev/stderr", O_WRONLY, 2);
  // After the console, so a failure is reported on stderr. Weak: these are linked only into
  // programs that embed files or mount host directories (wasmscale-cc asks for them).
  if (_ws_fs_create_embedded_files != NULL) _ws_fs_create_embedded_files();
  if (_ws_fs_mount_startup_dirs != NULL) _ws_fs_mount_startup_dirs(host_root == 0);
  building = false;
  atomic_store_explicit(&_ws_fs_ready, true, memory_order_release);
}

_Atomic bool _ws_fs_ready;
_Thread_local uintptr_t _ws_fs_seen_break;

void _ws_fs_init_once(void) {
  if (!building) pthread_once(&init_once, build_root);
}

ws_node *_ws_root(void) { return root_mount.root; }

ws_node *_ws_cwd(void) {
  pthread_mutex_lock(&mount_lock);
  ws_node *dir = cwd;
  _ws_node_ref(dir);
  pthread_mutex_unlock(&mount_lock);
  return dir;
}

int _ws_set_cwd(ws_node *dir) {
  _ws_node_ref(dir);
  pthread_mutex_lock(&mount_lock);
  ws_node *old = cwd;
  cwd = dir;
  pthread_mutex_unlock(&mount_lock);
  _ws_node_unref(old);
  return 0;
}

ws_node *_ws_graft_at(const ws_node *dir, const char *name, size_t length) {
  for (uint32_t i = 0; i < graft_count; i++) {
    const char *graft = grafts[i].graft;
    if (grafts[i].covered == dir && strlen(graft) == length && memcmp(graft, name, length) == 0) return grafts[i].root;
  }
  return NULL;
}

uint32_t _ws_graft_count(const ws_node *dir) {
  uint32_t count = 0;
  for (uint32_t i = 0; i < graft_count; i++) count += grafts[i].covered == dir;
  return count;
}

void _ws_graft_entry(const ws_node *dir, uint32_t index, ws_dirent *entry) {
  for (uint32_t i = 0; i < graft_count; i++) {
    if (grafts[i].covered != dir || index-- > 0) continue;
    entry->ino = grafts[i].root->ino;
    entry->type = S_IFDIR;
    entry->length = (uint16_t)strlen(grafts[i].graft);
    memcpy(entry->name, grafts[i].graft, entry->length + 1u);
    return;
  }
}

ws_node *_ws_mount_traverse(ws_node *node) {
  if (atomic_load_explicit(&node->mounted, memory_order_acquire) == NULL) return node;  // the common case
  pthread_mutex_lock(&mount_lock);
  ws_node *top = node;
  while (top->mounted != NULL) top = top->mounted->root;
  _ws_node_ref(top);
  pthread_mutex_unlock(&mount_lock);
  _ws_node_unref(node);
  return top;
}

ws_node *_ws_mount_parent(ws_node *dir) {
  ws_node *below = dir;
  pthread_mutex_lock(&mount_lock);
  while (below->mount->root == below && below->mount->covered != NULL && below->mount->graft == NULL) {
    below = below->mount->covered;
  }
  _ws_node_ref(below);
  pthread_mutex_unlock(&mount_lock);
  if (ws_is_graft_root(below)) {  // a graft's parent is the directory it hangs from
    ws_node *parent = below->mount->covered;
    _ws_node_ref(parent);
    _ws_node_unref(below);
    return _ws_mount_traverse(parent);
  }
  ws_rwlock_read(&below->lock);
  ws_node *parent = below == root_mount.root ? below : below->parent;
  if (parent != NULL) _ws_node_ref(parent);
  ws_rwlock_unlock(&below->lock);
  _ws_node_unref(below);
  return parent == NULL ? NULL : _ws_mount_traverse(parent);
}

// Each backend of linked.h, weakly: NULL in a program that did not ask for it.
#define PRAGMA(text) _Pragma(#text)
#define WEAK_BACKEND(name, function) PRAGMA(weak function)
WS_LINKED_BACKENDS(WEAK_BACKEND)

const ws_fs_backend *_ws_linked_backend(const char *name) {
#define BACKEND_NAMED(backend, function) \
  if (strcmp(name, #backend) == 0) return function != NULL ? function() : NULL;
  WS_LINKED_BACKENDS(BACKEND_NAMED)
  return NULL;
}

int ws_fs_mount(const char *path, const ws_fs_backend *backend, const char *options) {
  _ws_fs_init();
  ws_walk walk;
  int error = _ws_walk_path(NULL, path, 0, &walk);
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
    error = _ws_dir_check_empty(dir);
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
      _ws_node_ref(dir);
      atomic_store(&dir->mounted, mount);
    }
    pthread_mutex_unlock(&mount_lock);
    if (error != 0) {
      atomic_store(&mount->unmounted, true);
      _ws_node_unref(mount->root);  // its last node: the mount goes with it
      mount = NULL;
    }
  }
  if (error != 0) free(mount);
  _ws_walk_done(&walk);
  return error;
}

int ws_fs_unmount(const char *path) {
  _ws_fs_init();
  ws_walk walk;
  int error = _ws_walk_path(NULL, path, 0, &walk);
  if (error != 0) return error;
  ws_node *root = walk.node;
  ws_mount *mount = root->mount;
  pthread_mutex_lock(&mount_lock);
  if (mount == &root_mount || mount->root != root) {
    error = -EINVAL;
  } else if (mount->graft != NULL) {
    error = -EBUSY;  // /dev and /tmp over a host root: the program's own
  } else if (root->mounted != NULL || cwd->mount == mount || atomic_load(&mount->open_files) > 0) {
    error = -EBUSY;
  } else {
    atomic_store(&mount->covered->mounted, NULL);
  }
  pthread_mutex_unlock(&mount_lock);
  _ws_walk_done(&walk);
  if (error == 0) {
    // The mount is freed with its last node (_ws_mount_node_gone), not here: a path walk that
    // passed through it a moment ago may still hold one, whose release calls into the backend.
    ws_node *covered = mount->covered, *mount_root = mount->root;
    atomic_store(&mount->unmounted, true);
    _ws_node_unref(covered);
    _ws_node_unref(mount_root);
  }
  return error;
}

void _ws_mount_node_gone(ws_mount *mount) {
  if (atomic_fetch_sub(&mount->nodes, 1) != 1 || !atomic_load(&mount->unmounted)) return;
  if (mount->backend->unmount != NULL) mount->backend->unmount(mount);
  free(mount);
}
