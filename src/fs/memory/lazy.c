// Lazy files (Emscripten's createLazyFile): memory files whose bytes stay at a URL until read.
// The file's chunk table is made for its whole size at once; a read fetches each block it
// touches (MEM_FETCH_CHUNKS chunks, one request) that no read fetched before, on the reading
// thread (ws_prim_fetch), and installs its chunks. Readers hold the node's lock shared, so
// fetches are serialized by the source's own mutex, and a block's flag, set once its chunks are
// in place, lets later readers past without it. Chunk 0 is full-sized from the start: a
// reader never sees it moved. A change first fetches what it keeps and drops the source; from
// then on the file is an ordinary memory file (file.c).
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

#define MEM_FETCH_CHUNKS 16  // chunks fetched together (1 MiB): one request each
#define BLOCK_BYTES ((uint64_t)MEM_FETCH_CHUNKS * MEM_CHUNK_BYTES)

struct mem_source {
  pthread_mutex_t lock;     // one fetch at a time
  uint64_t size;            // the source's bytes: the file's size while it has a source
  _Atomic uint8_t *loaded;  // per block: its chunks hold the source's bytes
  char url[];
};

int _ws_mem_lazy_data(const char *url, uint64_t size, mem_data **out) {
  uint64_t chunks = (size + MEM_CHUNK_BYTES - 1) >> MEM_CHUNK_SHIFT;
  uint64_t blocks = (chunks + MEM_FETCH_CHUNKS - 1) / MEM_FETCH_CHUNKS;
  size_t url_bytes = strlen(url) + 1;
  mem_data *data = calloc(1, sizeof *data);
  mem_source *source = calloc(1, sizeof *source + url_bytes);
  _Atomic uint8_t *loaded = calloc(blocks > 0 ? blocks : 1, sizeof *loaded);
  uint8_t **table = calloc(chunks > 0 ? chunks : 1, sizeof *table);
  if (data == NULL || source == NULL || loaded == NULL || table == NULL || pthread_mutex_init(&source->lock, NULL) != 0) {
    free(data), free(source), free(loaded), free(table);
    return -ENOSPC;
  }
  memcpy(source->url, url, url_bytes);
  source->size = size;
  source->loaded = loaded;
  *data = (mem_data){.chunks = table, .table_size = (uint32_t)chunks, .first_capacity = MEM_CHUNK_BYTES, .source = source};
  *out = data;
  return 0;
}

// Fetches `length` bytes at `offset` of the source into `buffer`: all of them, or -EIO (the
// source is shorter than when the file was made) or the platform's -errno.
static int fetch_exactly(const mem_source *source, uint8_t *buffer, size_t length, uint64_t offset) {
  for (size_t done = 0; done < length;) {
    int64_t got = ws_prim_fetch(source->url, buffer + done, length - done, offset + done);
    if (got < 0) return (int)got;
    if (got == 0) return -EIO;
    done += (size_t)got;
  }
  return 0;
}

// Fetches block `block` and installs its chunks (the source's mutex held). On failure nothing
// is installed and a later read tries again.
static int fetch_block(mem_data *data, uint64_t block) {
  mem_source *source = data->source;
  uint64_t start = block * BLOCK_BYTES;
  size_t bytes = (size_t)(source->size - start < BLOCK_BYTES ? source->size - start : BLOCK_BYTES);
  uint32_t first = (uint32_t)(block * MEM_FETCH_CHUNKS), count = (uint32_t)((bytes + MEM_CHUNK_BYTES - 1) >> MEM_CHUNK_SHIFT);
  uint8_t *chunks[MEM_FETCH_CHUNKS] = {0}, *buffer = malloc(bytes);
  int error = buffer != NULL ? 0 : -ENOMEM;
  for (uint32_t i = 0; error == 0 && i < count; i++) {
    if ((chunks[i] = calloc(1, MEM_CHUNK_BYTES)) == NULL) error = -ENOMEM;
  }
  if (error == 0) error = fetch_exactly(source, buffer, bytes, start);
  for (uint32_t i = 0; i < count; i++) {
    if (error != 0) {
      free(chunks[i]);
      continue;
    }
    size_t offset = (size_t)i * MEM_CHUNK_BYTES, piece = bytes - offset < MEM_CHUNK_BYTES ? bytes - offset : MEM_CHUNK_BYTES;
    memcpy(chunks[i], buffer + offset, piece);
    data->chunks[first + i] = chunks[i];
    data->held += MEM_CHUNK_BYTES;
  }
  free(buffer);
  if (error == 0) atomic_store_explicit(&source->loaded[block], 1, memory_order_release);
  return error;
}

int _ws_mem_lazy_load(ws_node *file, uint64_t offset, uint64_t length) {
  mem_data *data = file->data;
  mem_source *source = data->source;
  if (offset >= source->size) return 0;
  uint64_t end = length < source->size - offset ? offset + length : source->size;
  for (uint64_t block = offset / BLOCK_BYTES; block * BLOCK_BYTES < end; block++) {
    if (atomic_load_explicit(&source->loaded[block], memory_order_acquire)) continue;
    pthread_mutex_lock(&source->lock);
    int error = atomic_load_explicit(&source->loaded[block], memory_order_relaxed) ? 0 : fetch_block(data, block);
    pthread_mutex_unlock(&source->lock);
    if (error != 0) return error;
  }
  return 0;
}

int _ws_mem_lazy_settle(ws_node *file, uint64_t end) {
  mem_data *data = file->data;
  int error = _ws_mem_lazy_load(file, 0, end);
  if (error != 0) return error;
  _ws_mem_lazy_free(data->source);
  data->source = NULL;
  return 0;
}

void _ws_mem_lazy_free(mem_source *source) {
  if (source == NULL) return;
  pthread_mutex_destroy(&source->lock);
  free(source->loaded);
  free(source);
}
