// A parallel gzip: compresses every regular file of a directory on N threads with zlib (built
// from zlib-ng, a third-party CMake project), writing NAME.gz for each into another directory.
// Threads take the files one at a time; each reads its file whole, deflates it into a gzip
// stream and writes it out. Plain POSIX and zlib: where the files live is decided at build time.
//   pgzip THREADS INPUT_DIR OUTPUT_DIR
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "gzip_file.h"

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

static int compress_file(const char *name) {
  char input[4096], output[4096];
  snprintf(input, sizeof input, "%s/%s", input_dir, name);
  snprintf(output, sizeof output, "%s/%s.gz", output_dir, name);
  size_t size_in = 0, size_out = 0;
  if (gzip_file(input, output, &size_in, &size_out) != 0) return -1;
  atomic_fetch_add(&bytes_in, size_in);
  atomic_fetch_add(&bytes_out, size_out);
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
