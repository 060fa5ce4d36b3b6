// Helpers of the conformance table (conformance.c): each case turns a call's outcome into a
// short string ("0", "5", "ENOENT", "hello") and compares it with the table's.
#ifndef WASMSCALE_TESTS_CONFORMANCE_SUPPORT_H
#define WASMSCALE_TESTS_CONFORMANCE_SUPPORT_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cases_run, cases_failed;

// Results live in a ring of buffers, so a case may combine several of them.
static char *next_buffer(void) {
  static char ring[64][512];
  static unsigned at;
  return ring[at++ % 64];
}

static const char *TEXT(const char *format, ...) {
  char *out = next_buffer();
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(out, 512, format, arguments);
  va_end(arguments);
  return out;
}

static const char *errno_name(int error) {
  static const struct {
    int value;
    const char *name;
  } names[] = {
#define NAME(e) {e, #e}
      NAME(EPERM),  NAME(ENOENT), NAME(EBADF),  NAME(EAGAIN),    NAME(EACCES),       NAME(EEXIST),
      NAME(EXDEV),  NAME(ENOTDIR), NAME(EISDIR), NAME(EINVAL),   NAME(EMFILE),       NAME(ENOSPC),
      NAME(ESPIPE), NAME(EPIPE),  NAME(ERANGE), NAME(ENAMETOOLONG), NAME(ENOTEMPTY), NAME(ELOOP),
      NAME(EBUSY),  NAME(ENOTTY), NAME(EFBIG),  NAME(EOPNOTSUPP), NAME(ENOSYS),      NAME(EFAULT),
      NAME(ENODEV), NAME(ENOMEM), NAME(ENXIO),
#undef NAME
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (names[i].value == error) return names[i].name;
  }
  return TEXT("errno %d", error);
}

// A number, or the errno name when the call failed (returned < 0).
static const char *N(long long value) { return value < 0 ? errno_name(errno) : TEXT("%lld", value); }
static const char *ERR(long long value) { return value < 0 ? errno_name(errno) : "no error"; }

// "fd" for a descriptor (closed again), else the errno name.
static const char *FD(int fd) {
  if (fd < 0) return errno_name(errno);
  close(fd);
  return "fd";
}

static void put_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    if (write(fd, text, strlen(text)) < 0) perror("put_file");
    close(fd);
  }
}

// One read of up to 256 bytes (pipes must not wait for more).
static const char *READ_FD(int fd) {
  char *out = next_buffer();
  ssize_t got = read(fd, out, 256);
  if (got < 0) return errno_name(errno);
  out[got] = '\0';
  return out;
}

static const char *READ_ALL(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return errno_name(errno);
  const char *text = READ_FD(fd);
  close(fd);
  return text;
}

static const char *PREAD_HEX(int fd, size_t length, long long offset) {
  unsigned char bytes[64];
  ssize_t got = pread(fd, bytes, length, offset);
  if (got < 0) return errno_name(errno);
  char *out = next_buffer();
  for (ssize_t i = 0; i < got; i++) sprintf(out + 2 * i, "%02x", bytes[i]);
  out[2 * got] = '\0';
  return out;
}

static unsigned mode_of(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 ? info.st_mode : 0;
}

static const char *stat_field(const char *path, int nofollow, char field) {
  struct stat info;
  if ((nofollow ? lstat(path, &info) : stat(path, &info)) != 0) return errno_name(errno);
  switch (field) {
    case 'm': return TEXT("%o", (unsigned)info.st_mode);
    case 's': return TEXT("%lld", (long long)info.st_size);
    case 'n': return TEXT("%u", (unsigned)info.st_nlink);
    default: return TEXT("%lld.%ld %lld.%ld", (long long)info.st_atim.tv_sec, info.st_atim.tv_nsec,
                         (long long)info.st_mtim.tv_sec, info.st_mtim.tv_nsec);
  }
}
#define MODE(path) stat_field(path, 0, 'm')
#define MODE_L(path) stat_field(path, 1, 'm')
#define SIZE(path) stat_field(path, 0, 's')
#define NLINK(path) stat_field(path, 0, 'n')
#define TIMES(path) stat_field(path, 0, 't')

static const char *FSIZE(int fd) {
  struct stat info;
  return fstat(fd, &info) == 0 ? TEXT("%lld", (long long)info.st_size) : errno_name(errno);
}

static const char *READLINK(const char *path, size_t size) {
  char *out = next_buffer();
  ssize_t got = readlink(path, out, size);
  if (got < 0) return errno_name(errno);
  out[got] = '\0';
  return out;
}

static const char *ISATTY(int fd) {
  errno = 0;
  int result = isatty(fd);
  return result ? "1" : errno_name(errno);
}

// The names in a directory, sorted, directories marked with '/'.
static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static const char *LISTING(const char *path) {
  DIR *dir = opendir(path);
  if (dir == NULL) return errno_name(errno);
  char *names[64];
  int count = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL && count < 64) {
    names[count++] = (char *)TEXT("%s%s", entry->d_name,
                                  entry->d_type == DT_DIR && entry->d_name[0] != '.' ? "/" : "");
  }
  closedir(dir);
  qsort(names, count, sizeof names[0], by_name);
  char *out = next_buffer();
  out[0] = '\0';
  for (int i = 0; i < count; i++) {
    strcat(out, names[i]);
    if (i + 1 < count) strcat(out, " ");
  }
  return out;
}

// The last `parts` components of the working directory.
static const char *CWD_TAIL(int parts) {
  char *out = next_buffer();
  if (getcwd(out, 512) == NULL) return errno_name(errno);
  char *at = out + strlen(out);
  while (parts > 0 && at > out) {
    if (*--at == '/') parts--;
  }
  return *at == '/' ? at + 1 : at;
}

static char *long_name(size_t length) {
  char *name = next_buffer();
  memset(name, 'n', length < 511 ? length : 511);
  name[length < 511 ? length : 511] = '\0';
  return name;
}

static char *long_path(size_t length) {
  static char path[8192];
  for (size_t i = 0; i < length; i++) path[i] = i % 2 ? '/' : 'p';
  path[length] = '\0';
  return path;
}

// ----- the table's bookkeeping -----------------------------------------------------------------
static void check_case(const char *call, const char *what, const char *got, const char *expected) {
  cases_run++;
  if (strcmp(got, expected) == 0) return;
  cases_failed++;
  printf("FAIL %s: %s: got \"%s\", expected \"%s\"\n", call, what, got, expected);
}

#define CASE(call, what, result, expected) check_case(call, what, result, expected)

// A case where wasmscale intends to differ from Linux; `why` is the reason, shown in the table.
#ifdef __EMSCRIPTEN__
#define CASE_DIFFERS(call, what, result, linux_expected, wasm_expected, why) check_case(call, what, result, wasm_expected)
#else
#define CASE_DIFFERS(call, what, result, linux_expected, wasm_expected, why) check_case(call, what, result, linux_expected)
#endif

static char work_dir[256];

static const char *work_dir_name(void) { return strrchr(work_dir, '/') + 1; }

static int log_fd(void) { return 1; }

// A fresh directory to work in. Natively as root, the test drops to an unprivileged user
// first, since root ignores the mode bits the EACCES cases test.
static void enter_work_dir(void) {
#ifdef __EMSCRIPTEN__
  strcpy(work_dir, "/conformance");
  mkdir(work_dir, 0755);
#else
  strcpy(work_dir, "/tmp/ws-conformance-XXXXXX");
  if (mkdtemp(work_dir) == NULL) {
    perror("mkdtemp");
    exit(2);
  }
  if (geteuid() == 0) {
    const unsigned nobody = 65534;
    if (chown(work_dir, nobody, nobody) != 0 || setgid(nobody) != 0 || setuid(nobody) != 0) {
      perror("dropping root");
      exit(2);
    }
  }
#endif
  if (chdir(work_dir) != 0) {
    perror("chdir");
    exit(2);
  }
}

static int remove_entry(const char *path, const struct stat *info, int type, struct FTW *walk) {
  (void)info, (void)type, (void)walk;
  chmod(path, 0755);
  return remove(path) == 0 ? 0 : 0;
}

static int report(void) {
#ifndef __EMSCRIPTEN__
  if (chdir("/") == 0) nftw(work_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
#endif
  printf("conformance: %d cases, %d failed\n", cases_run, cases_failed);
  return cases_failed == 0 ? 0 : 1;
}

#endif
