// Start-up mounts: the host directories `wasmscale-cc --mount` asked for, mounted when the file
// system builds its root. Kept apart from the backend's operations so that the driver can pull
// it (and with it the backend) into just the programs that use --mount. A HOST_DIR written
// "opfs:DIR" is a directory of the browser's OPFS instead (the driver then links that backend).
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../internal.h"

#pragma weak ws_fs_opfs_backend

// The host directories `wasmscale-cc --mount` asked for. A failure is reported, not fatal:
// the program runs without that mount (and sees the empty directory).
void ws_fs_mount_startup_dirs(void) {
  char list[WS_PATH_MAX * 4];
  size_t size = ws_prim_host_startup_mounts(list, sizeof list);
  if (size > sizeof list) {
    ws_prim_write_error("wasmscale: the --mount list is too long; nothing mounted\n");
    return;
  }
  for (size_t at = 0; at < size;) {
    const char *virtual_path = list + at;
    const char *host = virtual_path + strlen(virtual_path) + 1;
    at = (size_t)(host - list) + strlen(host) + 1;
    bool opfs = strncmp(host, "opfs:", 5) == 0 && ws_fs_opfs_backend != NULL;
    int error = ws_make_dirs(virtual_path, 0755);
    if (error == 0) error = ws_fs_mount(virtual_path, opfs ? ws_fs_opfs_backend() : ws_fs_host_backend(), opfs ? host + 5 : host);
    if (error != 0) {
      char message[WS_PATH_MAX * 2 + 64];
      snprintf(message, sizeof message, "wasmscale: --mount=%s=%s: %s\n", virtual_path, host, strerror(-error));
      ws_prim_write_error(message);
    }
  }
}
