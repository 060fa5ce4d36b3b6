// The host-directory backend: mounts a directory of the host (argv[1]) at /data with the C API
// (or finds it already mounted by `wasmscale-cc --mount`, argv[2] = "premounted"), then:
//   - reads a file the host wrote (input.txt: "hello from the host\n") and lists the directory;
//   - lists it twice, checking each name and d_ino against stat (natively: st_ino is the host's);
//   - changes a file's mode and times and a directory's mode (applied on the host);
//   - renames over a file, leaving the directory's link count; moves a directory between two
//     parents and back; refuses a host FIFO (natively); fallocate; 300 files open at once, each
//     opened a second time;
//   - tries to leave the mount: "..", a symlink pointing out of it (escape -> ../secret.txt),
//     an absolute symlink; each must fail or stay inside the virtual tree, never read secret;
//   - N threads each write a file of records, rename it, read it back, and append records to
//     one shared file with O_APPEND; the final state is checked here, and on the host by the
//     test that runs this (tests/fs.test.mjs).
//   host HOST_DIR [premounted|mount] [threads] [rounds]
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"
#define CHECK_NAME "host"
#include "check.h"
#include "wasmscale/fs.h"

enum { RECORD = 48, MAX_THREADS = 16 };

static int threads, rounds;

static void fill(unsigned char *record, int thread, int round) {
  for (int i = 0; i < RECORD; i++) record[i] = (unsigned char)(thread * 37 + round * 11 + i);
  record[0] = (unsigned char)thread;
  record[1] = (unsigned char)round;
}

static void *worker(void *arg) {
  int thread = (int)(intptr_t)arg;
  char path[64], done_path[64];
  unsigned char record[RECORD], back[RECORD];
  snprintf(path, sizeof path, "/data/out/t%d.bin", thread);
  snprintf(done_path, sizeof done_path, "/data/out/t%d.done", thread);
  int fd = (int)t_open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  CHECK(fd >= 0, "thread %d: open", thread);
  if (fd < 0) return NULL;
  for (int round = 0; round < rounds; round++) {
    fill(record, thread, round);
    CHECK(t_write(fd, record, RECORD) == RECORD, "thread %d: write", thread);
    // Opened for each record, so the log's node is often released and made again while
    // other threads append: a new node must start from the host's size as it is then.
    int shared = (int)t_open("/data/out/shared.log", O_WRONLY | O_APPEND, 0);
    CHECK(shared >= 0 && t_write(shared, record, RECORD) == RECORD, "thread %d: append", thread);
    if (shared >= 0) t_close(shared);
  }
  t_close(fd);
  CHECK(t_rename(path, done_path) == 0, "thread %d: rename", thread);
  fd = (int)t_open(done_path, O_RDONLY, 0);
  CHECK(fd >= 0, "thread %d: reopen", thread);
  for (int round = 0; fd >= 0 && round < rounds; round++) {
    fill(record, thread, round);
    CHECK(t_read(fd, back, RECORD) == RECORD && memcmp(record, back, RECORD) == 0, "thread %d: record %d", thread, round);
  }
  if (fd >= 0) t_close(fd);
  return NULL;
}

static long read_all(const char *path, char *buffer, size_t size) {
  int fd = (int)t_open(path, O_RDONLY, 0);
  if (fd < 0) return -1;
  long got = t_read(fd, buffer, size - 1);
  t_close(fd);
  if (got >= 0) buffer[got] = '\0';
  return got;
}

static void escapes(void) {
  char buffer[256];
  // The host directory's parent holds secret.txt; none of these may reach it.
  const char *attempts[] = {"/data/../secret.txt", "/data/sub/../../secret.txt", "/data/escape", "/data/absolute"};
  for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
    long got = read_all(attempts[i], buffer, sizeof buffer);
    CHECK(got < 0 || strstr(buffer, "secret") == NULL, "%s reached the host outside the mount", attempts[i]);
  }
  // ".." at the top of the mount is the virtual directory above it.
  CHECK(t_chdir("/data/sub") == 0 && t_chdir("../..") == 0 && read_all("data/input.txt", buffer, sizeof buffer) == 20,
        "'..' from the mount did not lead to the virtual root");
}

// chmod and utimensat reach the host file (the test checks it there) and stat shows them.
static void attributes(void) {
  t_stat_t info;
  CHECK(t_chmod("/data/input.txt", 0600) == 0, "chmod input.txt");
  CHECK(t_stat("/data/input.txt", &info) == 0 && (T_MODE(info) & 07777) == 0600, "stat after chmod shows mode %o",
        (unsigned)(T_MODE(info) & 07777));
  const struct timespec times[2] = {{1000000000, 0}, {1200000000, 0}};
  CHECK(t_utimens("/data/input.txt", times) == 0, "utimensat input.txt");
  CHECK(t_stat("/data/input.txt", &info) == 0 && T_MTIME(info).tv_sec == 1200000000, "stat after utimensat shows mtime %lld",
        (long long)T_MTIME(info).tv_sec);
  CHECK(t_chmod("/data/sub", 0700) == 0, "chmod a host directory");
}

// A listing of the mount's root gives each entry's name, and the inode and type stat gives it; listed
// twice, the second listing replaces the first's snapshot (its memory freed: LeakSanitizer).
struct listed {
  int entries, wrong;
};

static void check_entry(void *context, const char *name, unsigned long long ino, unsigned type) {
  struct listed *listed = context;
  static const char *const expected[] = {"input.txt", "sub", "escape", "absolute"};
  bool known = false;
  for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) known |= strcmp(name, expected[i]) == 0;
  char path[64];
  snprintf(path, sizeof path, "/data/%s", name);
  t_stat_t info;
  bool same = t_lstat(path, &info) == 0 && (unsigned long long)T_INO(info) == ino && (T_MODE(info) & S_IFMT) >> 12 == type;
  CHECK(known && same, "/data lists '%s' (d_ino %llu, d_type %u; st_ino %llu, mode %o)", name, ino, type,
        (unsigned long long)T_INO(info), (unsigned)T_MODE(info));
  listed->entries++;
}

static void listing(void) {
  for (int pass = 0; pass < 2; pass++) {
    struct listed listed = {0, 0};
    CHECK(t_list("/data", check_entry, &listed) == 0 && listed.entries == 4, "/data listed %d entries, expected 4",
          listed.entries);
  }
}

// Files of the host device keep the host's inode numbers (natively, where the test can ask the
// host itself).
static void host_inodes(const char *host_dir) {
#ifdef WS_TEST_CORE
  char path[512];
  snprintf(path, sizeof path, "%s/input.txt", host_dir);
  struct stat host;
  t_stat_t info;
  CHECK(stat(path, &host) == 0 && t_stat("/data/input.txt", &info) == 0 && (unsigned long long)T_INO(info) == host.st_ino,
        "input.txt has st_ino %llu, the host's is %llu", (unsigned long long)T_INO(info), (unsigned long long)host.st_ino);
#else
  (void)host_dir;
#endif
}

// A directory's link count counts its subdirectories only: replacing a file by renaming over
// it leaves it alone.
static void rename_over(void) {
  t_stat_t info;
  CHECK(t_mkdir("/data/over", 0755) == 0, "mkdir /data/over");
  int dir = (int)t_open("/data/over", O_RDONLY | O_DIRECTORY, 0);  // its node lives throughout
  CHECK(dir >= 0, "open /data/over");
  for (int round = 0; round < 4; round++) {  // the first makes b, the others replace it
    int fd = (int)t_open("/data/over/a", O_WRONLY | O_CREAT | O_EXCL, 0644);
    CHECK(fd >= 0 && t_close(fd) == 0, "round %d: create over/a", round);
    CHECK(t_rename("/data/over/a", "/data/over/b") == 0, "round %d: rename over/a to over/b", round);
  }
  CHECK(t_fstat(dir, &info) == 0 && T_NLINK(info) == 2, "after renames over a file the directory has %ld links",
        (long)T_NLINK(info));
  t_close(dir);
  CHECK(t_unlink("/data/over/b") == 0, "unlink over/b");
  CHECK(t_rmdir("/data/over") == 0, "rmdir /data/over");
}

// A FIFO the host made is not passed through: opening it, even to create it, answers EACCES
// (natively, where the test can make one on the host).
static void host_fifo(const char *host_dir) {
#ifdef WS_TEST_CORE
  char fifo[512];
  snprintf(fifo, sizeof fifo, "%s/fifo", host_dir);
  CHECK(mkfifo(fifo, 0644) == 0, "mkfifo on the host");
  errno = 0;
  CHECK(t_open("/data/fifo", O_WRONLY | O_CREAT, 0644) < 0 && errno == EACCES, "open(O_CREAT) of a host FIFO: errno %d",
        errno);
  unlink(fifo);
#else
  (void)host_dir;
#endif
}

// A directory moved between two parents moves a link from one to the other, either way (both
// parents held open, so their link counts are the backend's own).
static void move_directory(void) {
  t_stat_t one, two;
  CHECK(t_mkdir("/data/p1", 0755) == 0 && t_mkdir("/data/p2", 0755) == 0 && t_mkdir("/data/p1/d", 0755) == 0,
        "mkdir p1, p2, p1/d");
  int p1 = (int)t_open("/data/p1", O_RDONLY | O_DIRECTORY, 0), p2 = (int)t_open("/data/p2", O_RDONLY | O_DIRECTORY, 0);
  CHECK(t_rename("/data/p1/d", "/data/p2/d") == 0, "move p1/d to p2");
  CHECK(t_fstat(p1, &one) == 0 && t_fstat(p2, &two) == 0 && T_NLINK(one) == 2 && T_NLINK(two) == 3,
        "after the move p1 has %ld links and p2 %ld", (long)T_NLINK(one), (long)T_NLINK(two));
  CHECK(t_rename("/data/p2/d", "/data/p1/d") == 0, "move it back");
  CHECK(t_fstat(p1, &one) == 0 && t_fstat(p2, &two) == 0 && T_NLINK(one) == 3 && T_NLINK(two) == 2,
        "after the move back p1 has %ld links and p2 %ld", (long)T_NLINK(one), (long)T_NLINK(two));
  t_close(p1);
  t_close(p2);
  CHECK(t_rmdir("/data/p1/d") == 0 && t_rmdir("/data/p1") == 0 && t_rmdir("/data/p2") == 0, "remove them");
}

// fallocate past the end grows the host file to cover the range.
static void allocate(void) {
  int fd = (int)t_open("/data/allocated", O_RDWR | O_CREAT | O_EXCL, 0644);
  CHECK(fd >= 0 && t_write(fd, "a", 1) == 1 && t_write(fd, "bc", 2) == 2, "create allocated, one byte first");
  CHECK(t_fallocate(fd, 4096, 100) == 0 && t_size(fd) == 4196, "fallocate(4096, 100) left %lld bytes", t_size(fd));
  CHECK(t_fallocate(fd, 0, 10) == 0 && t_size(fd) == 4196, "fallocate inside the file changed its size");
  t_close(fd);
  CHECK(t_unlink("/data/allocated") == 0, "unlink allocated");
}

// More files open at once than the table of live host nodes starts with: each still reads back
// its own content, and a second open of each finds the same node (a write through it shows in
// the first descriptor's fstat), however often the table grew meanwhile.
static void many_open(void) {
  enum { FILES = 300 };
  static int fds[FILES];
  char path[64];
  CHECK(t_mkdir("/data/many", 0755) == 0, "mkdir /data/many");
  for (int i = 0; i < FILES; i++) {
    snprintf(path, sizeof path, "/data/many/f%d", i);
    fds[i] = (int)t_open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
    CHECK(fds[i] >= 0 && t_write(fds[i], &i, sizeof i) == sizeof i, "create %s", path);
  }
  for (int i = 0; i < FILES; i++) {
    int back = -1;
    CHECK(t_pread(fds[i], &back, sizeof back, 0) == sizeof back && back == i, "many/f%d reads %d", i, back);
    snprintf(path, sizeof path, "/data/many/f%d", i);
    int again = (int)t_open(path, O_WRONLY | O_APPEND, 0);
    CHECK(again >= 0 && t_write(again, &i, sizeof i) == sizeof i && t_size(fds[i]) == 2 * sizeof i,
          "many/f%d opened again: the first descriptor sees %lld bytes", i, t_size(fds[i]));
    t_close(again);
    t_close(fds[i]);
    t_unlink(path);
  }
  CHECK(t_rmdir("/data/many") == 0, "rmdir /data/many");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: host HOST_DIR [premounted|mount] [threads] [rounds]\n");
    return 2;
  }
  bool premounted = argc > 2 && strcmp(argv[2], "premounted") == 0;
  threads = argc > 3 ? atoi(argv[3]) : 4;
  rounds = argc > 4 ? atoi(argv[4]) : 200;
  if (threads < 1 || threads > MAX_THREADS || rounds < 1 || rounds > 255) {
    printf("host: threads must be 1-%d and rounds 1-255\n", MAX_THREADS);
    return 2;
  }
  if (!premounted) {
    CHECK(t_mkdir("/data", 0755) == 0, "mkdir /data");
    int error = ws_fs_mount("/data", ws_fs_host_backend(), argv[1]);
    CHECK(error == 0, "mount %s: %s", argv[1], strerror(-error));
    CHECK(ws_fs_mount("/data/sub", ws_fs_host_backend(), "/nonexistent-wasmscale-dir") != 0, "a bad host dir mounted");
  }
  char buffer[256];
  CHECK(read_all("/data/input.txt", buffer, sizeof buffer) == 20 && strcmp(buffer, "hello from the host\n") == 0,
        "input.txt read '%s'", buffer);
  CHECK(read_all("/data/sub/nested.txt", buffer, sizeof buffer) == 7, "sub/nested.txt");
  listing();
  host_inodes(argv[1]);
  escapes();
  attributes();
  rename_over();
  move_directory();
  host_fifo(argv[1]);
  allocate();
  many_open();

  CHECK(t_mkdir("/data/out", 0755) == 0, "mkdir /data/out");
  int shared = (int)t_open("/data/out/shared.log", O_WRONLY | O_CREAT | O_EXCL, 0644);
  CHECK(shared >= 0, "create shared.log");
  t_close(shared);
  pthread_t ids[MAX_THREADS];
  for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, worker, (void *)(intptr_t)i);
  for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);

  CHECK(t_count_entries("/data/out") == threads + 1, "/data/out lists %d entries", t_count_entries("/data/out"));
  int fd = (int)t_open("/data/out/shared.log", O_RDONLY, 0);
  CHECK(fd >= 0 && t_size(fd) == (long long)threads * rounds * RECORD, "shared.log has %lld bytes", t_size(fd));
  int next_round[MAX_THREADS] = {0};
  unsigned char record[RECORD], expected[RECORD];
  while (fd >= 0 && t_read(fd, record, RECORD) == RECORD) {
    int thread = record[0], round = record[1];
    fill(expected, thread, round);
    bool whole = thread < threads && round == next_round[thread] && memcmp(record, expected, RECORD) == 0;
    CHECK(whole, "shared.log holds a torn or out-of-order record (thread %d, round %d)", thread, round);
    if (!whole) break;
    next_round[thread]++;
  }
  if (fd >= 0) t_close(fd);
  CHECK(t_mkdir("/data/out/gone", 0755) == 0 && t_rmdir("/data/out/gone") == 0, "mkdir + rmdir on the host");
  CHECK(t_open("/data/out/gone", O_RDONLY, 0) < 0 && errno == ENOENT, "a removed host dir still opens");
  printf("host: %d threads x %d rounds: %s\n", threads, rounds, failures == 0 ? "host files verified" : "FAILED");
  return failures == 0 ? 0 : 1;
}
