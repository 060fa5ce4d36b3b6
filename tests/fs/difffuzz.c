// The differential fuzzer's program: a random sequence of file calls, the same for a given
// seed on every file system, each printed with its result, so that a run on Linux and a run on
// wasmscale can be compared line by line (tests/backends.test.mjs does, and shrinks a
// difference to the shortest sequence that still shows it).
//   difffuzz ROOT SEED COUNT [STEPS]
// ROOT: the directory to work in ("-" for a fresh scratch directory; "mount:DIR" to mount host
// directory DIR at /h and work there). STEPS: a comma-separated list of step numbers to run
// (the others skipped, so a shorter sequence replays exactly the same calls); default: all.
//
// What is printed is what POSIX specifies; what it leaves open is left out (docs/filesystem.md,
// "Differential fuzzer"): inode numbers, times, block counts, the order of directory entries
// (printed sorted), and permission checks (Linux runs the tests as root).
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"
#ifdef WS_TEST_CORE
#include "wasmscale/fs.h"
#elif defined(__EMSCRIPTEN__)
#include "wasmscale/fs.h"
#endif

enum { SLOTS = 4, DATA = 512 };

static const char *const PATHS[] = {"a", "b", "d", "d/a", "d/b", "e", "e/d", "d/e/a", "l", "d/l", "a/x"};
#define PATH_COUNT (sizeof PATHS / sizeof *PATHS)
static int slots[SLOTS] = {-1, -1, -1, -1};

static uint64_t state;
static uint32_t next_random(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(state >> 33);
}
static const char *random_path(void) { return PATHS[next_random() % PATH_COUNT]; }

// The result of a call as printed: "ok", a value, or the errno's name.
static const char *errno_name(int error) {
  switch (error) {
    case ENOENT: return "ENOENT";
    case EEXIST: return "EEXIST";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case ENOTEMPTY: return "ENOTEMPTY";
    case EBADF: return "EBADF";
    case EINVAL: return "EINVAL";
    case ELOOP: return "ELOOP";
    case EXDEV: return "EXDEV";
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case EBUSY: return "EBUSY";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ESPIPE: return "ESPIPE";
    case EFBIG: return "EFBIG";
    case EMLINK: return "EMLINK";
    default: return "E?";
  }
}

static void result(long value) {
  if (value < 0) printf(" -> %s\n", errno_name(errno));
  else printf(" -> %ld\n", value);
}

static const char *type_of(uint32_t mode) {
  return S_ISREG(mode) ? "file" : S_ISDIR(mode) ? "dir" : S_ISLNK(mode) ? "link" : "other";
}

static char names[64][256];
static int name_count;
static void take_name(void *context, const char *name, unsigned long long ino, unsigned type) {
  (void)context, (void)ino, (void)type;
  if (name_count < 64) snprintf(names[name_count++], sizeof names[0], "%s", name);
}
static int by_name(const void *a, const void *b) { return strcmp(a, b); }

// One step: a call chosen by the random state, printed with what it returned.
static void step(bool run) {
  static const int OPEN_FLAGS[] = {O_RDONLY, O_WRONLY | O_CREAT, O_RDWR | O_CREAT | O_EXCL, O_WRONLY | O_TRUNC,
                                   O_RDONLY | O_DIRECTORY, O_RDWR | O_APPEND | O_CREAT, O_WRONLY | O_CREAT | O_NOFOLLOW};
  static unsigned char data[DATA], back[DATA];
  uint32_t op = next_random() % 16;
  const char *path = random_path(), *other = random_path();
  uint32_t slot = next_random() % SLOTS, amount = next_random() % DATA, flags = next_random() % 7;
  int64_t offset = (int64_t)(next_random() % 700) - 50;
  int whence = (int)(next_random() % 3);
  if (!run) return;  // the same draws, so later steps do the same calls
  int fd = slots[slot];
  switch (op) {
    case 0: case 1: {
      if (fd >= 0) t_close(fd);
      slots[slot] = (int)t_open(path, OPEN_FLAGS[flags], 0644);
      printf("open %s %d", path, (int)flags);
      printf(" -> %s\n", slots[slot] >= 0 ? "ok" : errno_name(errno));
      break;
    }
    case 2:
      printf("close %u", slot);
      result(fd >= 0 ? t_close(fd) : (errno = EBADF, -1));
      slots[slot] = -1;
      break;
    case 3:
      for (uint32_t i = 0; i < amount; i++) data[i] = (unsigned char)(op * 7 + i + amount);
      printf("write %u %u", slot, amount);
      result(fd >= 0 ? t_write(fd, data, amount) : (errno = EBADF, -1));
      break;
    case 4: {
      long got = fd >= 0 ? t_read(fd, back, amount) : (errno = EBADF, -1);
      uint32_t sum = 0;
      for (long i = 0; i < got; i++) sum = sum * 31 + back[i];
      printf("read %u %u", slot, amount);
      if (got < 0) result(got);
      else printf(" -> %ld sum %u\n", got, sum);
      break;
    }
    case 5: {
      t_stat_t info;
      printf("lseek %u %lld %d", slot, (long long)offset, whence);
      if (fd >= 0 && t_fstat(fd, &info) == 0 && S_ISDIR(T_MODE(info))) {
        printf(" -> directory: unspecified\n");  // offsets in a directory are the file system's own
      } else {
        result(fd >= 0 ? (long)t_lseek(fd, offset, whence) : (errno = EBADF, -1));
      }
      break;
    }
    case 6:
      printf("ftruncate %u %u", slot, amount);
      result(fd >= 0 ? t_ftruncate(fd, amount) : (errno = EBADF, -1));
      break;
    case 7:
      printf("mkdir %s", path);
      result(t_mkdir(path, 0755));
      break;
    case 8:
      printf("rmdir %s", path);
      result(t_rmdir(path));
      break;
    case 9:
      printf("unlink %s", path);
      result(t_unlink(path));
      break;
    case 10:
      printf("rename %s %s", path, other);
      result(t_rename(path, other));
      break;
    case 11:
      printf("link %s %s", path, other);
      result(t_link(path, other));
      break;
    case 12:
      printf("symlink %s %s", other, path);
      result(t_symlink(other, path));
      break;
    case 13: {
      char target[64];
      long got = t_readlink(path, target, sizeof target - 1);
      printf("readlink %s", path);
      if (got < 0) result(got);
      else printf(" -> %.*s\n", (int)got, target);
      break;
    }
    case 14: {
      t_stat_t info;
      bool follow = flags % 2 == 0;
      long got = follow ? t_stat(path, &info) : t_lstat(path, &info);
      printf("%s %s", follow ? "stat" : "lstat", path);
      if (got < 0) result(got);
      // Sizes of directories and symlinks are the file system's own (not compared).
      else printf(" -> %s size %lld nlink %u\n", type_of(T_MODE(info)),
                  S_ISREG(T_MODE(info)) ? (long long)T_SIZE(info) : 0LL, (unsigned)T_NLINK(info));
      break;
    }
    default: {
      name_count = 0;
      long got = t_list(path, take_name, NULL);
      printf("list %s", path);
      if (got < 0) {
        result(got);
        break;
      }
      qsort(names, (size_t)name_count, sizeof names[0], by_name);
      printf(" ->");
      for (int i = 0; i < name_count; i++) printf(" %s", names[i]);
      printf("\n");
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 4) {
    printf("usage: difffuzz ROOT SEED COUNT [STEPS]\n");
    return 2;
  }
  char dir[4096];
  if (strncmp(argv[1], "mount:", 6) == 0) {
#if defined(WS_TEST_CORE) || defined(__EMSCRIPTEN__)
    if (t_mkdir("/h", 0755) != 0 || ws_fs_mount("/h", ws_fs_host_backend(), argv[1] + 6) != 0 || t_chdir("/h") != 0) {
      printf("difffuzz: cannot mount %s\n", argv[1] + 6);
      return 1;
    }
#else
    if (t_chdir(argv[1] + 6) != 0) return 1;
#endif
  } else if (strcmp(argv[1], "-") == 0 ? enter_scratch_dir("difffuzz", dir, sizeof dir) != 0 : t_chdir(argv[1]) != 0) {
    printf("difffuzz: cannot enter %s\n", argv[1]);
    return 1;
  }
  state = strtoull(argv[2], NULL, 10);
  long count = atol(argv[3]);
  const char *steps = argc > 4 ? argv[4] : NULL;
  for (long i = 0; i < count; i++) {
    bool run = steps == NULL;
    for (const char *at = steps; at != NULL && *at != '\0' && !run;) {
      char *end;
      long listed = strtol(at, &end, 10);
      run = listed == i;
      at = *end == ',' ? end + 1 : end;
    }
    if (run) printf("%ld: ", i);
    step(run);
  }
  for (int s = 0; s < SLOTS; s++) {
    if (slots[s] >= 0) t_close(slots[s]);
  }
  printf("difffuzz: done\n");
  return 0;
}
