// The OPFS backend, run in Chromium by tests/opfs.test.mjs. Mounts the OPFS directory
// "wasmscale-test" at /persist with the C API, then one of:
//   persist   first run: writes files (small and large writes, a directory rename, a file
//             unlinked while open), fsyncs one it keeps open, prints "@@written" and waits
//             for the page to be reloaded; the run after the reload checks every byte.
//   threads N N threads each write a file of their own with small writes and read it back,
//             and append records to one shared file with O_APPEND; every record is checked.
//   quota     (the test limits the origin's quota) writes until ENOSPC; what write() said it
//             wrote must be there after fsync, and an earlier file is untouched.
//   busy      a file another page holds: stat works, open fails with EBUSY, never hangs; and
//             the I/O worker's exclusive create, called directly, finds what is already there.
//   mainbusy  (main() on the page's main thread) a pthread writes, fsyncs and reads back OPFS
//             files while the main thread spins in Wasm without yielding, then while it is
//             blocked in pthread_join: the backend must not need the main thread's event loop.
//   nodev     (Node) mounting OPFS fails with ENODEV.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <emscripten.h>

#define CHECK_NAME "opfs"
#include "check.h"
#include "wasmscale/fs.h"
#include "../../src/fs/opfs/opfs.h"

static unsigned char pattern(int id, long offset) { return (unsigned char)(offset * 131 + id * 7 + (offset >> 9)); }

static void fill(unsigned char *buffer, int id, long offset, size_t length) {
  for (size_t i = 0; i < length; i++) buffer[i] = pattern(id, offset + (long)i);
}

// Writes `size` bytes of pattern `id` in pieces of `piece` bytes.
static int write_pattern(int fd, int id, long size, size_t piece) {
  static _Thread_local unsigned char buffer[1 << 20];
  for (long at = 0; at < size; at += (long)piece) {
    size_t length = size - at < (long)piece ? (size_t)(size - at) : piece;
    fill(buffer, id, at, length);
    if (write(fd, buffer, length) != (ssize_t)length) return -1;
  }
  return 0;
}

// 0 if file `path` holds exactly `size` bytes of pattern `id`.
static int check_file(const char *path, int id, long size) {
  static _Thread_local unsigned char buffer[65536];
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  long at = 0;
  ssize_t got;
  while ((got = read(fd, buffer, sizeof buffer)) > 0) {
    for (ssize_t i = 0; i < got; i++) {
      if (buffer[i] != pattern(id, at + i)) {
        close(fd);
        return -2;
      }
    }
    at += got;
  }
  close(fd);
  return got < 0 ? -1 : at == size ? 0 : -3;
}

static void remove_tree(const char *path) {
  DIR *dir = opendir(path);
  if (dir == NULL) return;
  struct dirent *entry;
  char child[512];
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
    if (entry->d_type == DT_DIR) {
      remove_tree(child);
      CHECK(rmdir(child) == 0, "rmdir %s", child);
    } else {
      CHECK(unlink(child) == 0, "unlink %s", child);
    }
  }
  closedir(dir);
}

// ----- persist --------------------------------------------------------------------------------
static int persist(void) {
  struct stat info;
  if (stat("/persist/stamp", &info) != 0) {  // first run
    remove_tree("/persist");
    CHECK(mkdir("/persist/docs", 0755) == 0 && mkdir("/persist/docs/sub", 0755) == 0, "mkdir");
    int fd = open("/persist/docs/a.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(fd >= 0 && write_pattern(fd, 1, 100000, 100) == 0 && close(fd) == 0, "small writes");
    fd = open("/persist/docs/sub/b.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(fd >= 0 && write_pattern(fd, 2, 3 << 20, 1 << 20) == 0 && close(fd) == 0, "large writes");
    CHECK(rename("/persist/docs/a.txt", "/persist/docs/sub/a2.txt") == 0, "rename a file");
    CHECK(rename("/persist/docs/sub", "/persist/docs/moved") == 0, "rename a directory");
    int gone = open("/persist/gone.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
    CHECK(gone >= 0 && write_pattern(gone, 4, 7000, 70) == 0, "write gone.txt");
    CHECK(unlink("/persist/gone.txt") == 0 && stat("/persist/gone.txt", &info) != 0 && errno == ENOENT, "unlink open");
    unsigned char back[7000], want[7000];
    fill(want, 4, 0, sizeof want);
    CHECK(pread(gone, back, sizeof back, 0) == (ssize_t)sizeof back && memcmp(back, want, sizeof back) == 0,
          "an unlinked open file stays readable");
    CHECK(close(gone) == 0, "close gone.txt");
    int log = open("/persist/c.log", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(log >= 0 && write_pattern(log, 3, 5000, 50) == 0 && fsync(log) == 0, "fsync c.log");
    fd = open("/persist/stamp", O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0 && fsync(fd) == 0, "stamp");
    printf(failures == 0 ? "@@written\n" : "@@failed\n");
    fflush(stdout);
    for (;;) sleep(1);  // c.log and stamp stay open: the page is reloaded under them
  }
  CHECK(check_file("/persist/docs/moved/a2.txt", 1, 100000) == 0, "a2.txt after reload");
  CHECK(check_file("/persist/docs/moved/b.bin", 2, 3 << 20) == 0, "b.bin after reload");
  CHECK(check_file("/persist/c.log", 3, 5000) == 0, "c.log (fsynced, never closed) after reload");
  CHECK(stat("/persist/gone.txt", &info) != 0 && errno == ENOENT, "gone.txt stays gone");
  CHECK(stat("/persist/docs/sub", &info) != 0 && errno == ENOENT, "the renamed directory's old name");
  remove_tree("/persist");
  printf("persist: checked after reload\n");
  return 0;
}

// ----- threads --------------------------------------------------------------------------------
enum { RECORD = 64, RECORDS = 400 };

static void *own_file(void *arg) {
  int id = (int)(intptr_t)arg;
  char path[64];
  snprintf(path, sizeof path, "/persist/t/own-%d", id);
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
  CHECK(fd >= 0, "open %s", path);
  unsigned char buffer[3000], back[3000];
  long size = 0;
  for (int i = 0; i < 600 && fd >= 0; i++) {
    size_t length = 1 + (size_t)(i * 7919 % 2999);
    fill(buffer, id, size, length);
    CHECK(write(fd, buffer, length) == (ssize_t)length, "write %s", path);
    size += (long)length;
    if (i % 50 == 49) {  // read an earlier stretch back while writing
      long at = (long)(i * 104729 % size), want = size - at < 3000 ? size - at : 3000;
      fill(buffer, id, at, (size_t)want);
      CHECK(pread(fd, back, (size_t)want, at) == want && memcmp(back, buffer, (size_t)want) == 0, "read back %s", path);
    }
  }
  CHECK(fd >= 0 && close(fd) == 0, "close %s", path);
  CHECK(check_file(path, id, size) == 0, "%s holds what was written", path);

  int shared = open("/persist/t/shared.log", O_CREAT | O_WRONLY | O_APPEND, 0644);
  CHECK(shared >= 0, "open shared.log");
  unsigned char record[RECORD];
  for (int seq = 0; seq < RECORDS && shared >= 0; seq++) {
    fill(record, id * 1000 + seq, 0, RECORD);
    record[0] = (unsigned char)id;
    record[1] = (unsigned char)(seq >> 8);
    record[2] = (unsigned char)seq;
    CHECK(write(shared, record, RECORD) == RECORD, "append");
  }
  CHECK(shared >= 0 && close(shared) == 0, "close shared.log");
  return NULL;
}

static int threads(int count) {
  remove_tree("/persist");
  CHECK(mkdir("/persist/t", 0755) == 0, "mkdir /persist/t");
  pthread_t ids[16];
  for (int i = 0; i < count; i++) pthread_create(&ids[i], NULL, own_file, (void *)(intptr_t)i);
  for (int i = 0; i < count; i++) pthread_join(ids[i], NULL);
  int fd = open("/persist/t/shared.log", O_RDONLY);
  struct stat info;
  CHECK(fd >= 0 && fstat(fd, &info) == 0 && info.st_size == (off_t)count * RECORDS * RECORD, "shared.log size");
  int next[16] = {0};
  unsigned char record[RECORD], want[RECORD];
  while (fd >= 0 && read(fd, record, RECORD) == RECORD) {
    int id = record[0], seq = record[1] << 8 | record[2];
    fill(want, id * 1000 + seq, 0, RECORD);
    bool whole = id < count && seq == next[id] && memcmp(record + 3, want + 3, RECORD - 3) == 0;
    CHECK(whole, "record of thread %d seq %d (expected seq %d)", id, seq, id < count ? next[id] : -1);
    if (!whole) break;
    next[id]++;
  }
  if (fd >= 0) close(fd);
  for (int i = 0; i < count; i++) CHECK(next[i] == RECORDS, "thread %d's records: %d", i, next[i]);
  remove_tree("/persist");
  printf("threads: %d threads, own files and one shared file checked\n", count);
  return 0;
}

// ----- quota ----------------------------------------------------------------------------------
static int quota(void) {
  remove_tree("/persist");
  int fd = open("/persist/first", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0 && write_pattern(fd, 5, 1 << 20, 4096) == 0 && close(fd) == 0, "the first file");
  fd = open("/persist/fill", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  long written = 0;
  ssize_t put = 0;
  unsigned char buffer[1000];
  for (int i = 0; fd >= 0 && i < 1000000; i++) {  // small writes: the cached path
    fill(buffer, 6, written, sizeof buffer);
    if ((put = write(fd, buffer, sizeof buffer)) != (ssize_t)sizeof buffer) break;
    written += (long)sizeof buffer;
  }
  CHECK(put == -1 && errno == ENOSPC, "writing past the quota gives ENOSPC (after %ld bytes)", written);
  CHECK(fsync(fd) == 0 && close(fd) == 0, "fsync after ENOSPC");
  CHECK(check_file("/persist/fill", 6, written) == 0, "every byte write() accepted is in the file (%ld)", written);
  CHECK(check_file("/persist/first", 5, 1 << 20) == 0, "the earlier file is intact");
  fd = open("/persist/big", O_CREAT | O_WRONLY | O_TRUNC, 0644);  // large writes: straight to OPFS
  static unsigned char chunk[8 << 20];  // more than the whole quota (6 MiB)
  CHECK(fd >= 0 && write(fd, chunk, sizeof chunk) == -1 && errno == ENOSPC, "a large write past the quota");
  CHECK(close(fd) == 0 && unlink("/persist/big") == 0 && unlink("/persist/fill") == 0, "remove");
  fd = open("/persist/after", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0 && write_pattern(fd, 7, 200000, 1000) == 0 && close(fd) == 0, "space is usable again");
  remove_tree("/persist");
  printf("quota: ENOSPC after %ld bytes, nothing accepted was lost\n", written);
  return 0;
}

// ----- busy -----------------------------------------------------------------------------------
// The I/O worker's exclusive create, called directly. In the file system it follows a lookup that
// found no such name, and it asks OPFS nothing more first; only another tab can have made the
// name since, and what the create finds then must give EEXIST, leaving it as it was: a file
// another page holds, a directory, a file with data, or a file this program has open.
static void exclusive_creates(void) {
  const int create = WS_HOST_READ_WRITE | WS_HOST_CREATE;
  CHECK(_ws_opfs_open_file("/wasmscale-test/held.txt", create) == -EEXIST, "exclusive create of a file another page holds");
  CHECK(mkdir("/persist/excl-dir", 0755) == 0, "mkdir");
  CHECK(_ws_opfs_open_file("/wasmscale-test/excl-dir", create) == -EEXIST, "exclusive create of a directory's name");
  rmdir("/persist/excl-dir");
  int fd = open("/persist/excl-data", O_CREAT | O_RDWR | O_TRUNC, 0644);
  CHECK(fd >= 0 && write(fd, "data", 4) == 4 && close(fd) == 0, "write excl-data");
  usleep(1500 * 1000);  // the worker lets go of the idle handle: the create finds the file in OPFS
  CHECK(_ws_opfs_open_file("/wasmscale-test/excl-data", create) == -EEXIST, "exclusive create of a file with data");
  char back[8] = {0};
  fd = open("/persist/excl-data", O_RDONLY);
  CHECK(fd >= 0 && read(fd, back, sizeof back) == 4 && memcmp(back, "data", 4) == 0 && close(fd) == 0,
        "the file with data is left as it was: '%s'", back);
  unlink("/persist/excl-data");
  fd = open("/persist/excl-open", O_CREAT | O_RDWR | O_TRUNC, 0644);
  CHECK(fd >= 0 && _ws_opfs_open_file("/wasmscale-test/excl-open", create) == -EEXIST,
        "exclusive create of a file open here");
  close(fd);
  unlink("/persist/excl-open");
  fd = _ws_opfs_open_file("/wasmscale-test/excl-new", create);
  CHECK(fd >= 0 && _ws_opfs_close_file(fd) == 0 && unlink("/persist/excl-new") == 0, "exclusive create of a new name: %d", fd);
}

static int busy(void) {
  struct stat info;
  CHECK(stat("/persist/held.txt", &info) == 0 && info.st_size == 5, "stat a file another page holds");
  int fd = open("/persist/held.txt", O_RDONLY);
  CHECK(fd == -1 && errno == EBUSY, "open a file another page holds");
  fd = open("/persist/free.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
  CHECK(fd >= 0 && write(fd, "free", 4) == 4 && close(fd) == 0 && unlink("/persist/free.txt") == 0,
        "other files still work");
  exclusive_creates();
  printf("busy: EBUSY\n");
  return 0;
}

// ----- mainbusy -------------------------------------------------------------------------------
enum { BUSY_FILES = 8, BUSY_BYTES = 300000 };
static atomic_int busy_done;

static void *busy_worker(void *arg) {
  int round = (int)(intptr_t)arg;
  char path[64];
  for (int i = 0; i < BUSY_FILES; i++) {
    snprintf(path, sizeof path, "/persist/busy-%d-%d", round, i);
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    CHECK(fd >= 0 && write_pattern(fd, round * 100 + i, BUSY_BYTES, 7000) == 0 && fsync(fd) == 0 && close(fd) == 0,
          "round %d: write %s", round, path);
    CHECK(check_file(path, round * 100 + i, BUSY_BYTES) == 0 && unlink(path) == 0, "round %d: read back %s", round, path);
  }
  atomic_store(&busy_done, 1);
  return NULL;
}

static int main_busy(void) {
  // Round 1: the main thread computes and never returns to its event loop until the pthread is
  // done, or 30 s pass (then the backend depended on the main thread: reported, not hung).
  pthread_t id;
  CHECK(pthread_create(&id, NULL, busy_worker, (void *)(intptr_t)1) == 0, "pthread_create");
  double deadline = emscripten_get_now() + 30000;
  unsigned long spins = 0;
  while (!atomic_load(&busy_done) && emscripten_get_now() < deadline) spins++;
  CHECK(atomic_load(&busy_done), "a pthread's OPFS calls finish while the main thread spins (%lu spins)", spins);
  if (!atomic_load(&busy_done)) return 1;
  pthread_join(id, NULL);
  // Round 2: the main thread is blocked in pthread_join throughout.
  atomic_store(&busy_done, 0);
  CHECK(pthread_create(&id, NULL, busy_worker, (void *)(intptr_t)2) == 0, "pthread_create");
  pthread_join(id, NULL);
  CHECK(atomic_load(&busy_done), "a pthread's OPFS calls finish while the main thread waits in pthread_join");
  printf("mainbusy: %d files written and read back while the main thread spun, %d while it joined\n",
         BUSY_FILES, BUSY_FILES);
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  mkdir("/persist", 0755);
  int error = ws_fs_mount("/persist", ws_fs_opfs_backend(), "wasmscale-test");
  if (strcmp(mode, "nodev") == 0) {
    printf("nodev: mount gives %s\n", error == -ENODEV ? "ENODEV" : strerror(-error));
    return error == -ENODEV ? 0 : 1;
  }
  if (error != 0) {
    printf("opfs: mount failed: %s\n", strerror(-error));
    return 1;
  }
  if (strcmp(mode, "persist") == 0) persist();
  else if (strcmp(mode, "threads") == 0) threads(argc > 2 ? atoi(argv[2]) : 4);
  else if (strcmp(mode, "quota") == 0) quota();
  else if (strcmp(mode, "busy") == 0) busy();
  else if (strcmp(mode, "mainbusy") == 0) main_busy();
  else CHECK(0, "unknown mode '%s'", mode);
  printf("%s\n", failures == 0 ? "opfs: ok" : "opfs: FAILED");
  return failures == 0 ? 0 : 1;
}
