// Memory-backend file data in chunked extents: 64 KiB chunks found through a table, so no file
// needs one contiguous buffer (no 2 GiB limit) and a hole costs nothing and reads as zeros.
// Chunk 0 starts small and doubles, so the many small files most programs make stay small.
//
// Invariant: bytes of a chunk beyond the file's size, and beyond a chunk's capacity, are zero
// (truncate clears what it cuts off), so growing a file never reveals old data.
// A write allocates everything it needs before it changes anything: when memory runs out it
// fails with ENOSPC and the file is exactly as before. A lazy file's bytes are fetched before
// they are read (lazy.c), and all it keeps before it changes.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

static uint32_t chunk_capacity(const mem_data *data, uint64_t index) {
  return index == 0 ? data->first_capacity : MEM_CHUNK_BYTES;
}

static void update_blocks(ws_node *file) {
  const mem_data *data = file->data;
  file->blocks = data != NULL ? data->held / 512 : 0;
}

int64_t _ws_mem_file_read(ws_node *file, void *buffer, size_t length, uint64_t offset) {
  const mem_data *data = file->data;
  if (offset >= file->size) return 0;
  if (length > file->size - offset) length = (size_t)(file->size - offset);
  int error = data != NULL && data->source != NULL ? _ws_mem_lazy_load(file, offset, length) : 0;
  if (error != 0) return error;
  uint8_t *out = buffer;
  for (size_t done = 0; done < length;) {
    uint64_t at = offset + done, index = at >> MEM_CHUNK_SHIFT;
    uint32_t within = (uint32_t)(at & (MEM_CHUNK_BYTES - 1));
    size_t piece = MEM_CHUNK_BYTES - within;
    if (piece > length - done) piece = length - done;
    const uint8_t *chunk = data != NULL && index < data->table_size ? data->chunks[index] : NULL;
    uint32_t capacity = chunk != NULL ? chunk_capacity(data, index) : 0;
    size_t stored = within < capacity ? capacity - within : 0;
    if (stored > piece) stored = piece;
    if (stored > 0) memcpy(out + done, chunk + within, stored);
    memset(out + done + stored, 0, piece - stored);
    done += piece;
  }
  return (int64_t)length;
}

static int grow_table(mem_data *data, uint64_t wanted) {
  if (wanted <= data->table_size) return 0;
  uint64_t size = data->table_size ? data->table_size : 1;
  while (size < wanted) size *= 2;
  uint8_t **chunks = realloc(data->chunks, size * sizeof *chunks);
  if (chunks == NULL) return -ENOSPC;
  memset(chunks + data->table_size, 0, (size - data->table_size) * sizeof *chunks);
  data->chunks = chunks;
  data->table_size = (uint32_t)size;
  return 0;
}

// Makes chunk 0 hold at least `end` bytes (end <= CHUNK).
static int grow_first_chunk(mem_data *data, uint32_t end) {
  if (data->chunks[0] == NULL || end <= data->first_capacity) return 0;
  uint32_t capacity = data->first_capacity;
  while (capacity < end) capacity *= 2;
  uint8_t *chunk = realloc(data->chunks[0], capacity);
  if (chunk == NULL) return -ENOSPC;
  memset(chunk + data->first_capacity, 0, capacity - data->first_capacity);
  data->held += capacity - data->first_capacity;
  data->chunks[0] = chunk;
  data->first_capacity = capacity;
  return 0;
}

// A fresh, zeroed chunk for index `index` able to hold `end` bytes.
static uint8_t *new_chunk(uint64_t index, uint32_t end, uint32_t *capacity) {
  *capacity = MEM_CHUNK_BYTES;
  if (index == 0) {
    for (*capacity = 64; *capacity < end;) *capacity *= 2;
  }
  return calloc(1, *capacity);
}

// Makes every chunk [offset, offset + length) touches exist and hold its part of the range;
// on failure nothing has changed (a larger chunk table or chunk 0 hold the same bytes).
static int reserve(ws_node *file, uint64_t offset, uint64_t length) {
  if (offset >= MEM_MAX_FILE_BYTES || length > MEM_MAX_FILE_BYTES - offset) return -EFBIG;
  mem_data *data = file->data;
  if (data == NULL && (data = file->data = calloc(1, sizeof *data)) == NULL) return -ENOSPC;
  uint64_t end = offset + length, first = offset >> MEM_CHUNK_SHIFT, last = (end - 1) >> MEM_CHUNK_SHIFT;
  int error = grow_table(data, last + 1);
  if (error == 0 && first == 0) error = grow_first_chunk(data, end < MEM_CHUNK_BYTES ? (uint32_t)end : MEM_CHUNK_BYTES);
  if (error != 0) return error;
  // Allocate every missing chunk first, chained through their first bytes, then install them.
  uint8_t *fresh = NULL;
  uint32_t first_capacity = 0;
  for (uint64_t index = first; index <= last; index++) {
    if (data->chunks[index] != NULL) continue;
    uint32_t capacity, chunk_end = index == last ? (uint32_t)(end - (last << MEM_CHUNK_SHIFT)) : MEM_CHUNK_BYTES;
    uint8_t *chunk = new_chunk(index, chunk_end, &capacity);
    if (chunk == NULL) {
      while (fresh != NULL) {
        uint8_t *next;
        memcpy(&next, fresh, sizeof next);
        free(fresh);
        fresh = next;
      }
      return -ENOSPC;
    }
    if (index == 0) first_capacity = capacity;
    memcpy(chunk, &fresh, sizeof fresh);
    fresh = chunk;
  }
  for (uint64_t index = last + 1; index-- > first;) {  // the chain is in reverse order
    if (data->chunks[index] != NULL) continue;
    uint8_t *next;
    memcpy(&next, fresh, sizeof next);
    memset(fresh, 0, 8);  // the chain link (a pointer fits): a fresh chunk is all zeros
    data->chunks[index] = fresh;
    if (index == 0) data->first_capacity = first_capacity;
    data->held += chunk_capacity(data, index);
    fresh = next;
  }
  return 0;
}

// A write inside one chunk that already holds the range: most small writes, no reserve().
static bool write_in_place(ws_node *file, const void *buffer, size_t length, uint64_t offset) {
  const mem_data *data = file->data;
  uint64_t index = offset >> MEM_CHUNK_SHIFT;
  uint32_t within = (uint32_t)(offset & (MEM_CHUNK_BYTES - 1));
  if (data == NULL || index >= data->table_size || data->chunks[index] == NULL) return false;
  uint32_t capacity = chunk_capacity(data, index);
  if (within >= capacity || length > capacity - within) return false;
  memcpy(data->chunks[index] + within, buffer, length);
  if (offset + length > file->size) file->size = offset + length;
  return true;
}

// A lazy file about to change fetches the bytes it keeps below `end` and becomes an ordinary one.
static int settle(ws_node *file, uint64_t end) {
  const mem_data *data = file->data;
  return data != NULL && data->source != NULL ? _ws_mem_lazy_settle(file, end) : 0;
}

int64_t _ws_mem_file_write(ws_node *file, const void *buffer, size_t length, uint64_t offset) {
  if (length == 0) return 0;
  int error = settle(file, UINT64_MAX);
  if (error != 0) return error;
  if (write_in_place(file, buffer, length, offset)) return (int64_t)length;
  error = reserve(file, offset, length);
  if (error != 0) return error;
  const mem_data *data = file->data;
  const uint8_t *in = buffer;
  for (uint64_t done = 0; done < length;) {
    uint64_t at = offset + done;
    uint32_t within = (uint32_t)(at & (MEM_CHUNK_BYTES - 1));
    size_t piece = MEM_CHUNK_BYTES - within;
    if (piece > length - done) piece = (size_t)(length - done);
    memcpy(data->chunks[at >> MEM_CHUNK_SHIFT] + within, in + done, piece);
    done += piece;
  }
  if (offset + length > file->size) file->size = offset + length;
  update_blocks(file);
  return (int64_t)length;
}

int _ws_mem_file_allocate(ws_node *file, uint64_t offset, uint64_t length) {
  int error = settle(file, UINT64_MAX);
  if (error != 0) return error;
  error = reserve(file, offset, length);
  if (error != 0) return error;
  if (offset + length > file->size) file->size = offset + length;
  update_blocks(file);
  return 0;
}

int _ws_mem_file_truncate(ws_node *file, uint64_t size) {
  if (size > MEM_MAX_FILE_BYTES) return -EFBIG;
  int error = settle(file, size);
  if (error != 0) return error;
  mem_data *data = file->data;
  if (data != NULL && size < file->size) {
    uint64_t keep = (size + MEM_CHUNK_BYTES - 1) >> MEM_CHUNK_SHIFT;  // chunks still (partly) inside
    for (uint64_t index = keep; index < data->table_size; index++) {
      if (data->chunks[index] != NULL) data->held -= chunk_capacity(data, index);
      free(data->chunks[index]);
      data->chunks[index] = NULL;
    }
    uint32_t within = (uint32_t)(size & (MEM_CHUNK_BYTES - 1));
    uint64_t tail = size >> MEM_CHUNK_SHIFT;
    if (within != 0 && tail < data->table_size && data->chunks[tail] != NULL) {
      uint32_t capacity = chunk_capacity(data, tail);
      if (within < capacity) memset(data->chunks[tail] + within, 0, capacity - within);
    }
  }
  file->size = size;
  update_blocks(file);
  return 0;
}

void _ws_mem_file_free(mem_data *data) {
  if (data == NULL) return;
  _ws_mem_lazy_free(data->source);
  for (uint32_t i = 0; i < data->table_size; i++) free(data->chunks[i]);
  free(data->chunks);
  free(data);
}
