// The OPFS backend's parts: the host-directory backend's logic (host/backend.c) over a table of
// calls (paths.c) that reach OPFS through the platform's I/O worker (platform.h). OPFS names
// files by path, so held directories are paths (paths.c); open files keep a cache (cache.c).
#ifndef WASMSCALE_FS_OPFS_H
#define WASMSCALE_FS_OPFS_H

#include <stdint.h>

#include "../../platform/platform.h"

// The calls of a held-directory host over OPFS (paths.c).
extern const ws_host_io _ws_opfs_io;

// Open files, each through its cache (cache.c). Descriptors are the I/O worker's, below
// WS_OPFS_FILES_MAX; the calls give -EBADF for any other.
int _ws_opfs_open_file(const char *path, int how);
int _ws_opfs_close_file(int fd);
int _ws_opfs_fstat_file(int fd, ws_host_stat *out);
int64_t _ws_opfs_pread(int fd, void *buffer, size_t length, uint64_t offset);
int64_t _ws_opfs_pwrite(int fd, const void *buffer, size_t length, uint64_t offset);
int _ws_opfs_ftruncate(int fd, uint64_t size);
int _ws_opfs_fsync(int fd);
// `out`, the worker's answer for open file `fd`, with the size the program sees (its cached
// writes included) and the blocks that size takes. Any fd: one not open is left as it is.
void _ws_opfs_cached_size(int fd, ws_host_stat *out);

#endif
