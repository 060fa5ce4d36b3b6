// Lazy files in Wasm (made by tests/fs/lazy_fetch.pre.js with FS.createLazyFile): THREADS
// threads read random ranges of /lazy.bin and of /whole.bin at once, each fetching the blocks
// it needs itself, and compare every byte with the source's pattern; a write to /whole.bin
// fetches the rest of it, then reads back the bytes written. Prints one line per result.
//   lazy_fetch THREADS READS
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SIZE = 2700000, MOST = 300000 };  // the source's bytes (tests/fs.test.mjs writes it)

static int threads, reads;
static _Atomic int wrong, done;

// Every byte from its offset, by multiplicative hashing: no two blocks alike.
static unsigned char pattern(long i) { return (unsigned char)(((uint32_t)i * 2654435761u) >> 13); }

static void *reader(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  unsigned char *buffer = malloc(MOST);
  const char *path = seed % 2 ? "/lazy.bin" : "/whole.bin";
  int fd = open(path, O_RDONLY);
  for (int i = 0; buffer != NULL && fd >= 0 && i < reads; i++) {
    long offset = rand_r(&seed) % SIZE, length = 1 + rand_r(&seed) % MOST;
    if (length > SIZE - offset) length = SIZE - offset;
    int right = pread(fd, buffer, (size_t)length, offset) == length;
    for (long j = 0; right && j < length; j++) right = buffer[j] == pattern(offset + j);
    atomic_fetch_add(right ? &done : &wrong, 1);
  }
  if (fd < 0 || buffer == NULL) atomic_fetch_add(&wrong, 1);
  if (fd >= 0) close(fd);
  free(buffer);
  return NULL;
}

int main(int argc, char **argv) {
  threads = argc > 1 ? atoi(argv[1]) : 4;
  reads = argc > 2 ? atoi(argv[2]) : 20;
  struct stat info;
  printf("lazy_fetch: stat: %lld bytes, mode %o\n", stat("/lazy.bin", &info) == 0 ? (long long)info.st_size : -1LL,
         (unsigned)info.st_mode & 0777);
  pthread_t ids[64];
  for (int i = 0; i < threads && i < 64; i++) pthread_create(&ids[i], NULL, reader, (void *)(uintptr_t)(i + 1));
  for (int i = 0; i < threads && i < 64; i++) pthread_join(ids[i], NULL);
  printf("lazy_fetch: %d threads, %d reads matched, %d wrong\n", threads, atomic_load(&done), atomic_load(&wrong));

  int fd = open("/whole.bin", O_RDWR);
  char back[4] = {0};
  int written = fd >= 0 && pwrite(fd, "WXYZ", 4, SIZE - 2) == 4 && pread(fd, back, 4, SIZE - 2) == 4;
  unsigned char first[2];
  written = written && pread(fd, first, 2, 1) == 2 && first[0] == pattern(1) && first[1] == pattern(2);
  if (fstat(fd, &info) != 0) info.st_size = -1;
  printf("lazy_fetch: written: %s, size %lld\n", written && memcmp(back, "WXYZ", 4) == 0 ? "read back" : "lost",
         (long long)info.st_size);
  if (fd >= 0) close(fd);
  return 0;
}
