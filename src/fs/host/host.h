// The host-directory backend's logic over a table of host calls. Two sets of calls share it:
// the host's own files (the platform's ws_prim_host_*: POSIX natively, Node's fs in Wasm) and
// the browser's origin-private file system (src/platform/emscripten/opfs.c, which sends each
// call to the OPFS I/O worker). Each backend is this file's operations with its own mount.
#ifndef WASMSCALE_FS_HOST_H
#define WASMSCALE_FS_HOST_H

#include "../internal.h"
#include "../../platform/platform.h"

typedef struct ws_host_calls {
  int (*lstat)(const char *path, ws_host_stat *out);
  int (*fstat)(int fd, ws_host_stat *out);
  int (*realpath)(const char *path, char *out, size_t size);
  int (*open)(const char *path, int how, uint32_t mode);
  int (*close)(int fd);
  int64_t (*pread)(int fd, void *buffer, size_t length, uint64_t offset);
  int64_t (*pwrite)(int fd, const void *buffer, size_t length, uint64_t offset);
  int (*ftruncate)(int fd, uint64_t size);
  int (*fsync)(int fd);
  int (*mkdir)(const char *path, uint32_t mode);
  int (*rmdir)(const char *path);
  int (*unlink)(const char *path);
  int (*rename)(const char *from, const char *to);
  int (*link)(const char *existing, const char *path);
  int (*symlink)(const char *target, const char *path);
  int (*readlink)(const char *path, char *buffer, size_t size);
  int64_t (*list)(const char *path, void *buffer, size_t size);
} ws_host_calls;

// The table of a set of calls named PREFIX_lstat, PREFIX_fstat... (platform.h's prefixes).
#define WS_HOST_CALLS(prefix)                                                                  \
  {                                                                                            \
    prefix##_lstat, prefix##_fstat, prefix##_realpath, prefix##_open, prefix##_close,          \
    prefix##_pread, prefix##_pwrite, prefix##_ftruncate, prefix##_fsync, prefix##_mkdir,       \
    prefix##_rmdir, prefix##_unlink, prefix##_rename, prefix##_link, prefix##_symlink,         \
    prefix##_readlink, prefix##_list,                                                          \
  }

// Mounts the host directory `options` (its realpath through `calls`) as mount->root.
int ws_host_mount(ws_mount *mount, const char *options, const ws_host_calls *calls);

int ws_host_lookup(ws_node *dir, const char *name, size_t length, ws_node **child);
int ws_host_create(ws_node *dir, const char *name, size_t length, uint32_t mode, const char *target,
                   ws_node **child);
int ws_host_link(ws_node *dir, const char *name, size_t length, ws_node *node);
int ws_host_unlink(ws_node *dir, const char *name, size_t length);
int ws_host_rename(ws_node *from_dir, const char *from, size_t from_length, ws_node *to_dir, const char *to,
                   size_t to_length);
int ws_host_readdir(ws_node *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next);
int ws_host_readlink(ws_node *link, char *buffer, size_t size);
int ws_host_open(ws_node *node, int flags);
int64_t ws_host_read(ws_node *file, void *buffer, size_t length, uint64_t offset);
int64_t ws_host_write(ws_node *file, const void *buffer, size_t length, uint64_t offset);
int ws_host_truncate(ws_node *file, uint64_t size);
int ws_host_sync(ws_node *file);
int ws_host_allocate(ws_node *file, uint64_t offset, uint64_t length);
void ws_host_release(ws_node *node);

// Every operation but .name and .mount, for a backend table.
#define WS_HOST_OPERATIONS                                                                     \
  .lookup = ws_host_lookup, .create = ws_host_create, .link = ws_host_link, .unlink = ws_host_unlink, \
  .rename = ws_host_rename, .readdir = ws_host_readdir, .readlink = ws_host_readlink, .open = ws_host_open, \
  .read = ws_host_read, .write = ws_host_write, .truncate = ws_host_truncate, .sync = ws_host_sync,    \
  .allocate = ws_host_allocate, .release = ws_host_release

#endif
