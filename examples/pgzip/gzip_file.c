// One file to one gzip file (gzip_file.h).
#include "gzip_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned char *read_whole(const char *path, size_t *size) {
  FILE *in = fopen(path, "rb");
  if (in == NULL) return NULL;
  size_t capacity = 1 << 16, used = 0;
  unsigned char *data = malloc(capacity);
  for (size_t got; data != NULL && (got = fread(data + used, 1, capacity - used, in)) > 0;) {
    used += got;
    if (used == capacity) {
      unsigned char *grown = realloc(data, capacity *= 2);
      if (grown == NULL) free(data);
      data = grown;
    }
  }
  if (ferror(in)) {
    free(data);
    data = NULL;
  }
  fclose(in);
  *size = used;
  return data;
}

// Deflates `data` into a gzip stream; returns its size, 0 on failure.
static size_t gzip(const unsigned char *data, size_t size, unsigned char **out) {
  z_stream stream = {0};
  if (deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
  size_t capacity = deflateBound(&stream, (uLong)size);
  *out = malloc(capacity);
  if (*out == NULL) {
    deflateEnd(&stream);
    return 0;
  }
  stream.next_in = (unsigned char *)data;
  stream.avail_in = (uInt)size;
  stream.next_out = *out;
  stream.avail_out = (uInt)capacity;
  int status = deflate(&stream, Z_FINISH);
  size_t written = stream.total_out;
  deflateEnd(&stream);
  return status == Z_STREAM_END ? written : 0;
}

int gzip_file(const char *input, const char *output, size_t *size_in, size_t *size_out) {
  size_t size = 0;
  unsigned char *data = read_whole(input, &size), *packed = NULL;
  if (data == NULL) {
    printf("pgzip: cannot read %s: %s\n", input, strerror(errno));
    return -1;
  }
  size_t packed_size = gzip(data, size, &packed);
  free(data);
  if (packed_size == 0) errno = EIO;
  FILE *out = packed_size > 0 ? fopen(output, "wb") : NULL;
  bool written = out != NULL && fwrite(packed, 1, packed_size, out) == packed_size;
  if (out != NULL && fclose(out) != 0) written = false;
  free(packed);
  if (!written) {
    printf("pgzip: cannot write %s: %s\n", output, strerror(errno));
    return -1;
  }
  *size_in = size;
  *size_out = packed_size;
  return 0;
}
