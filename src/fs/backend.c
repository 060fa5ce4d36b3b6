// The one choke point between the core and the backends: every backend operation is called
// through these wrappers, so a test can make any of them fail (ws_fs_inject_failure) and
// check that the error reaches the caller and that nothing already written is lost. Debug
// builds check here that the core holds the locks struct ws_fs_backend says each method is
// called with (HELD: shared or exclusive; WRITTEN: exclusive, by the caller).
#include <errno.h>
#include <pthread.h>

#include "internal.h"

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned fault_ops;  // nonzero while an injection is armed (checked without the lock)
static unsigned fault_skip;
static int fault_error;
static _Atomic unsigned faults_fired;

void ws_fs_inject_failure(unsigned ops, unsigned skip, int error) {
  pthread_mutex_lock(&fault_lock);
  fault_skip = skip;
  fault_error = error;
  atomic_store(&fault_ops, error != 0 ? ops : 0);
  pthread_mutex_unlock(&fault_lock);
}

unsigned ws_fs_injected_failures(void) { return atomic_load(&faults_fired); }

// 0, or the -errno an armed injection makes this operation return.
static int fault(ws_fs_op op) {
  if ((atomic_load_explicit(&fault_ops, memory_order_relaxed) & op) == 0) return 0;
  int error = 0;
  pthread_mutex_lock(&fault_lock);
  if ((atomic_load(&fault_ops) & op) != 0) {
    if (fault_skip > 0) {
      fault_skip--;
    } else {
      error = -fault_error;
      atomic_store(&fault_ops, 0);
      atomic_fetch_add(&faults_fired, 1);
    }
  }
  pthread_mutex_unlock(&fault_lock);
  return error;
}

#define HELD(node) ws_rwlock_assert_held(&(node)->lock)
#define WRITTEN(node) ws_rwlock_assert_written(&(node)->lock)

#define CALL(op, node, method, ...)                                          \
  do {                                                                       \
    int injected_ = fault(op);                                               \
    if (injected_ != 0) return injected_;                                    \
    if ((node)->mount->backend->method == NULL) return -ENOTSUP;             \
    return (node)->mount->backend->method(__VA_ARGS__);                      \
  } while (0)

int _ws_b_lookup(ws_node *dir, const char *name, size_t length, ws_node **child) {
  HELD(dir);
  CALL(WS_FS_OP_LOOKUP, dir, lookup, dir, name, length, child);
}

// Every call that may change a directory's entries counts it first (ws_node.entry_changes).
#define CHANGED(dir) (WRITTEN(dir), (dir)->entry_changes++)

int _ws_b_create(ws_node *dir, const char *name, size_t length, uint32_t mode, const char *target, ws_node **child) {
  CHANGED(dir);
  CALL(WS_FS_OP_CREATE, dir, create, dir, name, length, mode, target, child);
}

int _ws_b_create_lazy(ws_node *dir, const char *name, size_t length, uint32_t mode, const ws_lazy_source *source,
                     ws_node **child) {
  CHANGED(dir);
  CALL(WS_FS_OP_CREATE, dir, create_lazy, dir, name, length, mode, source, child);
}

int _ws_b_link(ws_node *dir, const char *name, size_t length, ws_node *node, ws_node *from_dir, const char *from,
              size_t from_length) {
  CHANGED(dir);
  CALL(WS_FS_OP_LINK, dir, link, dir, name, length, node, from_dir, from, from_length);
}

int _ws_b_unlink(ws_node *dir, const char *name, size_t length, ws_node *node) {
  CHANGED(dir);
  CALL(WS_FS_OP_UNLINK, dir, unlink, dir, name, length, node);
}

int _ws_b_rename(ws_node *from_dir, const char *from, size_t from_length, ws_node *to_dir, const char *to,
                size_t to_length) {
  CHANGED(from_dir);
  CHANGED(to_dir);
  CALL(WS_FS_OP_RENAME, from_dir, rename, from_dir, from, from_length, to_dir, to, to_length);
}

int _ws_b_readdir(ws_node *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next) {
  HELD(dir);
  CALL(WS_FS_OP_READDIR, dir, readdir, dir, cookie, entry, next);
}

int _ws_b_readlink(ws_node *link, char *buffer, size_t size) {
  HELD(link);
  CALL(WS_FS_OP_READ, link, readlink, link, buffer, size);
}

int _ws_b_open(ws_node *node, int flags) {
  int injected = fault(WS_FS_OP_OPEN);
  if (injected != 0) return injected;
  return node->mount->backend->open != NULL ? node->mount->backend->open(node, flags) : 0;
}

int64_t _ws_b_read(ws_node *file, void *buffer, size_t length, uint64_t offset) {
  HELD(file);
  CALL(WS_FS_OP_READ, file, read, file, buffer, length, offset);
}

int64_t _ws_b_write(ws_node *file, const void *buffer, size_t length, uint64_t offset) {
  WRITTEN(file);
  CALL(WS_FS_OP_WRITE, file, write, file, buffer, length, offset);
}

int _ws_b_truncate(ws_node *file, uint64_t size) {
  WRITTEN(file);
  CALL(WS_FS_OP_TRUNCATE, file, truncate, file, size);
}

int _ws_b_sync(ws_node *file) {
  WRITTEN(file);
  CALL(WS_FS_OP_SYNC, file, sync, file);
}

int _ws_b_allocate(ws_node *file, uint64_t offset, uint64_t length) {
  WRITTEN(file);
  CALL(WS_FS_OP_WRITE, file, allocate, file, offset, length);
}

// Nodes of no mount (pipes) and backends that keep no attributes of their own (memory) have
// nothing to apply: 0.
static const ws_fs_backend *attribute_keeper(const ws_node *node) {
  return node->mount != NULL ? node->mount->backend : NULL;
}

int _ws_b_set_mode(ws_node *node, uint32_t mode) {
  WRITTEN(node);
  int injected = fault(WS_FS_OP_SET_ATTRIBUTES);
  if (injected != 0) return injected;
  const ws_fs_backend *backend = attribute_keeper(node);
  return backend != NULL && backend->set_mode != NULL ? backend->set_mode(node, mode) : 0;
}

int _ws_b_set_times(ws_node *node, const struct timespec times[2]) {
  WRITTEN(node);
  int injected = fault(WS_FS_OP_SET_ATTRIBUTES);
  if (injected != 0) return injected;
  const ws_fs_backend *backend = attribute_keeper(node);
  return backend != NULL && backend->set_times != NULL ? backend->set_times(node, times) : 0;
}
