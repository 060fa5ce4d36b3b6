// The OPFS backend: the browser's origin-private file system, persistent per origin. It is the
// host-directory backend's logic (host/backend.c) over the OPFS client's calls, which send
// each operation to the OPFS I/O worker (src/platform/emscripten/opfs.c). `options` names a
// directory inside the origin's OPFS ("" or "/" for its root), made if missing.
#include <errno.h>

#include "../host/host.h"

static int opfs_mount(ws_mount *mount, const char *options) {
  static const ws_host_calls opfs = WS_HOST_CALLS(ws_prim_opfs);
  return ws_host_mount(mount, options != NULL ? options : "", &opfs);
}

static const ws_fs_backend opfs_backend = {.name = "opfs", .mount = opfs_mount, WS_HOST_OPERATIONS};

const ws_fs_backend *ws_fs_opfs_backend(void) { return &opfs_backend; }
