// Nodes (inodes): creation, reference counting, timestamps and permission checks.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static _Atomic uint64_t next_ino = 1;

// Nodes start on cache lines of their own: the lock word of one busy file must not share a
// line with a neighbour's, or threads working on different files slow each other down.
#define NODE_BYTES ((sizeof(ws_node) + 63) & ~(size_t)63)

ws_node *_ws_node_new(ws_mount *mount, uint32_t mode) {
  ws_node *node = aligned_alloc(64, NODE_BYTES);
  if (node == NULL) return NULL;
  memset(node, 0, sizeof *node);
  if (S_ISFIFO(mode) && (node->pipe = _ws_pipe_new()) == NULL) {
    free(node);
    return NULL;
  }
  atomic_init(&node->refs, 1);
  node->mount = mount;
  if (mount != NULL) atomic_fetch_add(&mount->nodes, 1);
  node->ino = atomic_fetch_add(&next_ino, 1);
  node->type = mode & S_IFMT;
  node->mode = mode;
  node->nlink = S_ISDIR(mode) ? 2 : 1;
  ws_prim_realtime(&node->mtime);
  node->atime = node->ctime = node->mtime;
  return node;
}

int _ws_node_place(ws_node *dir, ws_node *parent, const char *name, size_t length) {
  char *copy = strndup(name, length);
  if (copy == NULL) return -ENOSPC;
  free(dir->name);
  dir->name = copy;
  dir->parent = parent;
  return 0;
}

void _ws_node_ref(ws_node *node) { atomic_fetch_add_explicit(&node->refs, 1, memory_order_relaxed); }

void _ws_node_unref(ws_node *node) {
  if (node == NULL || atomic_fetch_sub_explicit(&node->refs, 1, memory_order_acq_rel) != 1) return;
  ws_mount *mount = node->mount;
  if (mount != NULL && mount->backend->release != NULL) mount->backend->release(node);
  if (node->pipe != NULL) _ws_pipe_destroy(node->pipe);
  free(node->name);
  free(node);
  if (mount != NULL) _ws_mount_node_gone(mount);
}

void _ws_node_touch(ws_node *node, bool modified) {
  uint8_t marks = WS_MARK_CTIME | (modified ? WS_MARK_MTIME : 0);
  if ((atomic_load_explicit(&node->time_marks, memory_order_relaxed) & marks) != marks) {
    atomic_fetch_or_explicit(&node->time_marks, marks, memory_order_relaxed);
  }
}

void _ws_node_resolve_times(ws_node *node) {
  uint8_t marks = atomic_exchange_explicit(&node->time_marks, 0, memory_order_relaxed);
  if (marks == 0) return;
  struct timespec now;
  ws_prim_realtime(&now);
  node->ctime = now;
  if (marks & WS_MARK_MTIME) node->mtime = now;
}

int _ws_dir_may_add(const ws_node *dir) { return dir->nlink == 0 ? -ENOENT : _ws_node_permits(dir, W_OK | X_OK); }

int _ws_node_permits(const ws_node *node, int want) {
  uint32_t granted = (node->mode >> 6) & 7;  // owner bits: r=4, w=2, x=1, like R_OK/W_OK/X_OK
  return (granted & (uint32_t)want) == (uint32_t)want ? 0 : -EACCES;
}
