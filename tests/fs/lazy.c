// Lazy files (_ws_fs_create_lazy, Emscripten's createLazyFile), natively on the core, whose
// sources are files of the host's (ws_prim_fetch reads paths natively). Changing or removing
// the source after a read shows what was fetched when:
// - nothing is fetched at creation; a read fetches the 1 MiB blocks it touches, once: a block
//   read before the source changed keeps its old bytes, one read after shows the new ones;
// - stat gives the size and mode given, st_blocks the whole size; reads across blocks, at the
//   end and past it; an empty lazy file;
// - four threads reading random ranges at once all see the source's bytes (run under TSan too);
// - a write fetches the whole file first, a truncate what it keeps, an O_TRUNC open nothing:
//   afterwards each is an ordinary file that needs its source no more;
// - a source gone or shorter than the size given makes a read of a block not yet fetched fail
//   with EIO (a later read tries again), and the blocks already fetched still read; a change
//   that cannot fetch what it keeps fails with EIO and changes nothing; an http URL natively is
//   EOPNOTSUPP;
// - creating over an existing name is EEXIST, in a host mount EOPNOTSUPP, with "" as the URL
//   ENOENT, with none EFAULT.
//   lazy HOST_DIR
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"
#define CHECK_NAME "lazy"
#include "check.h"
#include "wasmscale/fs.h"

enum { MIB = 1 << 20, SIZE = 3 * MIB + MIB / 2, THREADS = 4, READS = 200 };

static char source_path[512];
static unsigned char expected[SIZE], back[SIZE];

// Every byte from its offset, by multiplicative hashing (no two blocks alike), and the version.
static unsigned char pattern(size_t i, int version) {
  return (unsigned char)((((uint32_t)i * 2654435761u) >> 13) + (unsigned)version * 101);
}

// Writes the source with `size` bytes of pattern `version`.
static void write_source(size_t size, int version) {
  for (size_t i = 0; i < size; i++) expected[i] = pattern(i, version);
  FILE *out = fopen(source_path, "wb");
  CHECK(out != NULL && fwrite(expected, 1, size, out) == size && fclose(out) == 0, "write the source %s", source_path);
}

static bool reads_as(int fd, size_t offset, size_t length, int version) {
  if (t_pread(fd, back, length, (long long)offset) != (long)length) return false;
  for (size_t i = 0; i < length; i++) {
    if (back[i] != pattern(offset + i, version)) return false;
  }
  return true;
}

static void fetched_on_first_read(void) {
  write_source(SIZE, 1);
  CHECK(_ws_fs_create_lazy("/lazy", source_path, SIZE, 0444) == 0, "create /lazy");
  ws_stat info;
  CHECK(t_stat("/lazy", &info) == 0 && info.size == SIZE && info.mode == (S_IFREG | 0444), "stat /lazy");
  CHECK(info.blocks == (SIZE + 511) / 512, "st_blocks counts the whole file, fetched or not");
  CHECK(_ws_fs_create_lazy("/empty", source_path, 0, 0444) == 0 && t_stat("/empty", &info) == 0 && info.size == 0,
        "an empty lazy file");
  int empty = (int)t_open("/empty", O_RDONLY, 0);
  CHECK(empty >= 0 && t_read(empty, back, 10) == 0, "reads nothing");
  if (empty >= 0) t_close(empty);
  write_source(SIZE, 2);  // nothing was fetched yet: every read sees version 2
  int fd = (int)t_open("/lazy", O_RDONLY, 0);
  CHECK(fd >= 0 && reads_as(fd, 100, 1000, 2), "the first block, read after the source changed");
  write_source(SIZE, 3);
  CHECK(reads_as(fd, 0, MIB, 2), "the first block again: fetched once");
  CHECK(t_pread(fd, back, 20, MIB - 10) == 20, "a read across into the second block");
  CHECK(reads_as(fd, MIB - 10, 10, 2) && reads_as(fd, MIB, 10, 3), "which fetched the second block only");
  CHECK(reads_as(fd, SIZE - 5, 5, 3), "the last bytes");
  CHECK(t_pread(fd, back, 100, SIZE - 5) == 5 && t_pread(fd, back, 100, SIZE) == 0, "reads end at the size");
  if (fd >= 0) t_close(fd);
}

static int wrong_reads;

static void *reader(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  int fd = (int)t_open("/shared", O_RDONLY, 0);
  static __thread unsigned char mine[64 * 1024];
  for (int i = 0; fd >= 0 && i < READS; i++) {
    size_t offset = (size_t)rand_r(&seed) % SIZE, length = 1 + (size_t)rand_r(&seed) % sizeof mine;
    if (length > SIZE - offset) length = SIZE - offset;
    bool right = t_pread(fd, mine, length, (long long)offset) == (long)length;
    for (size_t j = 0; right && j < length; j++) right = mine[j] == pattern(offset + j, 4);
    if (!right) __atomic_fetch_add(&wrong_reads, 1, __ATOMIC_RELAXED);
  }
  if (fd >= 0) t_close(fd);
  return NULL;
}

static void threads_read_together(void) {
  write_source(SIZE, 4);
  CHECK(_ws_fs_create_lazy("/shared", source_path, SIZE, 0444) == 0, "create /shared");
  pthread_t threads[THREADS];
  for (uintptr_t i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, reader, (void *)(i + 1));
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  CHECK(wrong_reads == 0, "%d of the threads' reads gave other bytes", wrong_reads);
}

static void changes_settle(void) {
  write_source(SIZE, 5);
  CHECK(_ws_fs_create_lazy("/written", source_path, SIZE, 0644) == 0, "create /written");
  int fd = (int)t_open("/written", O_RDWR, 0);
  CHECK(fd >= 0 && t_pwrite(fd, "XY", 2, MIB + 3) == 2, "write into the second block");
  remove(source_path);
  CHECK(reads_as(fd, 0, MIB + 3, 5) && reads_as(fd, MIB + 5, SIZE - MIB - 5, 5), "every byte fetched before the write");
  CHECK(t_pread(fd, back, 2, MIB + 3) == 2 && memcmp(back, "XY", 2) == 0, "the bytes written");
  if (fd >= 0) t_close(fd);

  write_source(SIZE, 6);
  CHECK(_ws_fs_create_lazy("/truncated", source_path, SIZE, 0644) == 0, "create /truncated");
  CHECK(_ws_fs_truncate("/truncated", MIB + MIB / 2) == 0, "truncate it into its second block");
  remove(source_path);
  fd = (int)t_open("/truncated", O_RDWR, 0);
  CHECK(fd >= 0 && t_size(fd) == MIB + MIB / 2, "its size");
  CHECK(reads_as(fd, 0, MIB + MIB / 2, 6), "what it keeps, fetched before the truncate");
  CHECK(t_ftruncate(fd, 2 * MIB) == 0 && t_pread(fd, back, MIB / 2, MIB + MIB / 2) == MIB / 2 && back[0] == 0 &&
            back[MIB / 2 - 1] == 0, "grown again, zeros");
  if (fd >= 0) t_close(fd);

  CHECK(_ws_fs_create_lazy("/emptied", "/no/such/source", SIZE, 0644) == 0, "create /emptied");
  fd = (int)t_open("/emptied", O_RDWR | O_TRUNC, 0);
  CHECK(fd >= 0 && t_write(fd, "new", 3) == 3 && t_pread(fd, back, 10, 0) == 3, "O_TRUNC fetches nothing");
  if (fd >= 0) t_close(fd);
}

static void source_failures(void) {
  write_source(2 * MIB + MIB / 2, 7);
  CHECK(_ws_fs_create_lazy("/short", source_path, SIZE, 0444) == 0, "create /short, larger than its source");
  int fd = (int)t_open("/short", O_RDONLY, 0);
  CHECK(fd >= 0 && reads_as(fd, 0, 2 * MIB, 7), "the blocks the source has whole");
  errno = 0;
  CHECK(t_pread(fd, back, 10, 2 * MIB + MIB / 4) == -1 && errno == EIO, "the block it has only part of: EIO");
  CHECK(t_pread(fd, back, 10, 3 * MIB) == -1 && errno == EIO, "the block it lacks: EIO");
  remove(source_path);
  CHECK(reads_as(fd, MIB, MIB, 7), "blocks fetched still read once the source is gone");
  write_source(SIZE, 7);
  CHECK(reads_as(fd, 2 * MIB, SIZE - 2 * MIB, 7), "a failed block is fetched again by a later read");
  if (fd >= 0) t_close(fd);

  CHECK(_ws_fs_create_lazy("/stuck", source_path, SIZE, 0644) == 0, "create /stuck");
  remove(source_path);
  fd = (int)t_open("/stuck", O_RDWR, 0);
  errno = 0;
  CHECK(t_pwrite(fd, "x", 1, 0) == -1 && errno == EIO, "a write that cannot fetch the file first: EIO");
  errno = 0;
  CHECK(t_fallocate(fd, 0, 1) == -1 && errno == EIO, "so does fallocate");
  errno = 0;
  CHECK(t_ftruncate(fd, MIB) == -1 && errno == EIO, "and a truncate that keeps a block");
  CHECK(t_size(fd) == SIZE, "the size stays");
  if (fd >= 0) t_close(fd);

  CHECK(_ws_fs_create_lazy("/remote", "http://127.0.0.1/file", 10, 0444) == 0, "create /remote");
  fd = (int)t_open("/remote", O_RDONLY, 0);
  errno = 0;
  CHECK(t_pread(fd, back, 10, 0) == -1 && errno == EOPNOTSUPP, "an http URL natively: EOPNOTSUPP");
  CHECK(_ws_fs_fstat(fd, &(ws_stat){0}) == 0, "the file is still there");
  if (fd >= 0) t_close(fd);
}

static void refusals(const char *host_dir) {
  CHECK(_ws_fs_create_lazy("/x", NULL, 1, 0444) == -EFAULT, "without a URL: EFAULT");
  CHECK(_ws_fs_create_lazy("/lazy", source_path, 1, 0444) == -EEXIST, "over an existing file: EEXIST");
  CHECK(_ws_fs_create_lazy("/nowhere/x", source_path, 1, 0444) == -ENOENT, "in a missing directory: ENOENT");
  CHECK(_ws_fs_create_lazy("/x", "", 1, 0444) == -ENOENT, "with an empty URL: ENOENT");
  CHECK(t_mkdir("/h", 0755) == 0 && ws_fs_mount("/h", ws_fs_host_backend(), host_dir) == 0, "mount the host at /h");
  CHECK(_ws_fs_create_lazy("/h/x", source_path, 1, 0444) == -EOPNOTSUPP, "in a host mount: EOPNOTSUPP");
  CHECK(ws_fs_unmount("/h") == 0, "unmount /h");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("lazy: usage: lazy HOST_DIR\n");
    return 2;
  }
  snprintf(source_path, sizeof source_path, "%s/lazy-source", argv[1]);
  fetched_on_first_read();
  threads_read_together();
  changes_settle();
  source_failures();
  refusals(argv[1]);
  for (const char *const *name = (const char *const[]){"/lazy", "/empty", "/shared", "/written", "/truncated",
                                                        "/emptied", "/short", "/stuck", "/remote", NULL};
       *name; name++) {
    CHECK(t_unlink(*name) == 0, "unlink %s", *name);
  }
  if (failures != 0) {
    printf("lazy: %d failures\n", failures);
    return 1;
  }
  printf("lazy: fetched on first read, in blocks, by threads together; settled by changes; failures as errno\n");
  return 0;
}
