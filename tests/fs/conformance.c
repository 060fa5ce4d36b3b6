// File-system conformance: one table of cases per syscall, each with the result and errno
// Linux gives. Built twice by tests/fs.test.mjs: natively (against Linux, in a fresh
// directory, as an unprivileged user so that mode bits count) and to Wasm (against wasmscale's
// file system). Both runs must match the table; where wasmscale intends to differ, the case
// says so and why. Prints one line per failed case; exits 1 if any failed.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "conformance_support.h"

// ----- open ----------------------------------------------------------------------------------
static void open_cases(void) {
  put_file("f", "hello");
  mkdir("d", 0755);
  symlink("f", "link-f");
  symlink("loop-b", "loop-a");
  symlink("loop-a", "loop-b");
  CASE("open", "existing file, read only", FD(open("f", O_RDONLY)), "fd");
  CASE("open", "missing file", FD(open("missing", O_RDONLY)), "ENOENT");
  CASE("open", "O_CREAT|O_EXCL on an existing file", FD(open("f", O_CREAT | O_EXCL | O_WRONLY, 0644)), "EEXIST");
  CASE("open", "O_CREAT makes a file", FD(open("created", O_CREAT | O_WRONLY, 0644)), "fd");
  CASE("open", "created with mode & ~umask", MODE("created"), "100644");
  CASE("open", "directory for writing", FD(open("d", O_WRONLY)), "EISDIR");
  CASE("open", "directory with O_DIRECTORY", FD(open("d", O_RDONLY | O_DIRECTORY)), "fd");
  CASE("open", "file with O_DIRECTORY", FD(open("f", O_RDONLY | O_DIRECTORY)), "ENOTDIR");
  CASE("open", "a file used as a directory", FD(open("f/x", O_RDONLY)), "ENOTDIR");
  CASE("open", "O_CREAT in a missing directory", FD(open("missing/x", O_CREAT | O_WRONLY, 0644)), "ENOENT");
  CASE("open", "O_CREAT with a trailing slash", FD(open("new/", O_CREAT | O_WRONLY, 0644)), "EISDIR");
  CASE("open", "O_NOFOLLOW on a symlink", FD(open("link-f", O_RDONLY | O_NOFOLLOW)), "ELOOP");
  CASE("open", "through a symlink", READ_ALL("link-f"), "hello");
  CASE("open", "a symlink loop", FD(open("loop-a", O_RDONLY)), "ELOOP");
  CASE("open", "a 256-byte name", FD(open(long_name(256), O_RDONLY)), "ENAMETOOLONG");
  CASE("open", "O_CREAT with a 256-byte name", FD(open(long_name(256), O_CREAT | O_WRONLY, 0644)), "ENAMETOOLONG");
  CASE("mkdir", "a 256-byte name", N(mkdir(long_name(256), 0755)), "ENAMETOOLONG");
  CASE("open", "O_CREAT with a 255-byte name", FD(open(long_name(255), O_CREAT | O_WRONLY, 0644)), "fd");
  unlink(long_name(255));
  CASE("open", "a 4096-byte path", FD(open(long_path(4096), O_RDONLY)), "ENAMETOOLONG");
  CASE("open", "a 4095-byte path", FD(open(long_path(4095), O_RDONLY)), "ENOENT");
  CASE("open", "empty path", FD(open("", O_RDONLY)), "ENOENT");
  put_file("t", "hello");
  close(open("t", O_WRONLY | O_TRUNC));
  CASE("open", "O_TRUNC empties the file", SIZE("t"), "0");
  put_file("a", "hello");
  int fd = open("a", O_WRONLY | O_APPEND);
  lseek(fd, 0, SEEK_SET);
  CASE("open", "O_APPEND writes at the end", N(write(fd, "!", 1)), "1");
  close(fd);
  CASE("open", "O_APPEND result", READ_ALL("a"), "hello!");
  fd = open("f", O_RDONLY | O_CLOEXEC);
  CASE("open", "O_CLOEXEC sets FD_CLOEXEC", N(fcntl(fd, F_GETFD)), "1");
  close(fd);
  put_file("noread", "x");
  chmod("noread", 0200);
  CASE("open", "reading without read permission", FD(open("noread", O_RDONLY)), "EACCES");
  chmod("noread", 0444);
  CASE("open", "writing without write permission", FD(open("noread", O_WRONLY)), "EACCES");
  CASE("open", "O_TRUNC without write permission", FD(open("noread", O_RDONLY | O_TRUNC)), "EACCES");
  mkdir("nosearch", 0755);
  put_file("nosearch/f", "x");
  chmod("nosearch", 0600);
  CASE("open", "through a directory without search permission", FD(open("nosearch/f", O_RDONLY)), "EACCES");
  chmod("nosearch", 0755);
  mkdir("nowrite", 0555);
  CASE("open", "creating in a read-only directory", FD(open("nowrite/f", O_CREAT | O_WRONLY, 0644)), "EACCES");
  int opened = 0, last;
  while ((last = open("f", O_RDONLY)) >= 0) opened++;
  CASE("open", "descriptors run out", ERR(last), "EMFILE");
  for (int i = 0; i < 1024; i++) {
    if (i > 2 && i != log_fd()) close(i);
  }
}

// ----- read, write, pread, pwrite, readv, writev, lseek ---------------------------------------
static void io_cases(void) {
  put_file("io", "hello");
  int reader = open("io", O_RDONLY), writer = open("io", O_WRONLY), dir = open("d", O_RDONLY);
  char buffer[64];
  CASE("read", "from a write-only descriptor", N(read(writer, buffer, 1)), "EBADF");
  CASE("write", "to a read-only descriptor", N(write(reader, "x", 1)), "EBADF");
  CASE("read", "0 bytes", N(read(reader, buffer, 0)), "0");
  CASE("write", "0 bytes", N(write(writer, buffer, 0)), "0");
  CASE("readv", "no vectors", N(readv(reader, (struct iovec[1]){{buffer, 1}}, 0)), "0");
  static struct iovec too_many[1025];
  for (int i = 0; i < 1025; i++) too_many[i] = (struct iovec){buffer, 1};
  CASE("readv", "1025 vectors, past IOV_MAX", N(readv(reader, too_many, 1025)), "EINVAL");
  CASE("readv", "a negative count", N(readv(reader, too_many, -1)), "EINVAL");
  CASE("preadv", "vectors of 0 bytes", N(preadv(reader, (struct iovec[2]){{buffer, 0}, {buffer, 0}}, 2, 0)), "0");
  CASE("read", "from a directory", N(read(dir, buffer, 1)), "EISDIR");
  CASE("read", "from descriptor -1", N(read(-1, buffer, 1)), "EBADF");
  CASE("read", "more than the file holds", N(read(reader, buffer, sizeof buffer)), "5");
  CASE("read", "at the end of the file", N(read(reader, buffer, sizeof buffer)), "0");
  CASE("pwrite", "past the end leaves a hole", N(pwrite(writer, "X", 1, 10)), "1");
  CASE("pread", "the hole reads as zeros", PREAD_HEX(reader, 11, 0), "68656c6c6f0000000000" "58");
  CASE("pread", "a negative offset", N(pread(reader, buffer, 1, -1)), "EINVAL");
  CASE("pread", "does not move the position", N(lseek(reader, 0, SEEK_CUR)), "5");
  struct iovec parts[2] = {{"ab", 2}, {"cde", 3}};
  CASE("writev", "two buffers", N(pwritev(writer, parts, 2, 0)), "5");
  char first[2], second[3];
  struct iovec into[2] = {{first, 2}, {second, 3}};
  CASE("readv", "two buffers", N(preadv(reader, into, 2, 0)), "5");
  CASE("readv", "data", TEXT("%.2s|%.3s", first, second), "ab|cde");
  int negative = -1;  // through a variable: the compiler rejects a literal
  CASE("writev", "a negative count", N(writev(writer, parts, *(volatile int *)&negative)), "EINVAL");
  CASE("lseek", "SEEK_END", N(lseek(reader, 0, SEEK_END)), "11");
  CASE("lseek", "SEEK_CUR backwards", N(lseek(reader, -3, SEEK_CUR)), "8");
  CASE("lseek", "before the start", N(lseek(reader, -100, SEEK_SET)), "EINVAL");
  CASE("lseek", "a bad whence", N(lseek(reader, 0, 42)), "EINVAL");
  CASE("lseek", "beyond 4 GiB", N(lseek(writer, 5LL << 30, SEEK_SET)), "5368709120");
  CASE("write", "beyond 4 GiB", N(write(writer, "Z", 1)), "1");
  CASE("fstat", "size beyond 4 GiB", FSIZE(writer), "5368709121");
  CASE("pread", "a hole beyond 4 GiB", PREAD_HEX(reader, 2, (4LL << 30) + 7), "0000");
  CASE("pread", "the byte beyond 4 GiB", PREAD_HEX(reader, 1, 5LL << 30), "5a");
  CASE("ftruncate", "back to 3 bytes", N(ftruncate(writer, 3)), "0");
  CASE("ftruncate", "then longer: the cut bytes read as zeros", N(ftruncate(writer, 6)), "0");
  CASE("pread", "after shrink and growth", PREAD_HEX(reader, 6, 0), "616263000000");
  CASE("ftruncate", "to 1 byte, then 6 again", N(ftruncate(writer, 1) + ftruncate(writer, 6)), "0");
  CASE("pread", "the cut bytes read as zeros", PREAD_HEX(reader, 6, 0), "610000000000");
  CASE("ftruncate", "a read-only descriptor", N(ftruncate(reader, 0)), "EINVAL");
  CASE("ftruncate", "a negative size", N(ftruncate(writer, -1)), "EINVAL");
  CASE("truncate", "a directory", N(truncate("d", 0)), "EISDIR");
  CASE("truncate", "a missing file", N(truncate("missing", 0)), "ENOENT");
  CASE("truncate", "by name", N(truncate("io", 2)), "0");
  CASE("truncate", "size after", SIZE("io"), "2");
  CASE("fsync", "a file", N(fsync(writer)), "0");
  CASE("fdatasync", "a file", N(fdatasync(writer)), "0");
  CASE("fsync", "a bad descriptor", N(fsync(-1)), "EBADF");
  CASE("fallocate", "grows the file", N(fallocate(writer, 0, 0, 100)), "0");
  CASE("fallocate", "size after", SIZE("io"), "100");
  CASE("fallocate", "inside the file", N(fallocate(writer, 0, 10, 20)), "0");
  CASE("fallocate", "keeps the size", SIZE("io"), "100");
  CASE("fallocate", "a zero length", N(fallocate(writer, 0, 0, 0)), "EINVAL");
  CASE("fallocate", "a read-only descriptor", N(fallocate(reader, 0, 0, 10)), "EBADF");
  CASE("close", "descriptor -1", N(close(-1)), "EBADF");
  close(dir);
  CASE("close", "twice", N(close(dir)), "EBADF");
  put_file("gone", "still here");
  int held = open("gone", O_RDONLY);
  unlink("gone");
  CASE("read", "an unlinked open file", READ_FD(held), "still here");
  close(held);
  close(reader);
  close(writer);
}

// ----- dup, fcntl, record locks, ioctl -------------------------------------------------------
// Holds an open file description's write lock on bytes 0-9 for a moment, marks that it lets
// go, and lets go: a waiter that gets the lock can only get it after the mark.
static _Atomic int lock_released;
static void *hold_then_release(void *fd) {
  usleep(50000);
  lock_released = 1;
  struct flock unlock = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
  fcntl(*(int *)fd, F_OFD_SETLK, &unlock);
  return NULL;
}

static void *hold_flock_then_release(void *fd) {
  usleep(50000);
  lock_released = 1;
  flock(*(int *)fd, LOCK_UN);
  return NULL;
}

// Where a description other than `fd`'s finds a lock on byte `at`: "start length" of the lock
// in its way, or "free".
static const char *lock_at(int fd, off_t at) {
  static char text[64];
  struct flock probe = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = at, .l_len = 1};
  if (fcntl(fd, F_OFD_GETLK, &probe) != 0) return "error";
  if (probe.l_type == F_UNLCK) return "free";
  snprintf(text, sizeof text, "%lld %lld", (long long)probe.l_start, (long long)probe.l_len);
  return text;
}

static void lock_cases(void) {
  put_file("locked", "0123456789abcdef");
  int holder = open("locked", O_RDWR), waiter = open("locked", O_RDWR);
  struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
  fcntl(holder, F_OFD_SETLK, &whole);
  struct flock middle = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 3, .l_len = 4};
  fcntl(holder, F_OFD_SETLK, &middle);
  char seen[200];
  snprintf(seen, sizeof seen, "%s", lock_at(waiter, 1));
  snprintf(seen + strlen(seen), sizeof seen - strlen(seen), ", %s", lock_at(waiter, 5));
  snprintf(seen + strlen(seen), sizeof seen - strlen(seen), ", %s", lock_at(waiter, 8));
  CASE("fcntl", "unlocking the middle of a lock leaves both ends locked", seen, "0 3, free, 7 3");
  CASE("fcntl", "locking a range again over its owner's pieces", N(fcntl(holder, F_OFD_SETLK, &whole)), "0");
  CASE("fcntl", "the pieces and the new lock are one", lock_at(waiter, 5), "0 10");
  struct flock head = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 3};
  struct flock tail = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 8, .l_len = 2};
  fcntl(holder, F_OFD_SETLK, &head);
  fcntl(holder, F_OFD_SETLK, &tail);
  snprintf(seen, sizeof seen, "%s, %s, %s", lock_at(waiter, 1), lock_at(waiter, 5), lock_at(waiter, 9));
  CASE("fcntl", "unlocking the start and the end of a lock keeps the rest", seen, "free, 3 5, free");
  struct flock left = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 3};
  fcntl(holder, F_OFD_SETLK, &left);
  CASE("fcntl", "a lock beside its owner's lock of the same type merges with it", lock_at(waiter, 1), "0 8");
  struct flock right = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 8, .l_len = 2};
  fcntl(holder, F_OFD_SETLK, &right);
  CASE("fcntl", "and so does one after it", lock_at(waiter, 9), "0 10");
  struct flock shared = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
  CASE("fcntl", "its owner turns a write lock into a read lock", N(fcntl(holder, F_OFD_SETLK, &shared)), "0");
  struct flock reading = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 4, .l_len = 1};
  int asked = fcntl(waiter, F_OFD_GETLK, &reading);
  CASE("fcntl", "F_OFD_GETLK for a read lock beside a read lock",
       TEXT("%d %s", asked, reading.l_type == F_UNLCK ? "F_UNLCK" : "locked"), "0 F_UNLCK");
  struct flock writing = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 4, .l_len = 1};
  fcntl(waiter, F_OFD_GETLK, &writing);
  CASE("fcntl", "F_OFD_GETLK names the holder's type, whence, pid and range",
       TEXT("%s %d %d %lld %lld", writing.l_type == F_RDLCK ? "F_RDLCK" : "other", writing.l_whence, writing.l_pid,
            (long long)writing.l_start, (long long)writing.l_len), "F_RDLCK 0 -1 0 10");
  struct flock to_end = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 20, .l_len = 0};
  fcntl(holder, F_OFD_SETLK, &to_end);
  CASE("fcntl", "a lock of length 0 reaches past the end of the file", lock_at(waiter, 100000), "20 0");
  struct flock backwards = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 16, .l_len = -3};
  CASE("fcntl", "a negative length", N(fcntl(holder, F_OFD_SETLK, &backwards)), "0");
  snprintf(seen, sizeof seen, "%s, %s", lock_at(waiter, 13), lock_at(waiter, 16));
  CASE("fcntl", "a negative length locks the bytes before l_start", seen, "13 3, free");
  struct flock from_end = {.l_type = F_WRLCK, .l_whence = SEEK_END, .l_start = 1, .l_len = 2};
  fcntl(holder, F_OFD_SETLK, &from_end);
  CASE("fcntl", "SEEK_END counts from the file's size", lock_at(waiter, 17), "17 2");
  lseek(holder, 11, SEEK_SET);
  struct flock from_here = {.l_type = F_WRLCK, .l_whence = SEEK_CUR, .l_start = -1, .l_len = 1};
  fcntl(holder, F_OFD_SETLK, &from_here);
  CASE("fcntl", "SEEK_CUR counts from the position", lock_at(waiter, 10), "10 1");
  struct flock before_zero = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 2, .l_len = -3};
  CASE("fcntl", "a range that starts before byte 0", N(fcntl(holder, F_OFD_SETLK, &before_zero)), "EINVAL");
  struct flock odd_type = {.l_type = 77, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
  CASE("fcntl", "an unknown lock type", N(fcntl(holder, F_OFD_SETLK, &odd_type)), "EINVAL");
  odd_type.l_type = -1;
  CASE("fcntl", "a negative lock type", N(fcntl(holder, F_OFD_SETLK, &odd_type)), "EINVAL");
  struct flock odd_whence = {.l_type = F_WRLCK, .l_whence = 7, .l_start = 0, .l_len = 1};
  CASE("fcntl", "an unknown l_whence", N(fcntl(holder, F_OFD_SETLK, &odd_whence)), "EINVAL");
  struct flock with_pid = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1, .l_pid = 1};
  CASE("fcntl", "F_OFD_SETLK with l_pid set", N(fcntl(holder, F_OFD_SETLK, &with_pid)), "EINVAL");
  struct flock everything = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  fcntl(holder, F_OFD_SETLK, &everything);
  CASE("fcntl", "unlocking to the end frees every range", TEXT("%s, %s", lock_at(waiter, 5), lock_at(waiter, 50)),
       "free, free");
  fcntl(holder, F_OFD_SETLK, &whole);
  lock_released = 0;
  pthread_t thread;
  pthread_create(&thread, NULL, hold_then_release, &holder);
  int waited = fcntl(waiter, F_OFD_SETLKW, &whole);
  CASE("fcntl", "F_OFD_SETLKW waits for the holder to let go", TEXT("%d %d", waited, lock_released), "0 1");
  pthread_join(thread, NULL);
  close(waiter);
  close(holder);
  holder = open("locked", O_RDONLY);
  waiter = open("locked", O_RDONLY);
  flock(holder, LOCK_EX);
  CASE("flock", "LOCK_EX|LOCK_NB while another description holds it", N(flock(waiter, LOCK_EX | LOCK_NB)), "EAGAIN");
  CASE("flock", "LOCK_SH|LOCK_NB while another description holds LOCK_EX", N(flock(waiter, LOCK_SH | LOCK_NB)),
       "EAGAIN");
  struct flock record = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  CASE("fcntl", "a record lock beside another description's flock", N(fcntl(waiter, F_OFD_SETLK, &record)), "0");
  record.l_type = F_UNLCK;
  fcntl(waiter, F_OFD_SETLK, &record);
  lock_released = 0;
  pthread_create(&thread, NULL, hold_flock_then_release, &holder);
  waited = flock(waiter, LOCK_EX);
  CASE("flock", "LOCK_EX waits for the holder to let go", TEXT("%d %d", waited, lock_released), "0 1");
  pthread_join(thread, NULL);
  close(waiter);
  close(holder);
  holder = open("locked", O_RDWR);
  waiter = open("locked", O_RDWR);
  flock(holder, LOCK_EX);
  fcntl(holder, F_OFD_SETLK, &whole);
  close(holder);
  CASE("close", "releases the description's flock and record locks",
       TEXT("%s, %s", N(flock(waiter, LOCK_EX | LOCK_NB)), lock_at(waiter, 5)), "0, free");
  close(waiter);
}

static void descriptor_cases(void) {
  put_file("dup", "abcdef");
  int fd = open("dup", O_RDONLY), copy = dup(fd);
  char byte;
  read(fd, &byte, 1);
  CASE("dup", "shares the position", N(lseek(copy, 0, SEEK_CUR)), "1");
  CASE("dup2", "onto itself", N(dup2(fd, fd) == fd), "1");
  CASE("dup3", "onto itself", N(dup3(fd, fd, 0)), "EINVAL");
  CASE("dup3", "unknown flags", N(dup3(fd, 100, 12345)), "EINVAL");
  CASE("dup2", "beyond the descriptor limit", N(dup2(fd, 5000)), "EBADF");
  CASE("dup2", "replaces an open descriptor", N(dup2(fd, copy) == copy), "1");
  CASE("fcntl", "F_DUPFD at least 100", N(fcntl(fd, F_DUPFD, 100)), "100");
  CASE("fcntl", "F_DUPFD_CLOEXEC", N(fcntl(fcntl(fd, F_DUPFD_CLOEXEC, 0), F_GETFD)), "1");
  CASE("fcntl", "F_SETFD then F_GETFD", N(fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC), "1");
  int writer = open("dup", O_WRONLY);
  CASE("fcntl", "F_GETFL", N(fcntl(writer, F_GETFL) & (O_ACCMODE | O_APPEND | O_NONBLOCK)), TEXT("%d", O_WRONLY));
  fcntl(writer, F_SETFL, O_APPEND | O_NONBLOCK);
  CASE("fcntl", "F_SETFL O_APPEND|O_NONBLOCK", N(fcntl(writer, F_GETFL) & (O_ACCMODE | O_APPEND | O_NONBLOCK)),
       TEXT("%d", O_WRONLY | O_APPEND | O_NONBLOCK));
  CASE("fcntl", "an unknown command", N(fcntl(fd, 9999)), "EINVAL");
  CASE("fcntl", "a bad descriptor", N(fcntl(-1, F_GETFL)), "EBADF");
  int locker = open("dup", O_RDWR), other = open("dup", O_RDWR);
  struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
  CASE("fcntl", "F_SETLK a write lock", N(fcntl(locker, F_SETLK, &lock)), "0");
  struct flock probe = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
  CASE("fcntl", "F_GETLK by the same process", N(fcntl(other, F_GETLK, &probe) == 0 && probe.l_type == F_UNLCK), "1");
  struct flock ofd = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
  CASE("fcntl", "F_OFD_SETLK over the process's lock", N(fcntl(other, F_OFD_SETLK, &ofd)), "EAGAIN");
  lock.l_type = F_UNLCK;
  fcntl(locker, F_SETLK, &lock);
  CASE("fcntl", "F_OFD_SETLK once it is released", N(fcntl(other, F_OFD_SETLK, &ofd)), "0");
  struct flock ofd_probe = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 1};
  int found = fcntl(locker, F_OFD_GETLK, &ofd_probe) == 0 && ofd_probe.l_type == F_WRLCK;
  CASE("fcntl", "F_OFD_GETLK from another description",
       TEXT("%d %lld %lld", found, (long long)ofd_probe.l_start, (long long)ofd_probe.l_len), "1 0 10");
  struct flock wrong = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  CASE("fcntl", "a write lock on a read-only descriptor", N(fcntl(fd, F_SETLK, &wrong)), "EBADF");
  struct flock read_lock = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 50, .l_len = 1};
  CASE("fcntl", "a read lock on a write-only descriptor", N(fcntl(writer, F_SETLK, &read_lock)), "EBADF");
  CASE("fcntl", "a read lock on a read-only descriptor", N(fcntl(fd, F_SETLK, &read_lock)), "0");
  CASE("fcntl", "F_GETLK for a write lock on a read-only descriptor", N(fcntl(fd, F_GETLK, &wrong)), "0");
  CASE("ioctl", "isatty on a file", ISATTY(fd), "ENOTTY");
  CASE("ioctl", "isatty on a closed descriptor", ISATTY(999), "EBADF");
  close(other);
  close(locker);
  close(writer);
  close(copy);
  close(fd);
}

// ----- names: mkdir, rmdir, unlink, rename, link, symlink, readlink ---------------------------
static void name_cases(void) {
  mkdir("n", 0755);
  CASE("mkdir", "an existing name", N(mkdir("n", 0755)), "EEXIST");
  CASE("mkdir", "in a missing directory", N(mkdir("missing/x", 0755)), "ENOENT");
  CASE("mkdir", "under a file", N(mkdir("f/x", 0755)), "ENOTDIR");
  CASE("mkdir", "with a trailing slash", N(mkdir("n/sub/", 0777)), "0");
  CASE("mkdir", "mode & ~umask", MODE("n/sub"), "40755");
  CASE("mkdirat", "relative to a directory descriptor", N(mkdirat(open("n", O_RDONLY), "sub2", 0700)), "0");
  CASE("mkdirat", "a descriptor that is a file", N(mkdirat(open("f", O_RDONLY), "x", 0700)), "ENOTDIR");
  CASE("mkdir", "\".\"", N(mkdir("n/.", 0755)), "EEXIST");
  CASE("stat", "a directory's link count", NLINK("n"), "4");
  put_file("n/sub/file", "x");
  CASE("rmdir", "a non-empty directory", N(rmdir("n/sub")), "ENOTEMPTY");
  CASE("rmdir", "a file", N(rmdir("n/sub/file")), "ENOTDIR");
  CASE("rmdir", "\".\"", N(rmdir("n/sub/.")), "EINVAL");
  CASE("rmdir", "a missing directory", N(rmdir("n/none")), "ENOENT");
  CASE("rmdir", "an empty directory", N(rmdir("n/sub2")), "0");
  CASE("unlink", "a directory", N(unlink("n/sub")), "EISDIR");
  CASE("unlink", "a missing file", N(unlink("n/none")), "ENOENT");
  CASE("unlink", "a file with a trailing slash", N(unlink("n/sub/file/")), "ENOTDIR");
  CASE("unlinkat", "AT_REMOVEDIR on a file", N(unlinkat(AT_FDCWD, "n/sub/file", AT_REMOVEDIR)), "ENOTDIR");
  CASE("unlinkat", "unknown flags", N(unlinkat(AT_FDCWD, "n/sub/file", 0x4000)), "EINVAL");
  put_file("r1", "one");
  put_file("r2", "two");
  CASE("rename", "a file over a file", N(rename("r1", "r2")), "0");
  CASE("rename", "the target has the source's data", READ_ALL("r2"), "one");
  CASE("rename", "the source name is gone", N(access("r1", F_OK)), "ENOENT");
  CASE("rename", "a missing source", N(rename("r1", "r3")), "ENOENT");
  CASE("rename", "a file onto itself", N(rename("r2", "r2")), "0");
  CASE("rename", "a directory over a non-empty directory", N(rename("d", "n")), "ENOTEMPTY");
  CASE("rename", "a directory over a file", N(rename("d", "r2")), "ENOTDIR");
  CASE("rename", "a file over a directory", N(rename("r2", "d")), "EISDIR");
  CASE("rename", "a directory into itself", N(rename("n", "n/sub/inside")), "EINVAL");
  mkdir("empty", 0755);
  struct stat here_before, here_after;
  stat(".", &here_before);
  CASE("rename", "a directory over an empty directory", N(rename("n", "empty")), "0");
  stat(".", &here_after);
  CASE("rename", "the parent loses the replaced directory's link",
       TEXT("%ld", (long)here_before.st_nlink - (long)here_after.st_nlink), "1");
  CASE("rename", "a moved directory's contents", READ_ALL("empty/sub/file"), "x");
  CASE("rename", "\"..\" as the source", N(rename("empty/..", "x")), "EBUSY");
  CASE("renameat", "between directory descriptors", N(renameat(open("empty", O_RDONLY), "sub", open("d", O_RDONLY), "moved")), "0");
  CASE("renameat", "the directory arrived", READ_ALL("d/moved/file"), "x");
  CASE("link", "a hard link", N(link("r2", "r2-link")), "0");
  CASE("link", "link count 2", NLINK("r2"), "2");
  CASE("link", "the same data", READ_ALL("r2-link"), "one");
  unlink("r2");
  CASE("link", "survives unlinking the other name", NLINK("r2-link"), "1");
  CASE("link", "and keeps the data", READ_ALL("r2-link"), "one");
  CASE("link", "a directory", N(link("d", "d-link")), "EPERM");
  CASE("link", "onto an existing name", N(link("r2-link", "f")), "EEXIST");
  CASE("link", "a missing source", N(link("none", "none2")), "ENOENT");
  CASE("linkat", "unknown flags", N(linkat(AT_FDCWD, "r2-link", AT_FDCWD, "r2-link2", 0x4000)), "EINVAL");
  // A chain of 41 symlinks to r2-link: followed from its 40th link (40 hops) or from its first (41).
  for (int i = 1; i <= 41; i++) {
    char name[16], target[16];
    snprintf(name, sizeof name, "chain%d", i);
    snprintf(target, sizeof target, i == 41 ? "r2-link" : "chain%d", i + 1);
    symlink(target, name);
  }
  CASE("linkat", "AT_SYMLINK_FOLLOW through 40 symlinks", N(linkat(AT_FDCWD, "chain2", AT_FDCWD, "via-chain", AT_SYMLINK_FOLLOW)), "0");
  CASE("linkat", "which linked the file", NLINK("r2-link"), "2");
  CASE("linkat", "AT_SYMLINK_FOLLOW through 41 symlinks", N(linkat(AT_FDCWD, "chain1", AT_FDCWD, "via-chain2", AT_SYMLINK_FOLLOW)), "ELOOP");
  unlink("via-chain");
  put_file("r4", "old");
  put_file("r5", "new");
  int replaced = open("r4", O_RDONLY);
  CASE("rename", "a file over an open file", N(rename("r5", "r4")), "0");
  CASE("read", "the replaced file, through its open descriptor", READ_FD(replaced), "old");
  CASE("read", "the name, the new file", READ_ALL("r4"), "new");
  struct stat unnamed;
  CASE("fstat", "the replaced file is named no more", fstat(replaced, &unnamed) == 0 ? TEXT("%d", (int)unnamed.st_nlink) : "fstat failed", "0");
  close(replaced);
  CASE("symlink", "a new link", N(symlink("target/path", "sl")), "0");
  CASE("readlink", "its target", READLINK("sl", 64), "target/path");
  CASE("readlink", "a short buffer truncates", READLINK("sl", 6), "target");
  CASE("readlink", "a file", READLINK("f", 64), "EINVAL");
  CASE("readlink", "a missing name", READLINK("none", 64), "ENOENT");
  CASE("symlink", "onto an existing name", N(symlink("x", "f")), "EEXIST");
  CASE("symlink", "an empty target", N(symlink("", "sl2")), "ENOENT");
  CASE("lstat", "a dangling symlink", MODE_L("sl"), "120777");
  CASE("stat", "a dangling symlink", MODE("sl"), "ENOENT");
  symlink("made-through-link", "sl4");
  CASE("open", "O_CREAT|O_EXCL on a dangling symlink", FD(open("sl4", O_CREAT | O_EXCL | O_WRONLY, 0644)), "EEXIST");
  CASE("open", "O_CREAT|O_NOFOLLOW on a dangling symlink", FD(open("sl4", O_CREAT | O_NOFOLLOW | O_WRONLY, 0644)), "ELOOP");
  CASE("open", "O_CREAT through a dangling symlink", FD(open("sl4", O_CREAT | O_WRONLY, 0644)), "fd");
  CASE("open", "which made the link's target", MODE("made-through-link"), "100644");
  CASE("symlinkat", "relative to a descriptor", N(symlinkat("f", open("d", O_RDONLY), "sl3")), "0");
  CASE("readlinkat", "relative to a descriptor", N(readlinkat(open("d", O_RDONLY), "sl3", (char[8]){0}, 8)), "1");
}

// ----- attributes: stat, chmod, utimensat, access, statfs, umask ------------------------------
static void attribute_cases(void) {
  put_file("s", "12345");
  CASE("stat", "a file's mode", MODE("s"), "100644");
  CASE("stat", "a file's size", SIZE("s"), "5");
  CASE("stat", "a file with a trailing slash", MODE("s/"), "ENOTDIR");
  CASE("stat", "through a symlink", MODE("link-f"), "100644");
  CASE("lstat", "a symlink", MODE_L("link-f"), "120777");
  CASE("fstatat", "AT_EMPTY_PATH", N(fstatat(open("s", O_RDONLY), "", &(struct stat){0}, AT_EMPTY_PATH)), "0");
  CASE("fstatat", "unknown flags", N(fstatat(AT_FDCWD, "s", &(struct stat){0}, 0x8)), "EINVAL");
  CASE("fstat", "a bad descriptor", N(fstat(-1, &(struct stat){0})), "EBADF");
  CASE("chmod", "0600", N(chmod("s", 0600)), "0");
  CASE("chmod", "mode after", MODE("s"), "100600");
  CASE("chmod", "a missing file", N(chmod("none", 0600)), "ENOENT");
  CASE("fchmod", "0640", N(fchmod(open("s", O_RDONLY), 0640)), "0");
  CASE("fchmodat", "mode after fchmod", MODE("s"), "100640");
  struct timespec times[2] = {{.tv_sec = 1000}, {.tv_sec = 2000, .tv_nsec = 5}};
  CASE("utimensat", "set both", N(utimensat(AT_FDCWD, "s", times, 0)), "0");
  CASE("utimensat", "times after", TIMES("s"), "1000.0 2000.5");
  struct timespec omit[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 3000}};
  CASE("utimensat", "UTIME_OMIT", N(utimensat(AT_FDCWD, "s", omit, 0)), "0");
  CASE("utimensat", "UTIME_OMIT keeps atime", TIMES("s"), "1000.0 3000.0");
  struct timespec bad[2] = {{.tv_nsec = 2000000000}, {.tv_nsec = 0}};
  CASE("utimensat", "an invalid nanosecond count", N(utimensat(AT_FDCWD, "s", bad, 0)), "EINVAL");
  CASE("futimens", "on a descriptor", N(futimens(open("s", O_RDONLY), times)), "0");
  CASE("access", "F_OK", N(access("s", F_OK)), "0");
  CASE("access", "a missing file", N(access("none", F_OK)), "ENOENT");
  chmod("s", 0444);
  CASE("access", "W_OK on a read-only file", N(access("s", W_OK)), "EACCES");
  CASE("access", "R_OK on a read-only file", N(access("s", R_OK)), "0");
  CASE("access", "X_OK on a file without x", N(access("s", X_OK)), "EACCES");
  CASE("access", "an unknown mode bit", N(access("s", 0100)), "EINVAL");
  CASE("faccessat", "relative to a descriptor", N(faccessat(open(".", O_RDONLY), "s", R_OK, 0)), "0");
  struct statfs info;
  CASE("statfs", "the working directory", N(statfs(".", &info)), "0");
  CASE("statfs", "name length", TEXT("%ld", (long)info.f_namelen), "255");
  CASE("statfs", "a missing path", N(statfs("none", &info)), "ENOENT");
  unsigned before = umask(027), during = umask(022);
  CASE("umask", "returns the previous mask", TEXT("%o %o", before, during), "22 27");
}

// ----- directories: getdents, chdir, getcwd ---------------------------------------------------
// Whether `path`'s change time (or modification time) moves on when `change` runs, later.
static struct timespec time_of(const char *path, bool modified) {
  struct stat info;
  if (stat(path, &info) != 0) return (struct timespec){0, 0};
  return modified ? info.st_mtim : info.st_ctim;
}
static const char *LATER(struct timespec before, struct timespec after) {
  return N(after.tv_sec > before.tv_sec || (after.tv_sec == before.tv_sec && after.tv_nsec > before.tv_nsec));
}

static double ms_of(struct timespec time) { return (double)time.tv_sec * 1000 + (double)time.tv_nsec / 1e6; }

// Whether `path`'s three times are the wall clock's (CLOCK_REALTIME) between `before` and a read
// just after the stat (which may be what sets them), within 50 ms: Linux stamps files from a
// clock that lags by up to a tick.
static const char *STAMPED_SINCE(const char *path, struct timespec before) {
  struct stat info;
  if (stat(path, &info) != 0) return errno_name(errno);
  struct timespec after;
  clock_gettime(CLOCK_REALTIME, &after);
  const struct timespec times[3] = {info.st_atim, info.st_mtim, info.st_ctim};
  for (int i = 0; i < 3; i++) {
    if (times[i].tv_nsec < 0 || times[i].tv_nsec >= 1000000000) return TEXT("tv_nsec %ld", (long)times[i].tv_nsec);
    double at = ms_of(times[i]), early = ms_of(before) - at, late = at - ms_of(after);
    if (early > 50 || late > 50) return TEXT("%ctime %.0f ms outside the clock's reads", "amc"[i], early > 50 ? early : late);
  }
  return "1";
}

// How many of the entries of directory `path` are named `a` and `b`, read in small batches.
static const char *ENTRIES_NAMED(const char *path, const char *a, const char *b) {
  DIR *dir = opendir(path);
  if (dir == NULL) return errno_name(errno);
  int found_a = 0, found_b = 0, entries = 0;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL && entries < 100000; entries++) {
    found_a += strcmp(entry->d_name, a) == 0;
    found_b += strcmp(entry->d_name, b) == 0;
  }
  closedir(dir);
  return TEXT("%d %d", found_a, found_b);
}

// Names and places at the edges: names that start with dots, the root, a working directory that
// was removed, and the times a change of a directory's entries moves.
static void edge_cases(void) {
  mkdir("edge", 0755);
  put_file("edge/.hidden", "dot");
  CASE("open", "a name that starts with a dot", READ_ALL("edge/.hidden"), "dot");
  CASE("mkdir", "a name that starts with two dots", N(mkdir("edge/..x", 0755)), "0");
  CASE("stat", "a name that starts with two dots is its own directory", MODE("edge/..x"), "40755");
  CASE("open", "\"./\" before a dotted name", READ_ALL("edge/./.hidden"), "dot");
  char here[2048], absolute[4096];
  snprintf(absolute, sizeof absolute, "%s/edge/.hidden", getcwd(here, sizeof here) ? here : "");
  CASE("openat", "an absolute path ignores a bad descriptor", FD(openat(999, absolute, O_RDONLY)), "fd");
  symlink(absolute, "edge/p-abs");
  CASE("open", "through a symlink with an absolute target, from elsewhere", READ_ALL("edge/p-abs"), "dot");
  int file = open("edge/.hidden", O_RDONLY);
  CASE("openat", "relative to a file", FD(openat(file, "x", O_RDONLY)), "ENOTDIR");
  struct stat info;
  CASE("fstatat", "AT_EMPTY_PATH on a file", N(fstatat(file, "", &info, AT_EMPTY_PATH)), "0");
  CASE("fstatat", "an empty path without AT_EMPTY_PATH", N(fstatat(file, "", &info, 0)), "ENOENT");
  close(file);
  CASE("readdir", "the root lists dev and tmp once each", ENTRIES_NAMED("/", "dev", "tmp"), "1 1");
  int tty_probe = open("edge/.hidden", O_RDONLY);
  CASE("tcgetattr", "a file", N(tcgetattr(tty_probe, &(struct termios){0})), "ENOTTY");
  CASE("tcgetattr", "a closed descriptor", N(tcgetattr(999, &(struct termios){0})), "EBADF");
  close(tty_probe);
  CASE("mknod", "a directory", N(mknod("edge/node", S_IFDIR | 0755, 0)), "EPERM");
  CASE("mknod", "no file type", N(mknod("edge/node", 0170000 | 0644, 0)), "EINVAL");
  CASE("mknod", "a symlink's type", N(mknod("edge/node", S_IFLNK | 0644, 0)), "EINVAL");
  CASE("mknod", "a character device", N(mknod("edge/node", S_IFCHR | 0644, makedev(1, 3))), "EPERM");
  CASE("mknod", "a block device", N(mknod("edge/node", S_IFBLK | 0644, makedev(8, 0))), "EPERM");
  CASE("mknod", "a regular file", N(mknod("edge/plain", S_IFREG | 0644, 0)), "0");
  CASE("mknod", "which is one", MODE("edge/plain"), "100644");
  CASE("mkdir", "a mode with file-type bits", N(mkdir("edge/typed", 0170755)), "0");
  CASE("mkdir", "keeps only the permission bits", MODE("edge/typed"), "40755");
  put_file("edge/a.", "");
  CASE("unlink", "a two-byte name ending in a dot", N(unlink("edge/a.")), "0");
  CASE("symlink", "to a UTF-8 name", N(symlink("\xc3\xa9t\xc3\xa9", "edge/utf8")), "0");
  put_file("edge/.a", "");
  CASE("unlink", "a two-byte name starting with a dot", N(unlink("edge/.a")), "0");
  CASE("link", "to a new name with a trailing slash", N(link("edge/plain", "edge/plain-link/")), "ENOENT");
  CASE("link", "a directory with a trailing slash", N(link("edge/typed/", "edge/typed-link")), "EPERM");
  mkdir("edge/q1", 0755);
  mkdir("edge/q2", 0755);
  mkdir("edge/q1/m", 0755);
  rename("edge/q1/m", "edge/q2/m");
  struct stat parent, dotdot;
  CASE("rename", "a moved directory's \"..\" is its new parent",
       stat("edge/q2", &parent) == 0 && stat("edge/q2/m/..", &dotdot) == 0 ? TEXT("%d", parent.st_ino == dotdot.st_ino) : "stat failed", "1");
  mkdir("edge/q1/m", 0755);
  int replaced_dir = open("edge/q2/m", O_RDONLY | O_DIRECTORY);
  CASE("rename", "a directory over an empty one", N(rename("edge/q1/m", "edge/q2/m")), "0");
  CASE("fstat", "the replaced directory has no links left",
       fstat(replaced_dir, &dotdot) == 0 ? TEXT("%d", (int)dotdot.st_nlink) : "fstat failed", "0");
  close(replaced_dir);
  mkdir("edge/p1", 0755);
  mkdir("edge/p2", 0755);
  mkdir("edge/p1/d", 0755);
  rename("edge/p1/d", "edge/p2/d");
  CASE("rename", "a directory to another parent moves a link", TEXT("%s %s", NLINK("edge/p1"), NLINK("edge/p2")), "2 3");
  rename("edge/p2/d", "edge/p1/d");
  CASE("rename", "and back", TEXT("%s %s", NLINK("edge/p1"), NLINK("edge/p2")), "3 2");
  rename("edge/p1/d", "edge/p1/e");
  CASE("rename", "a directory within its parent", NLINK("edge/p1"), "3");
  CASE("rename", "a directory over its own parent", N(rename("edge/p1/e", "edge/p1")), "ENOTEMPTY");
  rmdir("edge/p1/e");
  CASE("rmdir", "the parent loses the removed directory's link", NLINK("edge/p1"), "2");
  CASE("stat", "the root's mode", MODE("/"), "40755");
  mkdir("edge/many", 0755);
  for (int i = 0; i < 300; i++) put_file(TEXT("edge/many/entry-%03d-of-a-long-name", i), "");
  for (int i = 0; i < 300; i += 2) unlink(TEXT("edge/many/entry-%03d-of-a-long-name", i));
  int absent = 0, present = 0;
  for (int i = 0; i < 300; i++) {
    absent += access(TEXT("edge/many/entry-%03d", i), F_OK) != 0;  // a prefix of a name there
    present += access(TEXT("edge/many/entry-%03d-of-a-long-name", i), F_OK) == 0;
  }
  CASE("access", "in a directory of 300 names, half removed: prefixes absent, the rest present",
       TEXT("%d %d", absent, present), "300 150");
  mkdir("edge/sealed", 0555);
  put_file("edge/loose", "l");
  CASE("rename", "into a directory without write permission", N(rename("edge/loose", "edge/sealed/loose")), "EACCES");
  CASE("rmdir", "the root", N(rmdir("/")), "EBUSY");
  CASE("unlink", "the root", N(unlink("/")), "EISDIR");
  CASE("unlink", "\".\"", N(unlink("edge/.")), "EISDIR");
  CASE("mkdir", "the root", N(mkdir("/", 0755)), "EEXIST");
  CASE("rename", "the root", N(rename("/", "edge/root")), "EBUSY");

  struct timespec clock_before;
  clock_gettime(CLOCK_REALTIME, &clock_before);
  put_file("edge/stamped", "s");
  CASE("creat", "stamps the file with the wall clock's time", STAMPED_SINCE("edge/stamped", clock_before), "1");
  struct timespec before = time_of("edge", true);
  usleep(20000);
  put_file("edge/new", "n");
  CASE("creat", "moves its directory's modification time on", LATER(before, time_of("edge", true)), "1");
  before = time_of("edge", true);
  usleep(20000);
  unlink("edge/new");
  CASE("unlink", "moves its directory's modification time on", LATER(before, time_of("edge", true)), "1");
  before = time_of("edge/.hidden", false);
  usleep(20000);
  rename("edge/.hidden", "edge/.moved");
  CASE("rename", "moves the file's change time on", LATER(before, time_of("edge/.moved", false)), "1");
  mkdir("edge/into", 0755);
  before = time_of("edge/into", true);
  usleep(20000);
  rename("edge/loose", "edge/into/loose");
  CASE("rename", "moves the target directory's modification time on", LATER(before, time_of("edge/into", true)), "1");
  before = time_of("edge/into", true);
  usleep(20000);
  link("edge/into/loose", "edge/into/linked");
  CASE("link", "moves its directory's modification time on", LATER(before, time_of("edge/into", true)), "1");
  before = time_of("edge", true);
  usleep(20000);
  mkdir("edge/into", 0755);
  CASE("mkdir", "of an existing name leaves its directory's modification time", LATER(before, time_of("edge", true)), "0");

  int back = open(".", O_RDONLY | O_DIRECTORY);
  chdir("/");
  CASE("getcwd", "at the root", getcwd(here, sizeof here) ? here : errno_name(errno), "/");
  fchdir(back);
  snprintf(absolute, sizeof absolute, "%s/edge/.moved", getcwd(here, sizeof here) ? here : "");
  mkdir("edge/gone", 0755);
  chdir("edge/gone");
  rmdir("../gone");
  CASE("open", "O_CREAT in a removed working directory", FD(open("new", O_CREAT | O_WRONLY, 0644)), "ENOENT");
  CASE("mkdir", "in a removed working directory", N(mkdir("sub", 0755)), "ENOENT");
  CASE("rename", "into a removed working directory", N(rename("../.moved", "moved")), "ENOENT");
  CASE("rename", "from elsewhere into a removed working directory", N(rename(absolute, "moved")), "ENOENT");
  CASE("symlink", "in a removed working directory", N(symlink("x", "link")), "ENOENT");
  fchdir(back);
  close(back);
}

static void directory_cases(void) {
  mkdir("list", 0755);
  put_file("list/b", "");
  put_file("list/a", "");
  mkdir("list/c", 0755);
  CASE("getdents", "every entry once", LISTING("list"), ". .. a b c/");
  CASE("getdents", "a file", N(opendir("f") != NULL ? 0 : -1), "ENOTDIR");
  int listed = open("list", O_RDONLY | O_DIRECTORY);
  char tiny[8];
  CASE("getdents", "a buffer too small for one entry", N(getdents64(listed, (void *)tiny, 1)), "EINVAL");
  close(listed);
  unlink("list/a");
  CASE("getdents", "after an unlink", LISTING("list"), ". .. b c/");
  CASE("chdir", "into a directory", N(chdir("list/c")), "0");
  CASE("getcwd", "ends with the directory", CWD_TAIL(2), "list/c");
  CASE("chdir", "\"..\"", N(chdir("..")), "0");
  CASE("getcwd", "after ..", CWD_TAIL(1), "list");
  CASE("getcwd", "a buffer too small", N(getcwd((char[2]){0}, 2) != NULL ? 0 : -1), "ERANGE");
  CASE("chdir", "a file", N(chdir("b")), "ENOTDIR");
  CASE("chdir", "a missing directory", N(chdir("none")), "ENOENT");
  CASE("fchdir", "back up", N(fchdir(open("..", O_RDONLY))), "0");
  CASE("getcwd", "after fchdir", CWD_TAIL(1), work_dir_name());
}

// ----- pipes, poll, devices -----------------------------------------------------------------
// A writer on another thread: its open waits for the reader the test opens next.
static void *fifo_writer(void *path) {
  int fd = open(path, O_WRONLY);
  if (fd >= 0) write(fd, "pong", 4), close(fd);
  return NULL;
}

static void fifo_cases(void) {
  CASE("mkfifo", "a new FIFO", N(mkfifo("fifo", 0644)), "0");
  CASE("mkfifo", "a new name with a trailing slash", N(mkfifo("fifo2/", 0644)), "ENOENT");
  CASE("mkfifo", "an existing name with a trailing slash", N(mkfifo("fifo/", 0644)), "EEXIST");
  CASE("open", "a FIFO for writing, no reader, O_NONBLOCK", FD(open("fifo", O_WRONLY | O_NONBLOCK)), "ENXIO");
  int reader = open("fifo", O_RDONLY | O_NONBLOCK);
  CASE("open", "a FIFO for reading, O_NONBLOCK", reader >= 0 ? "fd" : errno_name(errno), "fd");
  int writer = open("fifo", O_WRONLY | O_NONBLOCK);
  CASE("open", "a FIFO for writing once it has a reader", writer >= 0 ? "fd" : errno_name(errno), "fd");
  CASE("write", "into a FIFO", N(write(writer, "ping", 4)), "4");
  CASE("read", "from a FIFO", READ_FD(reader), "ping");
  close(writer);
  close(reader);
  pthread_t thread;
  pthread_create(&thread, NULL, fifo_writer, "fifo");
  reader = open("fifo", O_RDONLY);  // waits for the writer's open, which waits for this one
  CASE("open", "a FIFO: reader and writer wait for each other", READ_FD(reader), "pong");
  pthread_join(thread, NULL);
  close(reader);
  CASE("stat", "a FIFO's type", N(S_ISFIFO(mode_of("fifo"))), "1");
}

static void pipe_cases(void) {
  int fds[2];
  CASE("pipe", "a new pipe", N(pipe(fds)), "0");
  CASE("write", "into the pipe", N(write(fds[1], "ping", 4)), "4");
  CASE("fallocate", "a pipe", N(fallocate(fds[1], 0, 0, 10)), "ESPIPE");
  struct pollfd ready = {.fd = fds[0], .events = POLLIN};
  CASE("poll", "a pipe with data", N(poll(&ready, 1, 0)), "1");
  CASE("poll", "revents of a pipe with data", TEXT("%d", ready.revents), TEXT("%d", POLLIN));
  CASE("read", "from the pipe", READ_FD(fds[0]), "ping");
  CASE("poll", "an empty pipe, no wait", N(poll(&ready, 1, 0)), "0");
  CASE("poll", "an empty pipe, 20 ms", N(poll(&ready, 1, 20)), "0");
  fd_set readable;
  FD_ZERO(&readable);
  FD_SET(fds[0], &readable);
  CASE("select", "an empty pipe, 20 ms", N(select(fds[0] + 1, &readable, NULL, NULL, &(struct timeval){0, 20000})), "0");
  write(fds[1], "x", 1);
  FD_SET(fds[0], &readable);
  int selected = select(fds[0] + 1, &readable, NULL, NULL, &(struct timeval){1, 0});
  CASE("select", "a pipe with data", TEXT("%d %d", selected, FD_ISSET(fds[0], &readable) != 0), "1 1");
  read(fds[0], (char[4]){0}, 1);
  CASE("lseek", "a pipe", N(lseek(fds[0], 0, SEEK_SET)), "ESPIPE");
  CASE("pread", "a pipe", N(pread(fds[0], (char[4]){0}, 1, 0)), "ESPIPE");
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  CASE("read", "an empty non-blocking pipe", N(read(fds[0], (char[4]){0}, 4)), "EAGAIN");
  close(fds[1]);
  CASE("read", "a pipe whose writer closed", N(read(fds[0], (char[4]){0}, 4)), "0");
  close(fds[0]);
  pipe(fds);
  close(fds[0]);
  CASE("write", "a pipe whose reader closed", N(write(fds[1], "x", 1)), "EPIPE");
  close(fds[1]);
  CASE("pipe2", "unknown flags", N(pipe2(fds, 0x1)), "EINVAL");
  CASE("pipe2", "O_CLOEXEC", N(pipe2(fds, O_CLOEXEC)), "0");
  CASE("pipe2", "descriptors have FD_CLOEXEC", N(fcntl(fds[0], F_GETFD)), "1");
  close(fds[0]);
  close(fds[1]);
  struct pollfd files[2] = {{.fd = open("f", O_RDWR), .events = POLLIN | POLLOUT}, {.fd = 999, .events = POLLIN}};
  CASE("poll", "a file and a closed descriptor", N(poll(files, 2, 0)), "2");
  CASE("poll", "their revents", TEXT("%d %d", files[0].revents, files[1].revents), TEXT("%d %d", POLLIN | POLLOUT, POLLNVAL));
  CASE("read", "/dev/zero", PREAD_HEX(open("/dev/zero", O_RDONLY), 3, 0), "000000");
  CASE("read", "/dev/null", N(read(open("/dev/null", O_RDONLY), (char[4]){0}, 4)), "0");
  CASE("write", "/dev/null", N(write(open("/dev/null", O_WRONLY), "abc", 3)), "3");
  CASE("read", "/dev/urandom", N(read(open("/dev/urandom", O_RDONLY), (char[16]){0}, 16)), "16");
  CASE("stat", "/dev/null is a character device", N(S_ISCHR(mode_of("/dev/null"))), "1");
  CASE("isatty", "/dev/null", ISATTY(open("/dev/null", O_RDONLY)), "ENOTTY");
}

// mmap of files: in Wasm a mapping is a copy, written back at msync/munmap when shared.
static const char *MAP_ERROR(int fd, size_t length, int prot, int flags) {
  void *at = mmap(NULL, length, prot, flags, fd, 0);
  if (at == MAP_FAILED) return errno_name(errno);
  munmap(at, length);
  return "mapped";
}

static void mapping_cases(void) {
  put_file("m", "hello");
  int reader = open("m", O_RDONLY), both = open("m", O_RDWR), writer = open("m", O_WRONLY);
  int dir = open("d", O_RDONLY);
  char *view = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, reader, 0);
  CASE("mmap", "a file's bytes", view == MAP_FAILED ? errno_name(errno) : TEXT("%.5s", view), "hello");
  CASE("mmap", "past the end reads zeros", view == MAP_FAILED ? "-" : N(view[5] == 0 && view[4095] == 0), "1");
  CASE("munmap", "a file mapping", N(munmap(view, 4096)), "0");
  CASE("mmap", "a directory", MAP_ERROR(dir, 4096, PROT_READ, MAP_PRIVATE), "ENODEV");
  CASE("mmap", "a write-only descriptor", MAP_ERROR(writer, 4096, PROT_READ, MAP_PRIVATE), "EACCES");
  CASE("mmap", "shared and writable on a read-only descriptor",
       MAP_ERROR(reader, 4096, PROT_READ | PROT_WRITE, MAP_SHARED), "EACCES");
  CASE("mmap", "a closed descriptor", MAP_ERROR(999, 4096, PROT_READ, MAP_PRIVATE), "EBADF");
  CASE("mmap", "zero length", MAP_ERROR(reader, 0, PROT_READ, MAP_PRIVATE), "EINVAL");
  char *private = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, both, 0);
  if (private != MAP_FAILED) private[0] = 'J', munmap(private, 4096);
  CASE("mmap", "a private mapping's writes stay private", READ_ALL("m"), "hello");
  char *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, both, 0);
  if (shared != MAP_FAILED) shared[0] = 'j', shared[100] = 'x';
  CASE("msync", "a shared mapping", shared == MAP_FAILED ? errno_name(errno) : N(msync(shared, 4096, MS_SYNC)), "0");
  CASE("msync", "writes reach the file", READ_ALL("m"), "jello");
  CASE("msync", "writes past the end do not grow the file", SIZE("m"), "5");
  close(both);
  if (shared != MAP_FAILED) shared[1] = 'E';
  CASE("munmap", "after the descriptor closed", shared == MAP_FAILED ? "-" : N(munmap(shared, 4096)), "0");
  CASE("munmap", "the last writes reach the file", READ_ALL("m"), "jEllo");
  close(reader), close(writer), close(dir);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);  // natively a write to a closed pipe would kill the test
  setrlimit(RLIMIT_NOFILE, &(struct rlimit){1024, 1024});
  enter_work_dir();
  umask(022);
  open_cases();
  io_cases();
  descriptor_cases();
  lock_cases();
  name_cases();
  attribute_cases();
  directory_cases();
  edge_cases();
  pipe_cases();
  fifo_cases();
  mapping_cases();
  return report();
}
