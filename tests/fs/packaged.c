// Files packaged at build time (wasmscale-cc --preload-file / --embed-file): lists every
// directory and file under the roots named on the command line, one line each with the
// file's size and checksum, for the test to compare with the host's copies; then 4 threads
// read every file again at once and must see the same bytes, and a packaged file is
// rewritten to show it is an ordinary file.
//   usage: packaged ROOT...      prints "dir PATH" and "file PATH SIZE FNV1A", then a verdict
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 64
#define THREADS 4

static char *paths[MAX_FILES];
static uint32_t sums[MAX_FILES];
static int files, failures;

static uint32_t checksum_of(const char *path, long long *size) {
  int fd = open(path, O_RDONLY);
  uint32_t hash = 2166136261u;
  *size = fd < 0 ? -1 : 0;
  unsigned char buffer[4096];
  for (long got; fd >= 0 && (got = read(fd, buffer, sizeof buffer)) > 0; *size += got) {
    for (long i = 0; i < got; i++) hash = (hash ^ buffer[i]) * 16777619u;
  }
  if (fd >= 0) close(fd);
  return hash;
}

static void walk(const char *path) {
  struct stat info;
  if (stat(path, &info) != 0) {
    printf("missing %s\n", path);
    failures++;
    return;
  }
  if (S_ISREG(info.st_mode)) {
    long long size;
    uint32_t sum = checksum_of(path, &size);
    printf("file %s %lld %08x\n", path, size, sum);
    if (files < MAX_FILES) {
      paths[files] = strdup(path);
      sums[files++] = sum;
    }
    return;
  }
  printf("dir %s\n", path);
  DIR *dir = opendir(path);
  char *names[MAX_FILES];
  int count = 0;
  for (struct dirent *entry; dir != NULL && (entry = readdir(dir)) != NULL;) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0 && count < MAX_FILES) {
      names[count++] = strdup(entry->d_name);
    }
  }
  if (dir != NULL) closedir(dir);
  for (int i = 0; i < count; i++) {
    char child[1024];
    snprintf(child, sizeof child, "%s/%s", path, names[i]);
    walk(child);
    free(names[i]);
  }
}

static void *reread(void *unused) {
  (void)unused;
  for (int i = 0; i < files; i++) {
    long long size;
    if (checksum_of(paths[i], &size) != sums[i]) {
      printf("a thread read %s differently\n", paths[i]);
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) walk(argv[i]);
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, reread, NULL);
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  if (files > 0) {  // packaged files are ordinary files: they can be rewritten
    FILE *out = fopen(paths[0], "w");
    if (out == NULL || fputs("changed", out) < 0 || fclose(out) != 0) {
      printf("%s cannot be rewritten\n", paths[0]);
      failures++;
    }
  }
  printf("packaged: %d files, %s\n", files, failures == 0 ? "all threads agree" : "FAILED");
  return failures == 0 ? 0 : 1;
}
