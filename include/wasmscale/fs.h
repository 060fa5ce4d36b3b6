// wasmscale file system: public C API.
//
// Linking the library (bin/wasmscale-cc --fs=wasmscale) replaces Emscripten's JavaScript file
// system: open, read, write, stat, rename... are served in Wasm, on the calling thread, from
// every thread at the same speed. This header adds what POSIX has no call for: mounting
// backends, and a hook for tests that makes backend operations fail on purpose.
#ifndef WASMSCALE_FS_H
#define WASMSCALE_FS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ----- backends ------------------------------------------------------------------------------
// A backend stores files: the memory backend (the root, /tmp), host directories and OPFS. Every call the file system makes into a backend goes through one choke point
// (src/fs/backend.c), where ws_fs_inject_failure can make it fail.
typedef struct ws_fs_backend ws_fs_backend;

// The memory backend: file data in chunked extents, directories with hashed names.
const ws_fs_backend *ws_fs_memory_backend(void);

// The host-directory backend: `options` names a directory of the host (relative: against the
// working directory), whose files every thread then reads and writes directly (on Node
// through its fs module; -ENODEV in a browser). Paths cannot leave that directory: ".." at its
// top and symlinks resolve inside the virtual tree. Mode and time changes stay in memory.
const ws_fs_backend *ws_fs_host_backend(void);

// The OPFS backend (browsers): files persist in the origin's private file system, under the
// OPFS directory `options` ("" for its root). Every thread reads and writes them through one
// I/O worker; small reads and writes are cached per file until fsync, close or exit. OPFS has
// no links (EPERM), keeps no modes, and a file another tab has open gives EBUSY. Needs a
// program built with -pthread, run in a browser; elsewhere mounting gives ENODEV.
const ws_fs_backend *ws_fs_opfs_backend(void);

// Mounts a fresh instance of `backend` on the existing, empty directory `path`. Renames and
// hard links between different mounts fail with EXDEV. Returns 0 or -errno
// (ENOENT, ENOTDIR, ENOTEMPTY, EBUSY if something is already mounted there).
int ws_fs_mount(const char *path, const ws_fs_backend *backend, const char *options);

// Unmounts what is mounted at `path`. Returns 0 or -errno (EINVAL: not a mount point;
// EBUSY: files under it are open or it is some thread's working directory).
int ws_fs_unmount(const char *path);

// ----- testing -------------------------------------------------------------------------------
// Backend operations, as the choke point names them.
typedef enum ws_fs_op {
  WS_FS_OP_LOOKUP = 1 << 0,
  WS_FS_OP_CREATE = 1 << 1,
  WS_FS_OP_LINK = 1 << 2,
  WS_FS_OP_UNLINK = 1 << 3,
  WS_FS_OP_RENAME = 1 << 4,
  WS_FS_OP_READDIR = 1 << 5,
  WS_FS_OP_READ = 1 << 6,
  WS_FS_OP_WRITE = 1 << 7,
  WS_FS_OP_TRUNCATE = 1 << 8,
  WS_FS_OP_SYNC = 1 << 9,
  WS_FS_OP_OPEN = 1 << 10,
  WS_FS_OP_SET_ATTRIBUTES = 1 << 11,  // chmod, utimensat
} ws_fs_op;

// From now on, the `skip`+1-th backend operation in `ops` (a mask of ws_fs_op) fails with
// `error` (a positive errno), once. error 0 cancels an injection not yet fired.
void ws_fs_inject_failure(unsigned ops, unsigned skip, int error);

// How many injected failures have fired since the program started.
unsigned ws_fs_injected_failures(void);

#ifdef __cplusplus
}
#endif

#endif
