// Mappings of files (mmap of a descriptor). Wasm has no page tables, so a mapping is a copy of
// the file's bytes in memory the caller provides; a MAP_SHARED mapping opened for writing is
// written back to the file at msync and at munmap (Emscripten's JS file system does the same).
// Each mapping keeps its open file description referenced, so the descriptor may be closed
// while the mapping lives, as POSIX allows.
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

typedef struct mapping {
  char *start;
  size_t length;
  uint64_t offset;     // in the file
  bool write_back;     // MAP_SHARED with PROT_WRITE
  ws_file *file;       // referenced
  struct mapping *next;
} mapping;

static pthread_mutex_t mappings_lock = PTHREAD_MUTEX_INITIALIZER;  // a leaf lock
static mapping *mappings;

int _ws_fs_map(int fd, uint64_t offset, size_t length, int prot, int flags, void *memory) {
  if (length == 0 || (flags & (MAP_SHARED | MAP_PRIVATE)) == 0) return -EINVAL;
  ws_file *file = _ws_fd_get(fd);
  if (file == NULL) return -EBADF;
  int access = atomic_load_explicit(&file->flags, memory_order_relaxed) & O_ACCMODE;
  bool write_back = (flags & MAP_SHARED) && (prot & PROT_WRITE);
  int error = 0;
  mapping *map = NULL;
  if (file->node->type != S_IFREG) {
    error = -ENODEV;
  } else if (access == O_WRONLY || (write_back && access != O_RDWR)) {
    error = -EACCES;
  } else if ((map = malloc(sizeof *map)) == NULL) {
    error = -ENOMEM;
  } else {
    // Bytes past the end of the file read as zeros, as in the last page of a real mapping.
    int64_t got = _ws_node_read(file, file->node, memory, length, offset);
    if (got < 0) {
      error = (int)got;
    } else {
      memset((char *)memory + got, 0, length - (size_t)got);
    }
  }
  if (error != 0) {
    free(map);
    _ws_file_unref(file);
    return error;
  }
  *map = (mapping){memory, length, offset, write_back, file, NULL};
  pthread_mutex_lock(&mappings_lock);
  map->next = mappings;
  mappings = map;
  pthread_mutex_unlock(&mappings_lock);
  return 0;
}

// Writes [start, start + length) of a shared writable mapping back, never past the file's end
// (a mapping cannot grow its file). Ranges outside the mapping are ignored.
static int write_back(const mapping *map, const char *start, size_t length) {
  if (!map->write_back) return 0;
  if (start < map->start) {
    size_t skipped = (size_t)(map->start - start);
    if (skipped >= length) return 0;
    start += skipped, length -= skipped;
  }
  size_t within = (size_t)(start - map->start);
  if (within >= map->length) return 0;
  if (length > map->length - within) length = map->length - within;
  ws_node *node = map->file->node;
  uint64_t at = map->offset + within;
  ws_rwlock_write(&node->lock);
  int64_t result = 0;
  if (at < node->size) {
    size_t inside = node->size - at < length ? (size_t)(node->size - at) : length;
    result = _ws_b_write(node, start, inside, at);
    if (result > 0) _ws_node_touch(node, true);
  }
  ws_rwlock_unlock(&node->lock);
  return result < 0 ? (int)result : 0;
}

// The mapping that contains `address`; with `unlink`, also taken out of the list.
static mapping *find(const char *address, bool unlink) {
  pthread_mutex_lock(&mappings_lock);
  mapping **link = &mappings;
  while (*link != NULL && !(address >= (*link)->start && address < (*link)->start + (*link)->length)) {
    link = &(*link)->next;
  }
  mapping *map = *link;
  if (map != NULL && unlink) *link = map->next;
  pthread_mutex_unlock(&mappings_lock);
  return map;
}

int _ws_fs_msync(void *address, size_t length) {
  mapping *map = find(address, false);
  return map == NULL ? -ENOMEM : write_back(map, address, length);  // ENOMEM: not mapped, as Linux
}

int _ws_fs_unmap(void *address, size_t length) {
  mapping *map = find(address, true);
  if (map == NULL) return -EINVAL;
  // Like Linux's munmap, no write-back error is reported (msync reports them); the whole
  // mapping goes, as Emscripten's libc unmaps only whole mappings.
  (void)length;
  write_back(map, map->start, map->length);
  _ws_file_unref(map->file);
  free(map);
  return 0;
}
