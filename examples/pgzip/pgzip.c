// A parallel gzip: compresses every regular file of a directory on N threads with zlib (built
// from zlib-ng, a third-party CMake project), writing NAME.gz for each into another directory.
// Threads take the files one at a time; each reads its file whole, deflates it into a gzip
// stream and writes it out. Plain POSIX and zlib: where the files live is decided at build time.
//   pgzip THREADS INPUT_DIR OUTPUT_DIR
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

enum { MAX_THREADS = 64, MAX_FILES = 100000 };

static const char *input_dir, *output_dir;
static char **names;
static int file_count;
static _Atomic int next_file, failures;
static _Atomic unsigned long long bytes_in, bytes_out;

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

// The regular files of INPUT_DIR, sorted; -1 when it cannot be read.
static int list_files(void) {
  DIR *dir = opendir(input_dir);
  if (dir == NULL) return -1;
  names = malloc(MAX_FILES * sizeof *names);
  for (struct dirent *entry; names != NULL && (entry = readdir(dir)) != NULL && file_count < MAX_FILES;) {
    char path[4096];
    struct stat info;
    snprintf(path, sizeof path, "%s/%s", input_dir, entry->d_name);
    if (stat(path, &info) == 0 && S_ISREG(info.st_mode)) names[file_count++] = strdup(entry->d_name);
  }
  closedir(dir);
  if (names == NULL) return -1;
  qsort(names, (size_t)file_count, sizeof *names, by_name);
  return 0;
}

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

static int compress_file(const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", input_dir, name);
  size_t size = 0;
  unsigned char *data = read_whole(path, &size), *packed = NULL;
  if (data == NULL) {
    printf("pgzip: cannot read %s: %s\n", path, strerror(errno));
    return -1;
  }
  size_t packed_size = gzip(data, size, &packed);
  free(data);
  snprintf(path, sizeof path, "%s/%s.gz", output_dir, name);
  FILE *out = packed_size > 0 ? fopen(path, "wb") : NULL;
  bool written = out != NULL && fwrite(packed, 1, packed_size, out) == packed_size;
  if (out != NULL && fclose(out) != 0) written = false;
  free(packed);
  if (!written) {
    printf("pgzip: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  atomic_fetch_add(&bytes_in, size);
  atomic_fetch_add(&bytes_out, packed_size);
  return 0;
}

static void *worker(void *arg) {
  (void)arg;
  for (int i; (i = atomic_fetch_add(&next_file, 1)) < file_count;) {
    if (compress_file(names[i]) != 0) atomic_fetch_add(&failures, 1);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 0;
  if (argc != 4 || threads < 1 || threads > MAX_THREADS) {
    printf("pgzip: usage: pgzip THREADS(1-%d) INPUT_DIR OUTPUT_DIR\n", MAX_THREADS);
    return 2;
  }
  input_dir = argv[2];
  output_dir = argv[3];
  if (list_files() != 0) {
    printf("pgzip: cannot list %s: %s\n", input_dir, strerror(errno));
    return 1;
  }
  mkdir(output_dir, 0755);
  pthread_t ids[MAX_THREADS];
  for (int t = 0; t < threads; t++) pthread_create(&ids[t], NULL, worker, NULL);
  for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  if (failures != 0) {
    printf("pgzip: %d files failed\n", failures);
    return 1;
  }
  printf("pgzip: %d files, %llu bytes in, %llu bytes out, %d threads, zlib %s\n", file_count,
         (unsigned long long)bytes_in, (unsigned long long)bytes_out, threads, zlibVersion());
  return 0;
}
