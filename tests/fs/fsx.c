// fsx-style random operations: writes, truncates and reads at random offsets on one file,
// checked byte for byte against a copy kept in memory. Offsets cross the memory backend's
// 64 KiB chunks and leave holes. The seed is fixed unless given as an argument or in
// WS_FSX_SEED (Emscripten programs do not see the host's environment: the test passes it on);
// a failure prints the seed and the operation that went wrong, so it can be replayed.
//   fsx [operations] [seed]
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"

#define MAX_FILE (300 * 1024)  // several chunks
#define MAX_IO (70 * 1024)     // a write may span two chunk boundaries

static uint64_t state;
static uint64_t next_random(void) {  // splitmix64: the same sequence on every platform
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint64_t below(uint64_t limit) { return limit == 0 ? 0 : next_random() % limit; }

static unsigned char shadow[MAX_FILE + MAX_IO], buffer[MAX_FILE + MAX_IO];
static long long shadow_size;
static uint64_t seed;

static int fail(long operation, const char *what, long long offset, long long length) {
  printf("fsx: seed %" PRIu64 ", operation %ld: %s at %lld (+%lld): %s\n", seed, operation, what, offset, length,
         strerror(errno));
  return 1;
}

int main(int argc, char **argv) {
  long operations = argc > 1 ? atol(argv[1]) : 4000;
  const char *given = argc > 2 ? argv[2] : getenv("WS_FSX_SEED");
  seed = given != NULL && *given ? strtoull(given, NULL, 10) : 20261122;
  state = seed;
  char dir[256];
  if (enter_scratch_dir("fsx", dir, sizeof dir) != 0) return fail(0, "scratch directory", 0, 0);
  int fd = (int)t_open("file", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return fail(0, "open", 0, 0);
  long counts[4] = {0};
  for (long op = 1; op <= operations; op++) {
    int kind = (int)below(10);
    long long offset = (long long)below(MAX_FILE), length = (long long)below(MAX_IO) + 1;
    if (kind < 4) {  // write
      for (long long i = 0; i < length; i++) buffer[i] = (unsigned char)next_random();
      if (offset + length > MAX_FILE) length = MAX_FILE - offset;
      if (t_pwrite(fd, buffer, (size_t)length, offset) != length) return fail(op, "write", offset, length);
      if (offset > shadow_size) memset(shadow + shadow_size, 0, (size_t)(offset - shadow_size));
      memcpy(shadow + offset, buffer, (size_t)length);
      if (offset + length > shadow_size) shadow_size = offset + length;
      counts[0]++;
    } else if (kind < 5) {  // truncate, shorter or longer
      if (t_ftruncate(fd, offset) != 0) return fail(op, "truncate", offset, 0);
      if (offset > shadow_size) memset(shadow + shadow_size, 0, (size_t)(offset - shadow_size));
      shadow_size = offset;
      counts[1]++;
    } else {  // read, sometimes past the end
      long got = t_pread(fd, buffer, (size_t)length, offset);
      long long expected = offset >= shadow_size ? 0 : (offset + length > shadow_size ? shadow_size - offset : length);
      if (got != expected) {
        errno = 0;
        printf("fsx: read returned %ld, expected %lld\n", got, expected);
        return fail(op, "read length", offset, length);
      }
      for (long i = 0; i < got; i++) {
        if (buffer[i] != shadow[offset + i]) {
          printf("fsx: byte %lld is %d, expected %d\n", offset + i, buffer[i], shadow[offset + i]);
          errno = 0;
          return fail(op, "read data", offset, length);
        }
      }
      counts[2]++;
    }
    if (op % 64 == 0 && t_size(fd) != shadow_size) {
      printf("fsx: size %lld, expected %lld\n", t_size(fd), shadow_size);
      return fail(op, "size", 0, 0);
    }
  }
  t_close(fd);
  t_unlink("file");
  t_chdir("/");
  t_rmdir(dir);
  printf("fsx: seed %" PRIu64 ": %ld operations (%ld writes, %ld truncates, %ld reads) matched\n", seed, operations,
         counts[0], counts[1], counts[2]);
  return 0;
}
