// The memory backend's footprint, as st_blocks reports it (the bytes a file holds / 512): a
// file's first 64 KiB chunk grows by doubling from 64 bytes to what the file's end needs, later
// chunks are whole, a hole holds nothing, and truncation gives chunks back; a file ends at 1 TiB. Bytes a file grows
// over read as zeros, whatever the memory held before. wasmscale only (Linux's blocks are its
// own file system's): natively on the core, and in Wasm.
//   memory_use
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "calls.h"
#define CHECK_NAME "memory_use"
#include "check.h"

enum { CHUNK = 65536 };

static long long blocks_of(int fd) {
  t_stat_t info;
  return t_fstat(fd, &info) == 0 ? (long long)T_BLOCKS(info) : -1;
}

static int fresh(const char *name) { return (int)t_open(name, O_RDWR | O_CREAT | O_TRUNC, 0644); }

static void write_at(int fd, long long offset, size_t length, unsigned char byte) {
  static unsigned char bytes[3 * CHUNK];
  memset(bytes, byte, length);
  CHECK(t_pwrite(fd, bytes, length, offset) == (long)length, "write %zu bytes at %lld", length, offset);
}

// Whether [offset, offset + length) reads as `byte` throughout.
static int reads_as(int fd, long long offset, size_t length, unsigned char byte) {
  static unsigned char bytes[3 * CHUNK];
  if (t_pread(fd, bytes, length, offset) != (long)length) return 0;
  for (size_t i = 0; i < length; i++) {
    if (bytes[i] != byte) return 0;
  }
  return 1;
}

int main(void) {
  char dir[256];
  if (enter_scratch_dir("memory_use", dir, sizeof dir) != 0) return 1;

  int fd = fresh("a");
  write_at(fd, 0, 4000, 'a');
  CHECK(blocks_of(fd) == 4096 / 512, "4000 bytes hold 4096 (64 doubled): %lld blocks", blocks_of(fd));
  t_close(fd);

  fd = fresh("b");
  write_at(fd, 0, 10, 'b');
  write_at(fd, 10, 8182, 'b');  // chunk 0 grows from 64 to exactly 8192 bytes
  CHECK(blocks_of(fd) == 8192 / 512, "8192 bytes hold 8192: %lld blocks", blocks_of(fd));
  t_close(fd);

  fd = fresh("c");
  write_at(fd, 0, 10, 'c');
  CHECK(blocks_of(fd) == 0, "10 bytes hold 64: %lld blocks", blocks_of(fd));
  write_at(fd, 5000, 1, 'C');  // chunk 0 grows from 64 to 8192 bytes
  CHECK(blocks_of(fd) == 8192 / 512, "5001 bytes hold 8192: %lld blocks", blocks_of(fd));
  CHECK(reads_as(fd, 10, 4990, 0), "the bytes grown over read as zeros");
  CHECK(reads_as(fd, 5000, 1, 'C') && reads_as(fd, 0, 10, 'c'), "the bytes written");
  CHECK(t_ftruncate(fd, 100) == 0 && t_ftruncate(fd, 8192) == 0, "truncate to 100, then to 8192");
  CHECK(reads_as(fd, 100, 8092, 0), "bytes cut by a truncation read as zeros when the file grows again");
  CHECK(t_ftruncate(fd, 0) == 0 && blocks_of(fd) == 0, "truncated to 0, it holds nothing: %lld blocks", blocks_of(fd));
  t_close(fd);

  fd = fresh("d");
  write_at(fd, 3 * CHUNK + 5, 10, 'd');  // a hole of three chunks, then one chunk
  CHECK(blocks_of(fd) == CHUNK / 512, "a hole holds nothing: %lld blocks", blocks_of(fd));
  CHECK(reads_as(fd, 0, 3 * CHUNK, 0), "a hole reads as zeros");
  write_at(fd, CHUNK - 5, 10, 'e');  // across chunks 0 and 1: both whole
  CHECK(blocks_of(fd) == 3 * CHUNK / 512, "a write across two chunks: %lld blocks", blocks_of(fd));
  CHECK(t_ftruncate(fd, CHUNK + 1) == 0 && blocks_of(fd) == 2 * CHUNK / 512,
        "truncation gives whole chunks back: %lld blocks", blocks_of(fd));
  // A file ends at 1 TiB (which bounds a sparse file's chunk table): EFBIG past it.
  const long long most = 1ll << 40;
  CHECK(t_ftruncate(fd, most) == 0 && t_size(fd) == most, "a file of 1 TiB, all hole");
  errno = 0;
  CHECK(t_ftruncate(fd, most + 1) == -1 && errno == EFBIG, "truncate past 1 TiB: EFBIG");
  CHECK(t_ftruncate(fd, 100 * CHUNK) == 0 && blocks_of(fd) == 2 * CHUNK / 512,
        "shrunk to 100 chunks, past the chunks it ever had: %lld blocks", blocks_of(fd));
  t_stat_t before, after;
  t_fstat(fd, &before);
  usleep(20000);
  errno = 0;
  CHECK(t_pwrite(fd, "x", 1, most) == -1 && errno == EFBIG, "a write at 1 TiB: EFBIG");
  t_fstat(fd, &after);
  CHECK(T_MTIME(after).tv_sec == T_MTIME(before).tv_sec && T_MTIME(after).tv_nsec == T_MTIME(before).tv_nsec,
        "a failed write leaves the modification time");
  t_close(fd);

  if (failures != 0) {
    printf("memory_use: %d failures\n", failures);
    return 1;
  }
  printf("memory_use: chunks held as designed, grown bytes zero\n");
  return 0;
}
