// The OPFS backend: the browser's origin-private file system, persistent per origin. It is the
// host-directory backend's logic (host/backend.c) over OPFS's calls (paths.c, cache.c), which
// reach OPFS through the platform's I/O worker. `options` names a directory inside the
// origin's OPFS ("" or "/" for its root), made if missing.
#include "../host/host.h"
#include "opfs.h"

static int opfs_mount(ws_mount *mount, const char *options) {
  return _ws_host_mount(mount, options != NULL ? options : "", &_ws_opfs_io);
}

static const ws_fs_backend opfs_backend = {.name = "opfs", .mount = opfs_mount, WS_HOST_OPERATIONS};

const ws_fs_backend *ws_fs_opfs_backend(void) { return &opfs_backend; }
