// The OPFS backend: the browser's origin-private file system, persistent per origin. It is the
// host-directory backend's logic (host/backend.c) over the OPFS client's calls, which send
// each operation to the OPFS I/O worker (src/platform/emscripten/opfs.c). `options` names a
// directory inside the origin's OPFS ("" or "/" for its root), made if missing.
#include <errno.h>

#include "../host/host.h"

static int opfs_mount(ws_mount *mount, const char *options) {
  static const ws_host_calls opfs = {
      ws_prim_opfs_lstat,  ws_prim_opfs_fstat,  ws_prim_opfs_realpath, ws_prim_opfs_open,  ws_prim_opfs_close,
      ws_prim_opfs_pread,  ws_prim_opfs_pwrite, ws_prim_opfs_ftruncate, ws_prim_opfs_fsync, ws_prim_opfs_mkdir,
      ws_prim_opfs_rmdir,  ws_prim_opfs_unlink, ws_prim_opfs_rename,   ws_prim_opfs_link,  ws_prim_opfs_symlink,
      ws_prim_opfs_readlink, ws_prim_opfs_list,
  };
  return ws_host_mount(mount, options != NULL ? options : "", &opfs);
}

static const ws_fs_backend opfs_backend = {.name = "opfs", .mount = opfs_mount, WS_HOST_OPERATIONS};

const ws_fs_backend *ws_fs_opfs_backend(void) { return &opfs_backend; }
