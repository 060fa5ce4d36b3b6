// Embedded files: what `wasmscale-cc --embed-file` compiled into the program (a generated
// object holding ws_fs_embedded_table, see tools/packaging.py) becomes files and directories
// of the memory root when the file system builds it, before main and on whichever thread
// touches a file first. The table stays in the module's data; the files are copies, so the
// program may change or remove them like any other.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

// The layout the driver generates (tools/packaging.py writes the same declarations).
typedef struct ws_embedded_entry {
  const char *path;           // absolute, in the virtual tree
  const unsigned char *data;  // NULL for a directory
  size_t size;
} ws_embedded_entry;

typedef struct ws_embedded_table {
  size_t count;
  const ws_embedded_entry *entries;  // directories before what they hold
} ws_embedded_table;

// Weak: a program built without --embed-file has no table (its address is NULL).
extern const ws_embedded_table ws_fs_embedded_table __attribute__((weak));

static int create_file(const ws_embedded_entry *entry) {
  char parent[WS_PATH_MAX];
  const char *slash = strrchr(entry->path, '/');
  size_t length = slash != NULL ? (size_t)(slash - entry->path) : 0;
  if (length >= sizeof parent) return -ENAMETOOLONG;
  memcpy(parent, entry->path, length);
  parent[length] = '\0';
  int error = length > 0 ? ws_make_dirs(parent, 0755) : 0;
  return error != 0 ? error : ws_write_file(entry->path, entry->data, entry->size, 0644);
}

void ws_fs_create_embedded_files(void) {
  const ws_embedded_table *table = &ws_fs_embedded_table;
  if (table == NULL) return;
  for (size_t i = 0; i < table->count; i++) {
    const ws_embedded_entry *entry = &table->entries[i];
    int error = entry->data == NULL ? ws_make_dirs(entry->path, 0755) : create_file(entry);
    if (error != 0) {  // reported, not fatal: the program runs without that file
      char message[WS_PATH_MAX + 64];
      snprintf(message, sizeof message, "wasmscale: --embed-file %s: %s\n", entry->path, strerror(-error));
      ws_prim_write_error(message);
    }
  }
}
