// Start-up mounts: the host directories `wasmscale-cc --mount` asked for, mounted when the file
// system builds its root; --mount=/=HOST_DIR (and -sNODERAWFS, which means --mount=/=.) makes
// a host directory the root itself (mount.c adds /dev and /tmp in memory). Kept apart from
// the backend's operations so that the driver can pull it (and with it the backend) into just
// the programs that use --mount. A HOST_DIR written "opfs:DIR" is a directory of the
// browser's OPFS instead (the driver then links that backend).
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../internal.h"

typedef struct startup_mount {
  const char *virtual_path, *host;
} startup_mount;

// The --mount list (the driver's, through the platform), read once: the root is mounted from it
// before the console is open, the other directories after.
static char list[WS_PATH_MAX * 4 + 1];
static bool list_read;

// The next pair of the list: `*at` starts at 0; false at the end (an empty list when it did not
// fit, which is said on stderr).
static bool next_mount(size_t *at, startup_mount *mount) {
  if (!list_read) {
    list_read = true;
    size_t size = ws_prim_host_startup_mounts(list, sizeof list - 1);
    if (size > sizeof list - 1) {
      ws_prim_write_error("wasmscale: the --mount list is too long; nothing mounted\n");
      size = 0;
    }
    list[size] = '\0';  // an empty list reads as an empty name
  }
  if (list[*at] == '\0') return false;
  mount->virtual_path = list + *at;
  mount->host = mount->virtual_path + strlen(mount->virtual_path) + 1;
  *at = (size_t)(mount->host - list) + strlen(mount->host) + 1;
  return true;
}

static void report(const startup_mount *mount, int error) {
  char message[WS_PATH_MAX * 2 + 64];
  snprintf(message, sizeof message, "wasmscale: --mount=%s=%s: %s\n", mount->virtual_path, mount->host, strerror(-error));
  ws_prim_write_error(message);
}

static bool is_root(const startup_mount *mount) { return strcmp(mount->virtual_path, "/") == 0; }

// The root's entry and how its mount went, kept for _ws_fs_mount_startup_dirs: it reports an
// error once the console is open (the root is mounted before it).
static int root_error;
static startup_mount root_entry;

int _ws_fs_mount_startup_root(ws_mount *root) {
  startup_mount mount;
  for (size_t at = 0; next_mount(&at, &mount);) {
    if (!is_root(&mount)) continue;
    root->backend = ws_fs_host_backend();
    root_error = root->backend->mount(root, mount.host);
    root_entry = mount;
    return root_error;
  }
  return 1;
}

// Over a host root, the program starts where the host's working directory is, if the root
// holds it (--mount=/=/ then sees paths as the host does, like Emscripten's NODERAWFS).
static void enter_start_dir(void) {
  char root[WS_PATH_MAX], here[WS_PATH_MAX];
  if (ws_prim_host_realpath(root_entry.host, root, sizeof root) != 0) return;
  if (ws_prim_host_realpath(".", here, sizeof here) != 0) return;
  size_t length = strcmp(root, "/") == 0 ? 0 : strlen(root);
  if (strncmp(here, root, length) == 0 && here[length] == '/') _ws_fs_chdir(here + length);
}

// The host directories `wasmscale-cc --mount` asked for. A failure is reported, not fatal:
// the program runs without that mount (and sees the empty directory).
void _ws_fs_mount_startup_dirs(bool host_root) {
  if (root_error != 0) report(&root_entry, root_error);
  if (host_root) enter_start_dir();
  startup_mount mount;
  for (size_t at = 0; next_mount(&at, &mount);) {
    if (is_root(&mount)) continue;
    const ws_fs_backend *opfs = strncmp(mount.host, "opfs:", 5) == 0 ? _ws_linked_backend("opfs") : NULL;
    int error = _ws_make_dirs(mount.virtual_path, 0755);
    if (error == 0) {
      error = ws_fs_mount(mount.virtual_path, opfs != NULL ? opfs : ws_fs_host_backend(),
                          opfs != NULL ? mount.host + 5 : mount.host);
    }
    if (error != 0) report(&mount, error);
  }
}
