// The host backend when the host fails: a backend of the host backend's operations over the
// platform's host calls, each of which can be made to fail (EIO) on demand. For each k, the k-th
// host call from now fails once, and a sequence of calls runs through a mount of HOST_DIR: make
// a directory, create, write, read back, truncate, sync, chmod, list, make a symlink and read
// it, link, rename, unlink, remove the directory. Each call must succeed or return a negative
// errno, never crash or report a positive number; a read that succeeds must return what was
// written. Then the state is cleaned up with the host healthy, the mount must work again, and
// the next k runs, until every host call of a healthy sequence has failed once. Last, a write,
// a truncate and a lookup the host refuses must return the host's own errno, and a file the host
// replaces between a lookup and the open must be described as opened, no host descriptor left
// open. Last, the host calls that a
// create, a stat, an open and an unlink make are counted, a file made on the inode number of a
// removed one must be itself, and a file opened while another node of it makes its last append
// must count that append. Natively on the core.
//   host_failures HOST_DIR
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"
#define SWEEP_NAME "host_failures"
#include "fail_in_turn.h"
#include "../../src/fs/host/host.h"

static _Atomic int failing_errno = EIO;  // what the failing call answers


#define FAILING(type, name, parameters, arguments) \
  static type failing_##name parameters { return fail_now() ? -atomic_load(&failing_errno) : ws_prim_host_io.name arguments; }
FAILING(int, open_root, (const char *path), (path))
FAILING(int, open_dir, (int dir, const char *name), (dir, name))
// lstat also runs a hook once it has answered: a test changes the host between a lookup's lstat
// and what the backend does next.
static void (*_Atomic after_lstat)(int dir, const char *name);
static int failing_lstat(int dir, const char *name, ws_host_stat *out) {
  int result = fail_now() ? -atomic_load(&failing_errno) : ws_prim_host_io.lstat(dir, name, out);
  void (*hook)(int, const char *) = atomic_exchange(&after_lstat, NULL);
  if (hook != NULL) hook(dir, name);
  return result;
}
// fstat likewise: a test acts as another thread would between a size's read and what follows.
static void (*_Atomic after_fstat)(void);
static int failing_fstat(int fd, ws_host_stat *out) {
  int result = fail_now() ? -atomic_load(&failing_errno) : ws_prim_host_io.fstat(fd, out);
  void (*hook)(void) = atomic_exchange(&after_fstat, NULL);
  if (hook != NULL) hook();
  return result;
}
FAILING(int, open, (int dir, const char *name, int how, uint32_t mode), (dir, name, how, mode))
FAILING(int, close, (int fd), (fd))
FAILING(int64_t, pread, (int fd, void *buffer, size_t length, uint64_t offset), (fd, buffer, length, offset))
FAILING(int64_t, pwrite, (int fd, const void *buffer, size_t length, uint64_t offset), (fd, buffer, length, offset))
FAILING(int, ftruncate, (int fd, uint64_t size), (fd, size))
FAILING(int, fsync, (int fd), (fd))
FAILING(int, chmod, (int fd, uint32_t mode), (fd, mode))
FAILING(int, utimes, (int fd, const int64_t seconds[2], const int32_t nanoseconds[2]), (fd, seconds, nanoseconds))
FAILING(int, mkdir, (int dir, const char *name, uint32_t mode), (dir, name, mode))
FAILING(int, rmdir, (int dir, const char *name), (dir, name))
FAILING(int, unlink, (int dir, const char *name), (dir, name))
FAILING(int, rename, (int from_dir, const char *from, int to_dir, const char *to), (from_dir, from, to_dir, to))
FAILING(int, link, (int from_dir, const char *from, int to_dir, const char *to), (from_dir, from, to_dir, to))
FAILING(int, symlink, (const char *target, int dir, const char *name), (target, dir, name))
FAILING(int, readlink, (int dir, const char *name, char *buffer, size_t size), (dir, name, buffer, size))
FAILING(int64_t, list, (int dir, void *buffer, size_t size), (dir, buffer, size))

static int failing_mount(ws_mount *mount, const char *options) {
  static const ws_host_io calls = WS_HOST_IO(failing);
  return _ws_host_mount(mount, options, &calls);
}
static const ws_fs_backend failing_backend = {.name = "failing host", .mount = failing_mount, WS_HOST_OPERATIONS};

static void expect(bool condition, const char *what) {
  if (!condition) {
    printf("host_failures: round %ld: %s\n", round_number, what);
    failures++;
  }
}

static int count_entry(void *context, const struct ws_dirent *entry, uint64_t next) {
  (void)entry, (void)next;
  ++*(int *)context;
  return 1;
}

// One sequence through the mount at /h; returns whether the armed failure fired during it.
static bool sequence(void) {
  status("mkdir", _ws_fs_mkdirat(WS_AT_FDCWD, "/h/d", 0755));
  int fd = (int)_ws_fs_openat(WS_AT_FDCWD, "/h/d/f", O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    long wrote = t_write(fd, "0123456789", 10);
    char back[16] = {0};
    long got = t_pread(fd, back, 10, 0);
    if (wrote == 10 && got == 10) expect(memcmp(back, "0123456789", 10) == 0, "a read after a write returned other bytes");
    status("ftruncate", _ws_fs_ftruncate(fd, 4));
    status("fsync", _ws_fs_fsync(fd));
    status("fchmod", _ws_fs_fchmod(fd, 0600));
    status("close", _ws_fs_close(fd));
  }
  int dir = (int)_ws_fs_openat(WS_AT_FDCWD, "/h/d", O_RDONLY | O_DIRECTORY, 0);
  if (dir >= 0) {
    int entries = 0;
    int given = _ws_fs_getdents(dir, count_entry, &entries);  // the entries given, or -errno
    if (given >= 0) expect(given == entries, "getdents counted other entries than it gave");
    _ws_fs_close(dir);
  }
  status("symlink", _ws_fs_symlinkat("f", WS_AT_FDCWD, "/h/d/l"));
  char target[16];
  long length = _ws_fs_readlinkat(WS_AT_FDCWD, "/h/d/l", target, sizeof target);
  if (length >= 0) expect(length == 1 && target[0] == 'f', "readlink returned another target");
  status("link", _ws_fs_linkat(WS_AT_FDCWD, "/h/d/f", WS_AT_FDCWD, "/h/d/g", 0));
  status("rename", _ws_fs_renameat(WS_AT_FDCWD, "/h/d/g", WS_AT_FDCWD, "/h/d/h"));
  status("unlink", _ws_fs_unlinkat(WS_AT_FDCWD, "/h/d/h", 0));
  bool did_fire = atomic_load(&fired);
  atomic_store(&countdown, -1);
  return did_fire;
}

// Removes whatever a round left, with the host healthy; then the mount must work as before.
static void clean_up(void) {
  for (const char *const *name = (const char *const[]){"/h/d/f", "/h/d/g", "/h/d/h", "/h/d/l", NULL}; *name; name++) {
    _ws_fs_unlinkat(WS_AT_FDCWD, *name, 0);
  }
  _ws_fs_unlinkat(WS_AT_FDCWD, "/h/d", AT_REMOVEDIR);
  expect(_ws_fs_mkdirat(WS_AT_FDCWD, "/h/probe", 0755) == 0 && _ws_fs_unlinkat(WS_AT_FDCWD, "/h/probe", AT_REMOVEDIR) == 0,
         "the mount no longer works with the host healthy again");
}

// Opens `path` with the host call `skip` calls from now failing with `host_errno`: the open must
// answer that errno. Then removes `path`.
static void open_refused(const char *path, int flags, long skip, int host_errno, const char *what) {
  atomic_store(&failing_errno, host_errno);
  atomic_store(&countdown, skip);
  long opened = _ws_fs_openat(WS_AT_FDCWD, path, flags, 0644);
  atomic_store(&countdown, -1);
  atomic_store(&failing_errno, EIO);
  if (opened != -host_errno) {
    printf("host_failures: the host refused %s (%s); open returned %ld\n", what, strerror(host_errno), opened);
    failures++;
    if (opened >= 0) _ws_fs_close((int)opened);
  }
  _ws_fs_unlinkat(WS_AT_FDCWD, path, 0);
}

// The host's own answer reaches the program: a write or truncate the host refuses returns the
// host's errno (EDQUOT as ENOSPC for a write: the name the program knows for a full disk), and
// so do an open(O_CREAT) whose lookup the host refuses and an open of a file the host will not
// open.
static void host_errno_passed_on(void) {
  int fd = (int)_ws_fs_openat(WS_AT_FDCWD, "/h/e", O_RDWR | O_CREAT | O_TRUNC, 0644);
  expect(fd >= 0, "cannot create /h/e");
  static const struct {
    int host, write, truncate;
  } answers[] = {{EPERM, EPERM, EPERM}, {EACCES, EACCES, EACCES}, {EDQUOT, ENOSPC, EDQUOT}, {EIO, EIO, EIO}};
  for (size_t i = 0; fd >= 0 && i < sizeof answers / sizeof *answers; i++) {
    atomic_store(&failing_errno, answers[i].host);
    atomic_store(&countdown, 0);
    long wrote = _ws_fs_write(fd, "x", 1);
    atomic_store(&countdown, 0);
    long truncated = _ws_fs_ftruncate(fd, 100);
    atomic_store(&countdown, -1);
    atomic_store(&failing_errno, EIO);
    if (wrote != -answers[i].write || truncated != -answers[i].truncate) {
      printf("host_failures: the host answered %s; write returned %ld and ftruncate %ld\n", strerror(answers[i].host),
             wrote, truncated);
      failures++;
    }
  }
  // A lookup the host refuses: open(O_CREAT) of a new name gives the refusal, creates nothing.
  open_refused("/h/new", O_WRONLY | O_CREAT, 0, EPERM, "a lookup");
  // A create the host refuses gives that refusal (the call before it is the lookup's lstat: its
  // repeat under the directory's lock reuses the answer).
  open_refused("/h/new", O_WRONLY | O_CREAT, 1, EPERM, "to create a file");
  // Opening an existing file for reading and writing fails with EMLINK: the file cannot be
  // opened at all (only EACCES and EROFS send the backend to try reading only).
  _ws_fs_close((int)_ws_fs_openat(WS_AT_FDCWD, "/h/existing", O_WRONLY | O_CREAT, 0644));
  open_refused("/h/existing", O_RDONLY, 1, EMLINK, "to open a file");  // after the lookup's lstat
  if (fd >= 0) _ws_fs_close(fd);
  _ws_fs_unlinkat(WS_AT_FDCWD, "/h/e", 0);
}

// open() of `path` with the host changed by `hook` once the lookup's lstat has answered.
static int open_across(void (*hook)(int, const char *), const char *path, int flags) {
  atomic_store(&after_lstat, hook);
  int fd = (int)_ws_fs_openat(WS_AT_FDCWD, path, flags, 0644);
  atomic_store(&after_lstat, NULL);  // (if no lstat ran it)
  return fd;
}

// open(O_CREAT) of `path` across `hook` must open a file of `size` bytes; then it is removed.
static void create_across(void (*hook)(int, const char *), const char *path, long size, const char *what) {
  int fd = open_across(hook, path, O_RDWR | O_CREAT);
  expect(fd >= 0 && t_size(fd) == size, what);
  if (fd >= 0) _ws_fs_close(fd);
  _ws_fs_unlinkat(WS_AT_FDCWD, path, 0);
}

// A file replaced on the host between the lookup's lstat and the backend's open of it: the node
// describes the file it opened (its size), not the one the lstat saw.
static void swap_in_other(int dir, const char *name) {
  if (strcmp(name, "swap") == 0) ws_prim_host_io.rename(dir, "other", dir, "swap");
}

// The process's open descriptors: the host's files natively, so a backend that loses one shows.
static int open_descriptors(void) {
  DIR *dir = opendir("/proc/self/fd");
  int count = 0;
  if (dir == NULL) return -1;
  while (readdir(dir) != NULL) count++;
  closedir(dir);
  return count;
}

static void replaced_while_looked_up(void) {
  int descriptors = open_descriptors();
  expect(_ws_write_file("/h/swap", "ten bytes!", 10, 0644) == 0 &&
             _ws_write_file("/h/other", "twenty bytes, longer", 20, 0644) == 0,
         "cannot write /h/swap and /h/other");
  int fd = open_across(swap_in_other, "/h/swap", O_RDONLY);
  char got[32] = {0};
  expect(fd >= 0 && t_size(fd) == 20 && t_pread(fd, got, sizeof got, 0) == 20 && memcmp(got, "twenty", 6) == 0,
         "a file replaced between the lookup and the open: the node does not describe the file opened");
  if (fd >= 0) _ws_fs_close(fd);
  // The same for a truncate and a chmod by path: they apply to the file the name names now.
  expect(_ws_write_file("/h/other", "another twenty bytes", 20, 0644) == 0, "cannot write /h/other");
  atomic_store(&after_lstat, swap_in_other);
  long truncated = _ws_fs_truncate("/h/swap", 7);
  expect(truncated == 0 && t_lstat("/h/swap", &(ws_stat){0}) == 0, "truncate of a file replaced since its lookup failed");
  expect(_ws_write_file("/h/other", "third", 5, 0644) == 0, "cannot write /h/other");
  atomic_store(&after_lstat, swap_in_other);
  long changed = _ws_fs_fchmodat(WS_AT_FDCWD, "/h/swap", 0600, 0);
  atomic_store(&after_lstat, NULL);
  ws_stat info = {0};
  expect(changed == 0 && t_lstat("/h/swap", &info) == 0 && info.size == 5 && (info.mode & 0777) == 0600,
         "chmod of a file replaced since its lookup did not change the file the name names");
  _ws_fs_unlinkat(WS_AT_FDCWD, "/h/swap", 0);
  _ws_fs_unlinkat(WS_AT_FDCWD, "/h/other", 0);
  // Each open of the file the lstat did not see was refused as stale and made again: the
  // descriptor of the refused one is closed.
  expect(descriptors > 0 && open_descriptors() == descriptors, "a host descriptor was left open");
}

// Host calls made by one call through the mount, with none failing.
static long host_calls(long result, long *calls) {
  *calls = atomic_exchange(&attempts, 0);
  return result;
}

// What each common call costs in host calls: a file is opened at its first use, not by a lookup
// (a stat or an unlink opens nothing), and the lookup the core repeats under a directory's lock
// reuses the walk's answer.
static void host_calls_per_call(void) {
  long created, closed, stated, opened, unlinked;
  ws_stat info;
  atomic_store(&attempts, 0);
  int fd = (int)host_calls(_ws_fs_openat(WS_AT_FDCWD, "/h/c", O_WRONLY | O_CREAT | O_EXCL, 0644), &created);
  host_calls(_ws_fs_close(fd), &closed);
  long stat_result = host_calls(t_stat("/h/c", &info), &stated);
  fd = (int)host_calls(_ws_fs_openat(WS_AT_FDCWD, "/h/c", O_RDONLY, 0), &opened);
  _ws_fs_close(fd);
  atomic_store(&attempts, 0);
  long unlink_result = host_calls(_ws_fs_unlinkat(WS_AT_FDCWD, "/h/c", 0), &unlinked);
  expect(fd >= 0 && stat_result == 0 && unlink_result == 0, "create, stat, open or unlink of /h/c failed");
  // create: lstat (absent), open, fstat; stat: lstat; open: lstat, open, fstat; unlink: lstat, unlink.
  if (created != 3 || closed != 1 || stated != 1 || opened != 3 || unlinked != 2) {
    printf("host_failures: host calls per call: create %ld (3), close %ld (1), stat %ld (1), open %ld (3), unlink %ld (2)\n",
           created, closed, stated, opened, unlinked);
    failures++;
  }
}

// A file removed on the host between the lookup's lstat and the open: open(O_CREAT) makes it
// anew (the lookup is made again), as it would have had the removal come first.
static void remove_vanish(int dir, const char *name) {
  if (strcmp(name, "vanish") == 0) ws_prim_host_io.unlink(dir, "vanish");
}

static void removed_while_looked_up(void) {
  expect(_ws_write_file("/h/vanish", "old", 3, 0644) == 0, "cannot write /h/vanish");
  create_across(remove_vanish, "/h/vanish", 0, "open(O_CREAT) of a file removed since its lookup did not make it anew");
}

// A file made on the host between the lookup's lstat (absent) and the create: open(O_CREAT)
// without O_EXCL opens it, as it would have had the file come first.
static void make_appear(int dir, const char *name) {
  if (strcmp(name, "appear") != 0) return;
  int fd = ws_prim_host_io.open(dir, "appear", WS_HOST_READ_WRITE | WS_HOST_CREATE, 0644);
  if (fd >= 0) ws_prim_host_io.pwrite(fd, "there", 5, 0), ws_prim_host_io.close(fd);
}

static void made_while_looked_up(void) {
  create_across(make_appear, "/h/appear", 5, "open(O_CREAT) of a file made on the host since its lookup did not open it");
}

// A host directory's link count follows the subdirectories made and removed through the mount
// while its node lives (here, held open).
static void directory_links(void) {
  ws_stat info = {0};
  expect(t_mkdir("/h/p", 0755) == 0, "cannot make /h/p");
  int dir = (int)_ws_fs_openat(WS_AT_FDCWD, "/h/p", O_RDONLY | O_DIRECTORY, 0);
  expect(dir >= 0 && t_mkdir("/h/p/q", 0755) == 0 && t_fstat(dir, &info) == 0 && info.nlink == 3,
         "a subdirectory made: the parent's link count is not 3");
  expect(_ws_fs_unlinkat(WS_AT_FDCWD, "/h/p/q", AT_REMOVEDIR) == 0 && t_fstat(dir, &info) == 0 && info.nlink == 2,
         "a subdirectory removed: the parent's link count is not 2");
  if (dir >= 0) _ws_fs_close(dir);
  _ws_fs_unlinkat(WS_AT_FDCWD, "/h/p", AT_REMOVEDIR);
}

// A file that no call has opened is held by nothing on the host: once removed, its inode number
// may name a new file (ext4 gives it to the next one). A node a lookup made of the removed file,
// still referenced (by a stat on another thread, say), must not stand for the new file: creating
// it with O_EXCL succeeds, and what is written is the new file's.
static void inode_number_reused(void) {
  for (int i = 0; i < 8; i++) {
    ws_walk held;
    if (_ws_write_file("/h/gone", "gone", 4, 0644) != 0 || _ws_walk_at(WS_AT_FDCWD, "/h/gone", 0, &held) != 0) {
      expect(false, "cannot write and look up /h/gone");
      return;
    }
    expect(_ws_fs_unlinkat(WS_AT_FDCWD, "/h/gone", 0) == 0, "cannot unlink /h/gone");
    int fd = (int)_ws_fs_openat(WS_AT_FDCWD, "/h/new", O_RDWR | O_CREAT | O_EXCL, 0644);
    ws_stat info = {0};
    expect(fd >= 0 && _ws_fs_write(fd, "new file", 8) == 8 && t_fstat(fd, &info) == 0 && info.size == 8,
           "a file made while a lookup's node of a removed file lives is not itself");
    if (fd >= 0) _ws_fs_close(fd);
    _ws_walk_done(&held);
    _ws_fs_unlinkat(WS_AT_FDCWD, "/h/new", 0);
  }
}

// Another thread's node of a file can make its last append and drop its last reference (its
// release then waits for the node table's lock) while a second node of the same file is being
// opened. The second node's size must count that append, or its own next append overwrites it.
// Played on one thread: the fstat hook makes `leaving` append a record and drop to zero
// references, as that thread would; its references come back once the open is over.
static int leaving_fd;
static ws_node *leaving;
static uint32_t leaving_refs;

static void append_and_leave(void) {
  expect(_ws_fs_write(leaving_fd, "second record.\n", 15) == 15, "the leaving node's append failed");
  leaving_refs = atomic_exchange(&leaving->refs, 0);
}

static void come_back(void) {
  if (leaving_refs != 0) atomic_store(&leaving->refs, leaving_refs);
  leaving_refs = 0;
}

// Opens `path` for appending as `leaving`, held by a walk too (released by the caller).
static bool hold_leaving(const char *path, ws_walk *held) {
  leaving_fd = (int)_ws_fs_openat(WS_AT_FDCWD, path, O_WRONLY | O_APPEND, 0);
  if (leaving_fd < 0 || _ws_walk_at(WS_AT_FDCWD, path, 0, held) != 0) return false;
  leaving = held->node;
  return true;
}

// A file opened at its first use, by a node a lookup made before `leaving` opened the file: the
// open must answer ESTALE (the core looks the name up again) or describe both records.
static void opened_while_another_leaves(void) {
  ws_walk found, held;
  expect(_ws_write_file("/h/log", "first record..\n", 15, 0644) == 0 &&
             _ws_walk_at(WS_AT_FDCWD, "/h/log", 0, &found) == 0,
         "cannot write and look up /h/log");
  expect(hold_leaving("/h/log", &held) && held.node != found.node, "cannot open /h/log beside a lookup's node");
  atomic_store(&after_fstat, append_and_leave);
  int opened = _ws_host_open(found.node, O_WRONLY | O_APPEND);
  atomic_store(&after_fstat, NULL);
  come_back();
  expect(opened == -ESTALE || (opened == 0 && found.node->size == 30),
         "a file opened while another node of it made its last append: that append is missing from its size");
  _ws_walk_done(&held);
  _ws_walk_done(&found);
  _ws_fs_close(leaving_fd);
  _ws_fs_unlinkat(WS_AT_FDCWD, "/h/log", 0);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("host_failures: usage: host_failures HOST_DIR\n");
    return 2;
  }
  if (t_mkdir("/h", 0755) != 0 || ws_fs_mount("/h", &failing_backend, argv[1]) != 0) {
    printf("host_failures: cannot mount %s\n", argv[1]);
    return 1;
  }
  // How many host calls the sequence makes when none fails: every one of them fails in turn.
  atomic_store(&attempts, 0);
  sequence();
  long needed = atomic_load(&attempts);
  clean_up();
  for (round_number = 0; round_number < 10000; round_number++) {
    atomic_store(&fired, false);
    atomic_store(&countdown, round_number);
    bool did_fire = sequence();
    clean_up();
    if (!did_fire) break;
  }
  host_errno_passed_on();
  replaced_while_looked_up();
  host_calls_per_call();
  inode_number_reused();
  removed_while_looked_up();
  made_while_looked_up();
  directory_links();
  opened_while_another_leaves();
  if (round_number < needed) {
    printf("host_failures: only %ld of the %ld host calls of a healthy run were reached\n", round_number, needed);
    failures++;
  }
  if (failures != 0) {
    printf("host_failures: %d failures\n", failures);
    return 1;
  }
  printf("host_failures: %ld host calls failed one at a time, every call answered 0 or an errno, the mount intact\n",
         round_number);
  return 0;
}
