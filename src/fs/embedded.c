// Embedded files: what `--embed-file` compiled into the program becomes files and directories
// of the memory root when the file system builds it, before main and on whichever thread
// touches a file first. The object comes from the Emscripten release's own file packager
// (its tools/file_packager.py --obj-output, run by bin/wasmscale-cc): file data in the module's
// data, and a table of (path, size, data) entries ended by a null path. The files are copies,
// so the program may change or remove them like any other.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

// The layout file_packager.py writes (for wasm32: pointer, 32-bit size, pointer).
typedef struct ws_embedded_entry {
  const char *path;  // absolute, in the virtual tree
  uint32_t size;
  const unsigned char *data;
} ws_embedded_entry;

// Where the table is. 3.1.6's object exports it by name (weak here: a program built without
// --embed-file has none, and its address is NULL). Later releases' keep it local and hand it,
// from a constructor that runs before any other code, to _emscripten_fs_load_embedded_files
// (Emscripten's JS file system copies the files in there), which only notes it: the file
// system makes the files itself when it builds its root.
extern const ws_embedded_entry __emscripten_embedded_file_data[] __attribute__((weak));
static const ws_embedded_entry *handed_table;

void _emscripten_fs_load_embedded_files(const void *table) { handed_table = table; }

static int create_file(const ws_embedded_entry *entry) {
  char parent[WS_PATH_MAX];
  const char *slash = strrchr(entry->path, '/');
  size_t length = slash != NULL ? (size_t)(slash - entry->path) : 0;
  if (length >= sizeof parent) return -ENAMETOOLONG;
  memcpy(parent, entry->path, length);
  parent[length] = '\0';
  int error = length > 0 ? _ws_make_dirs(parent, 0755) : 0;
  return error != 0 ? error : _ws_write_file(entry->path, entry->data, entry->size, 0644);
}

void _ws_fs_create_embedded_files(void) {
  const ws_embedded_entry *table = handed_table != NULL ? handed_table : __emscripten_embedded_file_data;
  if (table == NULL) return;
  for (const ws_embedded_entry *entry = table; entry->path != NULL; entry++) {
    int error = create_file(entry);
    if (error != 0) {  // reported, not fatal: the program runs without that file
      char message[WS_PATH_MAX + 64];
      snprintf(message, sizeof message, "wasmscale: --embed-file %s: %s\n", entry->path, strerror(-error));
      ws_prim_write_error(message);
    }
  }
}
