// Calls of wasmscale's core that no libc call reaches in a testable way, natively on the core:
// - _ws_write_file (the JS API's writeFile) writes the whole buffer, in as many writes as it takes,
//   and reports the write that failed;
// - fsync of the console sends an unfinished line on;
// - _ws_fs_sync_all (sync, and the JS API's syncfs) syncs every open file and reports the first
//   failure (injected at the backend choke point);
// - the host backend under a file-size limit (RLIMIT_FSIZE): a write that crosses it is cut
//   short, one wholly past it fails with EFBIG, as Linux's write does; a host file on the
//   process's descriptor 0 reads and writes like any other; st_blocks, a host FIFO, a mount of
//   a file; directories moved in and out of its root leave the root usable;
// - openat relative to a file's descriptor (ENOTDIR) leaves the file's node intact; a name whose
//   hash in a memory directory's index is another's is not that other;
// - vectors whose lengths add up past SSIZE_MAX are refused (EINVAL); fallocate's modes other
//   than the default are refused (EOPNOTSUPP); the console's devices are terminals, no others;
// - _ws_make_dirs (mkdirTree) makes a path's missing directories and stops at a real failure;
// - a symlink's expansion longer than PATH_MAX with its zero is ENAMETOOLONG, by one byte;
//   readlink into a buffer of 0 bytes, or of more than INT_MAX, is EINVAL; getcwd of a path
//   longer than PATH_MAX is ENAMETOOLONG;
// - a mount point cannot be removed, renamed or renamed over (EBUSY), nor unlinked (EISDIR);
//   hard links do not cross mounts either way (EXDEV); a memory file system mounted and
//   unmounted with files inside;
// - the core calls a backend's rename, create and unlink with their directories locked
//   exclusively, whichever order a rename takes the locks in;
// - the lookup repeated under a directory's write lock reuses the walk's answer only while no
//   entry of the directory changed since (a name created or removed in between is seen).
//   core_calls HOST_DIR
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "calls.h"
#define CHECK_NAME "core_calls"
#include "check.h"
#include "wasmscale/fs.h"

enum { WHOLE = 300000, LIMIT = 4096 };

static unsigned char data[WHOLE], back[WHOLE];

static void write_file_whole(void) {
  for (size_t i = 0; i < WHOLE; i++) data[i] = (unsigned char)(i * 7 + i / 251);
  CHECK(_ws_write_file("whole", data, WHOLE, 0644) == 0, "_ws_write_file");
  int fd = (int)t_open("whole", O_RDONLY, 0);
  CHECK(fd >= 0 && t_size(fd) == WHOLE, "the file's size after _ws_write_file");
  CHECK(fd >= 0 && t_pread(fd, back, WHOLE, 0) == WHOLE && memcmp(back, data, WHOLE) == 0, "its bytes");
  if (fd >= 0) t_close(fd);
  CHECK(_ws_write_file("whole", data, 10, 0644) == 0 && t_ino("whole") > 0, "_ws_write_file again, shorter");
  fd = (int)t_open("whole", O_RDONLY, 0);
  CHECK(fd >= 0 && t_size(fd) == 10, "_ws_write_file truncates what was there");
  if (fd >= 0) t_close(fd);
}

static void sync_all_reports(void) {
  int fd = (int)t_open("synced", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0 && t_write(fd, "x", 1) == 1, "a file to sync");
  CHECK(_ws_fs_sync_all() == 0, "sync of everything open");
  unsigned fired = ws_fs_injected_failures();
  ws_fs_inject_failure(WS_FS_OP_SYNC, 0, EIO);
  CHECK(_ws_fs_sync_all() == -EIO, "sync of everything open reports a file's failure");
  CHECK(ws_fs_injected_failures() == fired + 1, "the failure was the injected one");
  ws_fs_inject_failure(0, 0, 0);
  if (fd >= 0) t_close(fd);
}

static void host_file_size_limit(const char *host_dir) {
  CHECK(t_mkdir("/limited", 0755) == 0 && ws_fs_mount("/limited", ws_fs_host_backend(), host_dir) == 0,
        "mount %s", host_dir);
  int fd = (int)t_open("/limited/big", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0, "a host file");
  signal(SIGXFSZ, SIG_IGN);  // else the process dies, as it should for a program that asked
  struct rlimit old;
  getrlimit(RLIMIT_FSIZE, &old);
  CHECK(setrlimit(RLIMIT_FSIZE, &(struct rlimit){LIMIT, old.rlim_max}) == 0, "setrlimit");
  long first = t_pwrite(fd, data, 3 * LIMIT, 0);
  CHECK(first == LIMIT, "a write across the limit is cut short at it: %ld", first);
  errno = 0;
  long second = t_pwrite(fd, data, 100, LIMIT);
  CHECK(second == -1 && errno == EFBIG, "a write past the limit: %ld", second);
  CHECK(_ws_write_file("/limited/whole", data, 3 * LIMIT, 0644) == -EFBIG,
        "_ws_write_file across the limit reports the write that failed");
  setrlimit(RLIMIT_FSIZE, &old);
  CHECK(t_size(fd) == LIMIT, "the file holds what was written");
  if (fd >= 0) t_close(fd);
}

// fsync of the console sends an unfinished line on (the console holds output until a newline).
static void console_fsync(void) {
  int pipe_fds[2];
  CHECK(pipe(pipe_fds) == 0, "pipe");
  fflush(stdout);
  int saved = dup(1);
  dup2(pipe_fds[1], 1);
  long wrote = t_write(1, "partial", 7);
  long synced = t_fsync(1);
  fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
  char got[16] = {0};
  long read_back = read(pipe_fds[0], got, sizeof got - 1);
  dup2(saved, 1);
  close(saved);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  CHECK(wrote == 7 && synced == 0 && read_back == 7 && memcmp(got, "partial", 7) == 0,
        "fsync(1) sent on '%s' (%ld bytes)", got, read_back);
}

// fallocate's modes other than the default (here FALLOC_FL_KEEP_SIZE, 1) are refused with
// EOPNOTSUPP, leaving the file as it was (Linux's file systems differ here: not a conformance case).
static void fallocate_modes(void) {
  int fd = (int)t_open("modes", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0 && _ws_fs_fallocate(fd, 1, 0, 100) == -EOPNOTSUPP, "fallocate with FALLOC_FL_KEEP_SIZE: EOPNOTSUPP");
  CHECK(fd >= 0 && t_size(fd) == 0, "the file is still empty (%lld bytes)", fd >= 0 ? (long long)t_size(fd) : -1LL);
  if (fd >= 0) t_close(fd);
  t_unlink("modes");
}

// The console's devices are terminals and the other devices are not (isatty: ENOTTY).
static void terminals(void) {
  static const struct {
    const char *path;
    int flags, expected;
  } devices[] = {{"/dev/stdin", O_RDONLY, 1},      {"/dev/stdout", O_WRONLY, 1},      {"/dev/stderr", O_WRONLY, 1},
                 {"/dev/tty", O_RDWR, 1},          {"/dev/null", O_RDWR, -ENOTTY},    {"/dev/zero", O_RDONLY, -ENOTTY},
                 {"/dev/urandom", O_RDONLY, -ENOTTY}};
  for (size_t i = 0; i < sizeof devices / sizeof *devices; i++) {
    int fd = _ws_fs_openat(WS_AT_FDCWD, devices[i].path, devices[i].flags, 0);
    int got = fd >= 0 ? _ws_fs_isatty(fd) : fd;
    CHECK(got == devices[i].expected, "isatty of %s: %d, expected %d", devices[i].path, got, devices[i].expected);
    if (fd >= 0) _ws_fs_close(fd);
  }
}

// A host file the process holds on descriptor 0 (stdin closed first) reads like any other, and
// closing it gives descriptor 0 back.
static void host_file_on_descriptor_zero(void) {
  close(0);
  int fd = (int)t_open("/limited/zero", O_RDWR | O_CREAT | O_TRUNC, 0644);
  char target[PATH_MAX] = {0};
  CHECK(readlink("/proc/self/fd/0", target, sizeof target - 1) > 0 && strstr(target, "/zero") != NULL,
        "the host file is on descriptor 0 (%s)", target);
  CHECK(fd >= 0 && t_pwrite(fd, "zero", 4, 0) == 4, "write a host file on descriptor 0");
  char got[4] = {0};
  CHECK(fd >= 0 && t_pread(fd, got, 4, 0) == 4 && memcmp(got, "zero", 4) == 0, "read it back");
  if (fd >= 0) t_close(fd);
  CHECK(fcntl(0, F_GETFD) == -1 && errno == EBADF, "descriptor 0 is the host's again once the file is closed");
}

// What a host mount reports and refuses: st_blocks of its files (the size in 512-byte blocks,
// rounded up), a FIFO on the host (EACCES: not passed through), a mount of a file (ENOTDIR).
static void host_blocks_and_refusals(const char *host_dir) {
  int fd = (int)t_open("/limited/blocks", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0 && t_pwrite(fd, data, 1000, 0) == 1000, "write 1000 bytes to a host file");
  t_stat_t info;
  CHECK(t_fstat(fd, &info) == 0 && T_BLOCKS(info) == 2, "1000 bytes are 2 blocks: %lld", (long long)T_BLOCKS(info));
  CHECK(t_ftruncate(fd, 100000) == 0 && t_fstat(fd, &info) == 0 && T_BLOCKS(info) == 196,
        "100000 bytes are 196 blocks: %lld", (long long)T_BLOCKS(info));
  if (fd >= 0) t_close(fd);
  char fifo[4096];
  snprintf(fifo, sizeof fifo, "%s/pipe", host_dir);
  CHECK(mkfifo(fifo, 0644) == 0, "mkfifo on the host");
  errno = 0;
  CHECK(t_open("/limited/pipe", O_RDONLY | O_NONBLOCK, 0) == -1 && errno == EACCES, "a host FIFO: EACCES");
  char file[4096];
  snprintf(file, sizeof file, "%s/blocks", host_dir);
  CHECK(t_mkdir("/onfile", 0755) == 0 && ws_fs_mount("/onfile", ws_fs_host_backend(), file) == -ENOTDIR,
        "a mount of a host file: ENOTDIR");
}

// Directories moved between a host mount's root and a directory in it, both ways, then removed:
// the root's link count (which the backend keeps, and which says whether a directory was
// removed) stays right, so the root can still be written in.
static void host_directory_moves(void) {
  CHECK(t_mkdir("/limited/p1", 0755) == 0, "a directory on the host");
  for (int round = 0; round < 3; round++) {
    for (int way = 0; way < 2; way++) {
      const char *from = way ? "/limited/p1/d" : "/limited/d", *to = way ? "/limited/d" : "/limited/p1/d";
      CHECK(t_mkdir(from, 0755) == 0 && t_rename(from, to) == 0 && t_rmdir(to) == 0, "move %s to %s, remove it", from, to);
    }
  }
  for (const char *const *file = (const char *const[]){"/limited/f", "/limited/p1/f", NULL}; *file; file++) {
    int fd = (int)t_open(*file, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0, "create %s after the moves", *file);
    if (fd >= 0) t_close(fd);
  }
}

// openat relative to a file's descriptor fails (ENOTDIR) and leaves the file's node as it was.
static void openat_relative_to_a_file(void) {
  int fd = (int)t_open("whole", O_RDONLY, 0);
  errno = 0;
  CHECK(fd >= 0 && t_openat(fd, "x", O_RDONLY, 0) == -1 && errno == ENOTDIR, "openat relative to a file: ENOTDIR");
  CHECK(fd >= 0 && t_size(fd) == 10, "the file, still open");
  if (fd >= 0) t_close(fd);
  fd = (int)t_open("whole", O_RDONLY, 0);
  CHECK(fd >= 0 && t_size(fd) == 10, "the file, opened again");
  if (fd >= 0) t_close(fd);
}

// "acXawXy" hashes as "a" does (FNV-1a, the memory backend's directory index): the entry the
// index finds by hash must match the name looked up in length and bytes too. (Under ASan a
// comparison that reads past the stored, shorter name stops the program.)
static void names_with_one_hash(void) {
  int fd = (int)t_open("a", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0, "a file named a");
  if (fd >= 0) t_close(fd);
  errno = 0;
  CHECK(t_open("acXawXy", O_RDONLY, 0) == -1 && errno == ENOENT, "a name that hashes as a: ENOENT");
  t_unlink("a");
}

// Vectors whose lengths add up past SSIZE_MAX: EINVAL before anything moves (POSIX's readv).
static void vectors_past_ssize_max(void) {
  int fd = (int)t_open("whole", O_RDONLY, 0);
  struct iovec vectors[2] = {{back, SSIZE_MAX}, {back, 10}};
  CHECK(fd >= 0 && _ws_fs_readv(fd, vectors, 2, 0) == -EINVAL, "readv of more than SSIZE_MAX bytes: EINVAL");
  if (fd >= 0) t_close(fd);
}

// _ws_make_dirs (mkdirTree in the JS API, and the folders of packaged files) makes every missing
// directory of a path, takes existing ones as they are, and stops at the first real failure.
// A memory file system mounted (ws_fs_memory_backend): its root is drwxr-xr-x, and unmounting it
// with files inside frees them (LeakSanitizer would report any left).
static void memory_mount(void) {
  t_stat_t info;
  CHECK(t_mkdir("/mm", 0700) == 0 && ws_fs_mount("/mm", ws_fs_memory_backend(), NULL) == 0, "mount a memory file system");
  CHECK(t_stat("/mm", &info) == 0 && T_MODE(info) == (S_IFDIR | 0755), "its root's mode %o", (unsigned)T_MODE(info));
  CHECK(t_mkdir("/mm/sub", 0755) == 0, "mkdir in it");
  for (int i = 0; i < 12; i++) {
    char path[32];
    snprintf(path, sizeof path, "/mm/sub/f%d", i);
    CHECK(_ws_write_file(path, "data", 4, 0644) == 0, "write %s", path);
  }
  CHECK(ws_fs_unmount("/mm") == 0 && t_rmdir("/mm") == 0, "unmount it with its files");
}

// The core holds the locks the backend table promises (src/fs/internal.h): a memory file system
// whose rename, create and unlink count the calls made without their directories locked
// exclusively. Renames go both ways between two directories, so that one of them takes the
// locks in the other order, and up into an ancestor.
static ws_fs_backend checked_memory;
static int unlocked_calls;

static void expect_written(ws_node *dir) { unlocked_calls += (atomic_load(&dir->lock.word) & WS_RW_WRITER) == 0; }

static int checked_rename(ws_node *from_dir, const char *from, size_t from_length, ws_node *to_dir, const char *to,
                          size_t to_length) {
  expect_written(from_dir);
  expect_written(to_dir);
  return ws_fs_memory_backend()->rename(from_dir, from, from_length, to_dir, to, to_length);
}

static int checked_create(ws_node *dir, const char *name, size_t length, uint32_t mode, const char *target,
                          ws_node **child) {
  expect_written(dir);
  return ws_fs_memory_backend()->create(dir, name, length, mode, target, child);
}

static int checked_unlink(ws_node *dir, const char *name, size_t length, ws_node *node) {
  expect_written(dir);
  return ws_fs_memory_backend()->unlink(dir, name, length, node);
}

static int lookups;

static int counted_lookup(ws_node *dir, const char *name, size_t length, ws_node **child) {
  lookups++;
  return ws_fs_memory_backend()->lookup(dir, name, length, child);
}

// Walks to `path`'s last name, then (`change`, when not NULL) runs it with no lock held, as
// another thread could, and asks again under the directory's write lock. Returns the second
// answer (0: found, or -errno) and the backend lookups the second one made.
static int asked_again(const char *path, void (*change)(void), int *lookups_made) {
  ws_walk walk;
  if (_ws_walk_at(WS_AT_FDCWD, path, WS_WALK_PARENT, &walk) != 0) return -EINVAL;
  if (change != NULL) change();
  ws_node *child = NULL;
  lookups = 0;
  ws_rwlock_write(&walk.dir->lock);
  int answer = _ws_lookup_again(&walk, &child);
  ws_rwlock_unlock(&walk.dir->lock);
  *lookups_made = lookups;
  _ws_node_unref(child);
  _ws_walk_done(&walk);
  return answer;
}

static void create_x(void) { _ws_write_file("/counted/x", "x", 1, 0644); }
static void remove_x(void) { t_unlink("/counted/x"); }
static void change_other(void) { _ws_write_file("/counted/other", "o", 1, 0644); }

static void lookup_again(void) {
  ws_fs_backend counted = *ws_fs_memory_backend();
  counted.lookup = counted_lookup;
  CHECK(t_mkdir("/counted", 0755) == 0 && ws_fs_mount("/counted", &counted, NULL) == 0, "mount /counted");
  int made;
  CHECK(asked_again("/counted/x", NULL, &made) == -ENOENT && made == 0, "absent, unchanged: %d lookups", made);
  CHECK(asked_again("/counted/x", create_x, &made) == 0 && made == 1, "created in between: not seen");
  CHECK(asked_again("/counted/x", NULL, &made) == 0 && made == 0, "present, unchanged: %d lookups", made);
  CHECK(asked_again("/counted/x", remove_x, &made) == -ENOENT && made == 1, "removed in between: not seen");
  CHECK(asked_again("/counted/x", change_other, &made) == -ENOENT && made == 1, "another name changed in between: not asked again");
  CHECK(t_unlink("/counted/other") == 0 && ws_fs_unmount("/counted") == 0 && t_rmdir("/counted") == 0,
        "unmount /counted");
}

static void lock_contract(void) {
  checked_memory = *ws_fs_memory_backend();
  checked_memory.rename = checked_rename;
  checked_memory.create = checked_create;
  checked_memory.unlink = checked_unlink;
  CHECK(t_mkdir("/checked", 0755) == 0 && ws_fs_mount("/checked", &checked_memory, NULL) == 0, "mount /checked");
  CHECK(t_mkdir("/checked/a", 0755) == 0 && t_mkdir("/checked/b", 0755) == 0 && t_mkdir("/checked/a/deep", 0755) == 0 &&
            _ws_write_file("/checked/a/f", "f", 1, 0644) == 0,
        "its directories and a file");
  CHECK(t_rename("/checked/a/f", "/checked/b/f") == 0 && t_rename("/checked/b/f", "/checked/a/f") == 0 &&
            t_rename("/checked/a/deep", "/checked/b/deep") == 0 && t_rename("/checked/b/deep", "/checked/a/deep") == 0,
        "renames both ways between two directories");
  CHECK(t_rename("/checked/a/f", "/checked/a/deep/f") == 0 && t_rename("/checked/a/deep/f", "/checked/f") == 0,
        "down into a child and up into an ancestor");
  CHECK(t_unlink("/checked/f") == 0 && t_rmdir("/checked/a/deep") == 0 && t_rmdir("/checked/a") == 0 &&
            t_rmdir("/checked/b") == 0,
        "removals");
  CHECK(unlocked_calls == 0, "%d backend calls ran without their directories locked exclusively", unlocked_calls);
  CHECK(ws_fs_unmount("/checked") == 0 && t_rmdir("/checked") == 0, "unmount /checked");
}

// A mount point is busy, as on Linux: it cannot be removed, renamed, nor renamed over; unlink
// calls it a directory.
static void mount_point_busy(void) {
  errno = 0;
  CHECK(t_rmdir("/limited") == -1 && errno == EBUSY, "rmdir of a mount point: errno %d", errno);
  errno = 0;
  CHECK(t_rename("/limited", "/moved") == -1 && errno == EBUSY, "rename of a mount point: errno %d", errno);
  errno = 0;
  CHECK(t_unlink("/limited") == -1 && errno == EISDIR, "unlink of a mount point: errno %d", errno);
  CHECK(t_mkdir("/empty-dir", 0755) == 0, "mkdir /empty-dir");
  errno = 0;
  CHECK(t_rename("/empty-dir", "/limited") == -1 && errno == EBUSY, "rename over a mount point: errno %d", errno);
  CHECK(t_rmdir("/empty-dir") == 0, "rmdir /empty-dir");
  CHECK(t_open("/limited/big", O_RDONLY, 0) >= 0, "the mount still there");
  // Hard links stay inside one mount, whichever way they would cross.
  CHECK(_ws_write_file("/in-memory", "m", 1, 0644) == 0, "a file in memory");
  errno = 0;
  CHECK(t_link("/in-memory", "/limited/linked") == -1 && errno == EXDEV, "link into a mount: errno %d", errno);
  errno = 0;
  CHECK(t_link("/limited/big", "/linked") == -1 && errno == EXDEV, "link out of a mount: errno %d", errno);
  CHECK(t_unlink("/in-memory") == 0, "unlink /in-memory");
}

// "a/b/c..." of exactly `length` bytes (names of one letter), NUL-terminated.
static void short_names(char *out, size_t length) {
  for (size_t i = 0; i < length; i++) out[i] = i % 2 == 0 ? 'n' : '/';
  if (length > 0 && out[length - 1] == '/') out[length - 1] = 'n';
  out[length] = '\0';
}

// A symlink's target spliced into the rest of a path must fit in PATH_MAX bytes with its zero:
// one byte more is ENAMETOOLONG, the largest that fits is walked (and names nothing here).
static void symlink_expansion_limit(void) {
  static char target[2048], rest[WS_PATH_MAX], path[WS_PATH_MAX];
  short_names(target, 1001);
  CHECK(t_mkdir("/spliced", 0755) == 0 && t_symlink(target, "/spliced/l") == 0, "a symlink to %zu bytes", strlen(target));
  // Linux's readlink refuses an empty buffer (musl's turns one into a byte, so libc cannot ask).
  CHECK(_ws_fs_readlinkat(WS_AT_FDCWD, "/spliced/l", path, 0) == -EINVAL, "readlink into no room: EINVAL");
  CHECK(_ws_fs_readlinkat(WS_AT_FDCWD, "/spliced/l", path, (size_t)INT32_MAX + 1) == -EINVAL,
        "readlink into more room than an int counts: EINVAL");
  for (size_t total = WS_PATH_MAX - 1; total <= WS_PATH_MAX; total++) {
    short_names(rest, total - strlen(target) - 1);  // target + '/' + rest
    snprintf(path, sizeof path, "/spliced/l/%s", rest);
    errno = 0;
    long fd = t_open(path, O_RDONLY, 0);
    int expected = total < WS_PATH_MAX ? ENOENT : ENAMETOOLONG;
    CHECK(fd < 0 && errno == expected, "a path whose expansion takes %zu bytes and a zero: errno %d, expected %d", total,
          errno, expected);
  }
}

// getcwd in a directory whose path is longer than PATH_MAX: ENAMETOOLONG, as Linux.
static void deep_working_directory(void) {
  int back = (int)t_open(".", O_RDONLY | O_DIRECTORY, 0);
  char name[201], buffer[2 * WS_PATH_MAX];
  memset(name, 'd', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  CHECK(t_mkdir("/deep", 0755) == 0 && t_chdir("/deep") == 0, "mkdir and chdir /deep");
  for (int i = 0; i < 21; i++) CHECK(t_mkdir(name, 0755) == 0 && t_chdir(name) == 0, "level %d", i);  // 4227 bytes
  errno = 0;
  CHECK(t_getcwd(buffer, sizeof buffer) == NULL && errno == ENAMETOOLONG, "getcwd of a path past PATH_MAX: errno %d", errno);
  CHECK(back >= 0 && _ws_fs_fchdir(back) == 0, "back to the scratch directory");
  CHECK(_ws_fs_getcwd(buffer, 0) == -EINVAL && _ws_fs_getcwd(buffer, 1) == -ERANGE, "getcwd into 0 bytes: EINVAL; 1: ERANGE");
  if (back >= 0) t_close(back);
}

// The longest working directory getcwd gives is PATH_MAX - 1 bytes and a zero; one byte more is
// ENAMETOOLONG.
static void longest_working_directory(void) {
  int back = (int)t_open(".", O_RDONLY | O_DIRECTORY, 0);
  char name[201], last[76], buffer[WS_PATH_MAX + 16];
  memset(name, 'e', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  CHECK(t_chdir("/") == 0, "chdir /");
  for (int i = 0; i < 20; i++) CHECK(t_mkdir(name, 0755) == 0 && t_chdir(name) == 0, "level %d", i);  // 20 x 201 bytes
  memset(last, 'f', sizeof last - 1);
  last[sizeof last - 2] = '\0';  // 74 bytes and its '/': 4095 in all
  CHECK(t_mkdir(last, 0755) == 0 && t_chdir(last) == 0 && _ws_fs_getcwd(buffer, sizeof buffer) == WS_PATH_MAX,
        "getcwd of a path of PATH_MAX - 1 bytes");
  last[sizeof last - 2] = 'f';  // 75 bytes: 4096
  CHECK(t_chdir("..") == 0 && t_mkdir(last, 0755) == 0 && t_chdir(last) == 0 &&
            _ws_fs_getcwd(buffer, sizeof buffer) == -ENAMETOOLONG,
        "getcwd of a path of PATH_MAX bytes");
  CHECK(back >= 0 && _ws_fs_fchdir(back) == 0, "back to the scratch directory");
  if (back >= 0) t_close(back);
}

static void make_dirs(void) {
  CHECK(_ws_make_dirs("/made/a/b/c", 0755) == 0 && t_ino("/made/a/b/c") > 0, "_ws_make_dirs makes every missing directory");
  CHECK(t_ino("/mad") < 0 && t_ino("/made/a/b/") > 0, "and no other (no directory named by part of a name)");
  CHECK(_ws_make_dirs("/made/a/b/c", 0755) == 0, "_ws_make_dirs where all exist");
  CHECK(_ws_write_file("/made/file", "f", 1, 0644) == 0 && _ws_make_dirs("/made/file/x", 0755) == -ENOTDIR,
        "_ws_make_dirs through a file: ENOTDIR");
  CHECK(t_mkdir("/made/sealed", 0555) == 0 && _ws_make_dirs("/made/sealed/x/y", 0755) == -EACCES,
        "_ws_make_dirs under a directory without write permission: EACCES");
  static char long_path[WS_PATH_MAX + 10];
  memset(long_path, 'd', sizeof long_path - 1);
  long_path[0] = '/';
  CHECK(_ws_make_dirs(long_path, 0755) == -ENAMETOOLONG, "_ws_make_dirs of a path longer than PATH_MAX: ENAMETOOLONG");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("core_calls: usage: core_calls HOST_DIR\n");
    return 2;
  }
  char dir[256];
  if (enter_scratch_dir("core_calls", dir, sizeof dir) != 0) return 1;
  write_file_whole();
  sync_all_reports();
  host_file_size_limit(argv[1]);
  console_fsync();
  terminals();
  fallocate_modes();
  host_file_on_descriptor_zero();
  host_blocks_and_refusals(argv[1]);
  host_directory_moves();
  openat_relative_to_a_file();
  names_with_one_hash();
  vectors_past_ssize_max();
  make_dirs();
  deep_working_directory();
  longest_working_directory();
  CHECK(_ws_fs_openat(WS_AT_FDCWD, NULL, O_RDONLY, 0) == -EFAULT, "open of a NULL path is not EFAULT");
  symlink_expansion_limit();
  mount_point_busy();
  memory_mount();
  lock_contract();
  lookup_again();
  if (failures != 0) {
    printf("core_calls: %d failures\n", failures);
    return 1;
  }
  printf("core_calls: whole writes, every sync, writes cut at the file-size limit, terminals, descriptor 0, host refusals\n");
  return 0;
}
