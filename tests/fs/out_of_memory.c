// Out of memory, one allocation at a time: for each k, the k-th allocation from now fails (malloc,
// calloc, realloc and aligned_alloc are wrapped around glibc's), and a sequence of calls runs on
// the core: a host mount, file creation and writes in it and in memory (one across several of
// the memory backend's chunks), record locks, flock, renames, a directory, a symlink, a
// directory of ten files, a memory mount with a file, a lazy file read in its second block, an
// unlink.
// Each call must either succeed or return a negative errno; none may crash or report a positive
// number as an error, and what a call reported made must be there. Then the failure is disarmed, the state is cleaned up (and must hold as
// many blocks as after a round where nothing failed: a failing call frees what it took), and
// the next k runs, until a whole sequence needs fewer allocations than k. First, overwriting
// bytes a memory file already holds must allocate nothing. Natively on the core, under UBSan
// only (ASan brings its own malloc).
//   out_of_memory HOST_DIR
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>

#include "calls.h"
#define SWEEP_NAME "out_of_memory"
#include "fail_in_turn.h"
#include "wasmscale/fs.h"

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *block, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
void __libc_free(void *block);

// Blocks allocated and not yet freed: after each round's clean-up the count must be what a round
// with no failure leaves, or a failing call leaked what it had allocated.
static _Atomic long live_blocks;

static void *counted(void *block) {
  if (block != NULL) atomic_fetch_add(&live_blocks, 1);
  return block;
}
void *malloc(size_t size) { return fail_now() ? NULL : counted(__libc_malloc(size)); }
void *calloc(size_t count, size_t size) { return fail_now() ? NULL : counted(__libc_calloc(count, size)); }
void *aligned_alloc(size_t alignment, size_t size) {
  return fail_now() ? NULL : counted(__libc_memalign(alignment, size));
}
void *realloc(void *block, size_t size) {
  if (fail_now()) return NULL;
  void *moved = __libc_realloc(block, size);
  if (block == NULL) counted(moved);
  return moved;
}
void free(void *block) {
  if (block != NULL) atomic_fetch_sub(&live_blocks, 1);
  __libc_free(block);
}

enum { MANY = 10, LAZY_BYTES = 1536 * 1024 };  // files in one directory; a lazy file of two blocks

// Paths a call of this round reported made: each must be there once the round is over (a call
// must never report a change it did not make).
static char made_paths[MANY + 8][32];
static int made_count;
static void made(const char *call, long result, const char *path) {
  status(call, result);
  if (result == 0 && made_count < MANY + 8) snprintf(made_paths[made_count++], sizeof *made_paths, "%s", path);
}
static void check_made(void) {
  for (int i = 0; i < made_count; i++) {
    ws_stat info;
    if (_ws_fs_fstatat(WS_AT_FDCWD, made_paths[i], &info, AT_SYMLINK_NOFOLLOW) != 0) {
      printf("out_of_memory: round %ld: %s was reported made and is not there\n", round_number, made_paths[i]);
      failures++;
    }
  }
  made_count = 0;
}

// One sequence of calls; returns whether the armed failure fired during it.
static bool sequence(const char *host_dir, const char *lazy_source) {
  char mount_point[64];
  snprintf(mount_point, sizeof mount_point, "/m%ld", round_number);
  t_mkdir(mount_point, 0755);
  long mounted = ws_fs_mount(mount_point, ws_fs_host_backend(), host_dir);
  status("mount", mounted);
  const char *memory_file = "/work/file";
  int fd = (int)_ws_fs_openat(WS_AT_FDCWD, memory_file, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    t_write(fd, "0123456789", 10);
    static const char spread[3 * 65536 + 100];  // several chunks of the memory backend at once
    t_pwrite(fd, spread, sizeof spread, 10);
    struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 4};
    status("F_OFD_SETLK", _ws_fs_fcntl(fd, F_OFD_SETLK, (intptr_t)&lock));
    lock.l_start = 1, lock.l_len = 1, lock.l_type = F_UNLCK;
    status("F_OFD_SETLK unlock (a split)", _ws_fs_fcntl(fd, F_OFD_SETLK, (intptr_t)&lock));
    status("flock", _ws_fs_flock(fd, LOCK_EX));
    status("close", _ws_fs_close(fd));
  }
  status("rename", _ws_fs_renameat(WS_AT_FDCWD, memory_file, WS_AT_FDCWD, "/work/moved"));
  status("mkdir", _ws_fs_mkdirat(WS_AT_FDCWD, "/work/sub", 0755));  // renamed below
  made("symlink", _ws_fs_symlinkat("target", WS_AT_FDCWD, "/work/link"), "/work/link");
  made("mkdir for many", _ws_fs_mkdirat(WS_AT_FDCWD, "/work/many", 0755), "/work/many");
  for (int i = 0; i < MANY; i++) {  // past the first growth of the directory's tables
    char name[32];
    snprintf(name, sizeof name, "/work/many/%d", i);
    made("a file among many", _ws_fs_mknodat(WS_AT_FDCWD, name, S_IFREG | 0644), name);
  }
  made("a memory mount's directory", _ws_fs_mkdirat(WS_AT_FDCWD, "/work/mm", 0755), "/work/mm");
  long memory_mounted = ws_fs_mount("/work/mm", ws_fs_memory_backend(), NULL);
  status("a memory mount", memory_mounted);
  if (memory_mounted == 0) made("a file in it", _ws_write_file("/work/mm/f", "m", 1, 0644), "/work/mm/f");
  made("a lazy file", _ws_fs_create_lazy("/work/lazy", lazy_source, LAZY_BYTES, 0444), "/work/lazy");
  int lazy = (int)_ws_fs_openat(WS_AT_FDCWD, "/work/lazy", O_RDONLY, 0);
  if (lazy >= 0) {
    char bytes[10];
    long got = t_pread(lazy, bytes, sizeof bytes, LAZY_BYTES - 100);  // the second block
    if (got >= 0 && got != sizeof bytes) status("a lazy read's count", 1);
    status("close of the lazy file", _ws_fs_close(lazy));
  }
  status("rename a directory", _ws_fs_renameat(WS_AT_FDCWD, "/work/sub", WS_AT_FDCWD, "/work/sub2"));
  if (mounted == 0) {
    char path[128];
    snprintf(path, sizeof path, "%s/file", mount_point);
    int host_fd = (int)_ws_fs_openat(WS_AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (host_fd >= 0) {
      t_write(host_fd, "abc", 3);
      status("host close", _ws_fs_close(host_fd));
    }
    status("host unlink", _ws_fs_unlinkat(WS_AT_FDCWD, path, 0));
  }
  bool did_fire = atomic_load(&fired);
  // Clean up with memory to spare.
  atomic_store(&countdown, -1);
  check_made();
  _ws_fs_unlinkat(WS_AT_FDCWD, "/work/lazy", 0);
  if (memory_mounted == 0) ws_fs_unmount("/work/mm");
  _ws_fs_unlinkat(WS_AT_FDCWD, "/work/mm", AT_REMOVEDIR);
  _ws_fs_unlinkat(WS_AT_FDCWD, "/work/moved", 0);
  _ws_fs_unlinkat(WS_AT_FDCWD, memory_file, 0);
  _ws_fs_unlinkat(WS_AT_FDCWD, "/work/link", 0);
  _ws_fs_unlinkat(WS_AT_FDCWD, "/work/sub", AT_REMOVEDIR);
  _ws_fs_unlinkat(WS_AT_FDCWD, "/work/sub2", AT_REMOVEDIR);
  for (int i = 0; i < MANY; i++) {
    char name[32];
    snprintf(name, sizeof name, "/work/many/%d", i);
    _ws_fs_unlinkat(WS_AT_FDCWD, name, 0);
  }
  _ws_fs_unlinkat(WS_AT_FDCWD, "/work/many", AT_REMOVEDIR);
  if (mounted == 0) ws_fs_unmount(mount_point);
  _ws_fs_unlinkat(WS_AT_FDCWD, mount_point, AT_REMOVEDIR);
  return did_fire;
}

// Overwriting bytes a memory file already holds takes no memory (so it cannot fail for want of
// it): within one chunk of the memory backend, and across two.
static void overwrite_in_place(void) {
  int fd = (int)_ws_fs_openat(WS_AT_FDCWD, "/work/in-place", O_RDWR | O_CREAT | O_TRUNC, 0644);
  static const char block[100000];
  long wrote = t_pwrite(fd, block, sizeof block, 0);
  long before = atomic_load(&attempts);
  long overwrote = t_pwrite(fd, block, 3, 4000) + t_pwrite(fd, block, 10000, 60000);
  long taken = atomic_load(&attempts) - before;
  if (wrote != sizeof block || overwrote != 10003 || taken != 0) {
    printf("out_of_memory: overwriting bytes a file holds allocated %ld times\n", taken);
    failures++;
  }
  _ws_fs_close(fd);
  _ws_fs_unlinkat(WS_AT_FDCWD, "/work/in-place", 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("out_of_memory: usage: out_of_memory HOST_DIR\n");
    return 2;
  }
  t_mkdir("/work", 0755);
  overwrite_in_place();
  char lazy_source[512];
  snprintf(lazy_source, sizeof lazy_source, "%s/lazy-source", argv[1]);
  FILE *source = fopen(lazy_source, "wb");
  if (source == NULL || fseek(source, LAZY_BYTES - 1, SEEK_SET) != 0 || fputc('x', source) == EOF || fclose(source) != 0) {
    printf("out_of_memory: cannot write %s\n", lazy_source);
    return 1;
  }
  long rounds = 0;
  // A round where nothing fails: what stays allocated once a round is cleaned up.
  round_number = -1;
  sequence(argv[1], lazy_source);
  long settled = atomic_load(&live_blocks);
  for (round_number = 0; round_number < 10000; round_number++, rounds++) {
    atomic_store(&fired, false);
    atomic_store(&countdown, round_number);
    bool did_fire = sequence(argv[1], lazy_source);
    long live = atomic_load(&live_blocks);
    if (live != settled) {
      printf("out_of_memory: round %ld: %ld blocks still allocated after the clean-up, %ld after a round with no failure\n",
             round_number, live, settled);
      failures++;
      settled = live;
    }
    if (!did_fire) break;  // the sequence needed fewer allocations: every one has failed once
  }
  if (failures != 0) {
    printf("out_of_memory: %d failures\n", failures);
    return 1;
  }
  printf("out_of_memory: %ld allocations failed one at a time, every call answered 0 or an errno\n", rounds);
  return 0;
}
