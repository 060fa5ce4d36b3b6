// The memory backend's private structures: directories (dir.c) and file data (file.c).
#ifndef WASMSCALE_FS_MEMORY_H
#define WASMSCALE_FS_MEMORY_H

#include "../internal.h"

// ----- directories: entries in slots, found through a hash index -----------------------------
typedef struct mem_entry {
  ws_node *node;  // referenced by the entry
  uint32_t hash;
  uint16_t length;
  char name[];
} mem_entry;

typedef struct mem_dir {
  mem_entry **slots;       // a slot's index is the entry's readdir cookie: stable while it lives
  uint32_t slot_count;     // slots in use or freed; new entries reuse freed ones first
  uint32_t slot_capacity;
  uint32_t *free_slots;    // indices of freed slots (a stack; same capacity as slots)
  uint32_t free_count;
  uint32_t *index;         // open addressing: 0 empty, TOMBSTONE, else slot + 1
  uint32_t index_mask;     // capacity - 1 (a power of two), 0 before the first entry
  uint32_t index_used;     // live entries + tombstones
  uint32_t live;
} mem_dir;

mem_dir *_ws_mem_dir_new(void);
void _ws_mem_dir_free(mem_dir *dir);  // drops every entry's reference
ws_node *_ws_mem_dir_find(const mem_dir *dir, const char *name, size_t length);
// Insertion in two steps so that a rename can make sure it will not fail before it changes
// anything: an entry, then room for one more, then the infallible put.
mem_entry *_ws_mem_entry_new(const char *name, size_t length, ws_node *node);
int _ws_mem_dir_reserve(mem_dir *dir);
void _ws_mem_dir_put(mem_dir *dir, mem_entry *entry);
ws_node *_ws_mem_dir_take(mem_dir *dir, const char *name, size_t length);  // removes; returns its node (ref passes)
int _ws_mem_dir_entry(const mem_dir *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next);

// ----- file data: chunked extents -------------------------------------------------------------
#define MEM_CHUNK_SHIFT 16
#define MEM_CHUNK_BYTES (1u << MEM_CHUNK_SHIFT)
#define MEM_MAX_FILE_BYTES (1ull << 40)  // 1 TiB: bounds the chunk table of a sparse file

typedef struct mem_source mem_source;

typedef struct mem_data {
  uint8_t **chunks;         // chunk i holds bytes [i * CHUNK, (i+1) * CHUNK); NULL reads as zeros
  uint32_t table_size;      // entries in `chunks`
  uint32_t first_capacity;  // chunk 0 grows by doubling while a file is small; others are full
  uint64_t held;            // bytes of chunks allocated (st_blocks)
  mem_source *source;       // a lazy file's bytes not yet fetched (lazy.c); NULL for others
} mem_data;

int64_t _ws_mem_file_read(ws_node *file, void *buffer, size_t length, uint64_t offset);
int64_t _ws_mem_file_write(ws_node *file, const void *buffer, size_t length, uint64_t offset);
int _ws_mem_file_truncate(ws_node *file, uint64_t size);
int _ws_mem_file_allocate(ws_node *file, uint64_t offset, uint64_t length);
void _ws_mem_file_free(mem_data *data);

// ----- lazy file data: fetched from a URL in blocks, on first read (lazy.c) --------------------
// Data for a file of `size` bytes that come from `url`, none fetched yet.
int _ws_mem_lazy_data(const char *url, uint64_t size, mem_data **data);
// Makes the chunks [offset, offset + length) touches hold the source's bytes. The node is
// locked shared: readers on any thread get here together, and fetch one at a time.
int _ws_mem_lazy_load(ws_node *file, uint64_t offset, uint64_t length);
// Before a change (the node locked exclusively): fetches every block still missing below
// `end`, then lets the source go, so the file is an ordinary memory file from then on.
int _ws_mem_lazy_settle(ws_node *file, uint64_t end);
void _ws_mem_lazy_free(mem_source *source);

#endif
