// Threads sharing what the fast paths keep lock-light: one open description, one file's data,
// and a descriptor number that is closed and reopened under their feet.
//   positions  threads write records through one shared descriptor, without seeking: the
//              description's position must hand each write its own place (no record lost
//              or overwritten);
//   blocks     writers pwrite whole blocks of one repeated byte while readers pread them: a
//              read never sees half of one write and half of another;
//   reuse      readers read through a descriptor number that another thread keeps pointing
//              at file A or file B (dup2) and closing: every read returns A's bytes, B's
//              bytes or EBADF, never anything else, never a crash.
// It runs against wasmscale only: Linux's page cache lets a read see parts of two writes
// (measured: most runs of `blocks` fail on Linux), which POSIX's rule for regular files
// forbids and wasmscale's per-file lock rules out.
//   sharing [threads] [rounds]
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"

enum { RECORD = 48, BLOCK = 4096, BLOCKS = 8, REUSED_FD = 40 };

static int threads, rounds;
static _Atomic int failures, stop;
static int shared_fd, blocks_fd, fd_a, fd_b;

static void fail(const char *what, long detail) {
  printf("sharing: %s (%ld, errno %d)\n", what, detail, errno);
  atomic_fetch_add(&failures, 1);
}

static void *append_records(void *arg) {
  int me = (int)(intptr_t)arg;
  unsigned char record[RECORD];
  for (int i = 0; i < rounds; i++) {
    memset(record, 'a' + me, RECORD);
    memcpy(record, &i, sizeof i);
    long wrote = t_write(shared_fd, record, RECORD);
    if (wrote != RECORD) return fail("a shared-position write was short", wrote), NULL;
  }
  return NULL;
}

static void check_records(void) {
  long long size = t_size(shared_fd);
  if (size != (long long)threads * rounds * RECORD) fail("records file size", (long)size);
  int seen[16][512] = {{0}};
  unsigned char record[RECORD];
  for (long long at = 0; at + RECORD <= size; at += RECORD) {
    if (t_pread(shared_fd, record, RECORD, at) != RECORD) return fail("reading a record back", (long)at);
    int writer = record[RECORD - 1] - 'a', index;
    memcpy(&index, record, sizeof index);
    bool whole = writer >= 0 && writer < threads && index >= 0 && index < rounds;
    for (int i = (int)sizeof index; whole && i < RECORD; i++) whole = record[i] == record[RECORD - 1];
    if (!whole) return fail("a torn or foreign record", (long)at);
    seen[writer][index]++;
  }
  for (int t = 0; t < threads; t++) {
    for (int i = 0; i < rounds; i++) {
      if (seen[t][i] != 1) return fail("a record lost or written twice", t * 1000 + i);
    }
  }
}

static void *write_blocks(void *arg) {
  int me = (int)(intptr_t)arg;
  static _Thread_local unsigned char block[BLOCK];
  for (int i = 0; i < rounds; i++) {
    memset(block, (me * 64 + i) % 255 + 1, BLOCK);
    if (t_pwrite(blocks_fd, block, BLOCK, (long long)((i + me) % BLOCKS) * BLOCK) != BLOCK) {
      return fail("a block write", i), NULL;
    }
  }
  return NULL;
}

static void *read_blocks(void *arg) {
  (void)arg;
  static _Thread_local unsigned char block[BLOCK];
  for (int i = 0; i < rounds * 2; i++) {
    if (t_pread(blocks_fd, block, BLOCK, (long long)(i % BLOCKS) * BLOCK) != BLOCK) {
      return fail("a block read", i), NULL;
    }
    for (int b = 1; b < BLOCK; b++) {
      if (block[b] != block[0]) return fail("a read saw parts of two writes", i), NULL;
    }
  }
  return NULL;
}

static void *flip_descriptor(void *arg) {
  (void)arg;
  for (int i = 0; !atomic_load(&stop); i++) {
    if (i % 3 == 2) {
      t_close(REUSED_FD);
    } else if (t_dup2(i % 3 == 0 ? fd_a : fd_b, REUSED_FD) != REUSED_FD) {
      fail("dup2", i);
      return NULL;
    }
  }
  return NULL;
}

static void *read_reused(void *arg) {
  (void)arg;
  unsigned char byte;
  for (int i = 0; i < rounds * 4; i++) {
    errno = 0;
    long got = t_pread(REUSED_FD, &byte, 1, i % 64);
    if (got == 1 ? byte != 'A' && byte != 'B' : got != -1 || errno != EBADF) {
      return fail("a read through a reused descriptor", got), NULL;
    }
  }
  return NULL;
}

static int open_filled(const char *path, char fill) {
  unsigned char data[64];
  memset(data, fill, sizeof data);
  int fd = (int)t_open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || t_write(fd, data, sizeof data) != (long)sizeof data) fail("creating a file", fd);
  return fd;
}

static void run_threads(void *(*first)(void *), int first_count, void *(*second)(void *), int second_count) {
  pthread_t ids[32];
  int count = 0;
  for (int i = 0; i < first_count; i++) pthread_create(&ids[count++], NULL, first, (void *)(intptr_t)i);
  for (int i = 0; i < second_count; i++) pthread_create(&ids[count++], NULL, second, (void *)(intptr_t)i);
  for (int i = 0; i < count; i++) pthread_join(ids[i], NULL);
}

int main(int argc, char **argv) {
  threads = argc > 1 ? atoi(argv[1]) : 4;
  rounds = argc > 2 ? atoi(argv[2]) : 300;
  if (threads < 1 || threads > 16 || rounds < 1 || rounds > 512) {
    printf("sharing: threads must be 1-16 and rounds 1-512\n");
    return 2;
  }
  char dir[256];
  if (enter_scratch_dir("sharing", dir, sizeof dir) != 0) {
    printf("sharing: cannot set up %s\n", dir);
    return 1;
  }
  shared_fd = (int)t_open("records", O_RDWR | O_CREAT | O_TRUNC, 0644);
  run_threads(append_records, threads, NULL, 0);
  check_records();

  blocks_fd = (int)t_open("blocks", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (t_ftruncate(blocks_fd, BLOCKS * BLOCK) != 0) fail("sizing the blocks file", 0);
  run_threads(write_blocks, threads, read_blocks, threads);

  fd_a = open_filled("a", 'A');
  fd_b = open_filled("b", 'B');
  pthread_t flipper;
  pthread_create(&flipper, NULL, flip_descriptor, NULL);
  run_threads(read_reused, threads, NULL, 0);
  atomic_store(&stop, 1);
  pthread_join(flipper, NULL);

  t_close(REUSED_FD);
  int fds[] = {shared_fd, blocks_fd, fd_a, fd_b};
  for (int i = 0; i < 4; i++) t_close(fds[i]);
  const char *names[] = {"records", "blocks", "a", "b"};
  for (int i = 0; i < 4; i++) t_unlink(names[i]);
  t_chdir("/");
  t_rmdir(dir);
  printf("sharing: %d threads x %d rounds: %s\n", threads, rounds, failures == 0 ? "all consistent" : "FAILED");
  return failures == 0 ? 0 : 1;
}
