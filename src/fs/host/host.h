// The host-directory backend's logic over a table of host calls (platform.h's ws_host_io). Two
// tables share it: the host's own files (the platform's ws_prim_host_io: POSIX natively,
// Node's fs in Wasm) and the browser's origin-private file system (src/fs/opfs/). Each backend
// is this file's operations with its own mount.
#ifndef WASMSCALE_FS_HOST_H
#define WASMSCALE_FS_HOST_H

#include "../internal.h"
#include "../../platform/platform.h"

// Mounts the host directory `options` (held through `calls`) as mount->root.
int _ws_host_mount(ws_mount *mount, const char *options, const ws_host_io *calls);

int _ws_host_lookup(ws_node *dir, const char *name, size_t length, ws_node **child);
int _ws_host_create(ws_node *dir, const char *name, size_t length, uint32_t mode, const char *target,
                   ws_node **child);
int _ws_host_link(ws_node *dir, const char *name, size_t length, ws_node *node, ws_node *from_dir, const char *from,
                 size_t from_length);
int _ws_host_unlink(ws_node *dir, const char *name, size_t length, ws_node *node);
int _ws_host_rename(ws_node *from_dir, const char *from, size_t from_length, ws_node *to_dir, const char *to,
                   size_t to_length);
int _ws_host_readdir(ws_node *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next);
int _ws_host_readlink(ws_node *link, char *buffer, size_t size);
int _ws_host_open(ws_node *node, int flags);
int64_t _ws_host_read(ws_node *file, void *buffer, size_t length, uint64_t offset);
int64_t _ws_host_write(ws_node *file, const void *buffer, size_t length, uint64_t offset);
int _ws_host_truncate(ws_node *file, uint64_t size);
int _ws_host_sync(ws_node *file);
int _ws_host_allocate(ws_node *file, uint64_t offset, uint64_t length);
int _ws_host_set_mode(ws_node *node, uint32_t mode);
int _ws_host_set_times(ws_node *node, const struct timespec times[2]);
void _ws_host_release(ws_node *node);
void _ws_host_unmount(ws_mount *mount);

// Every operation but .name and .mount, for a backend table.
#define WS_HOST_OPERATIONS                                                                     \
  .lookup = _ws_host_lookup, .create = _ws_host_create, .link = _ws_host_link, .unlink = _ws_host_unlink, \
  .rename = _ws_host_rename, .readdir = _ws_host_readdir, .readlink = _ws_host_readlink, .open = _ws_host_open, \
  .read = _ws_host_read, .write = _ws_host_write, .truncate = _ws_host_truncate, .sync = _ws_host_sync,    \
  .allocate = _ws_host_allocate, .set_mode = _ws_host_set_mode, .set_times = _ws_host_set_times,          \
  .release = _ws_host_release, .unmount = _ws_host_unmount

#endif
