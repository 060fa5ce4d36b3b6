// The C half of the module's JavaScript file-system API (api.js beside this file): a few calls
// the host page or Node script reaches through the Wasm exports. Paths are NUL-terminated
// UTF-8 in linear memory; each call returns >= 0 or -errno, and api.js turns -errno into an
// exception naming the code. The calls go straight to the core, like a thread's syscalls,
// so they never wait for the main thread and work while pthreads use the same files.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <emscripten/emscripten.h>

#include "../core.h"
#include "../internal.h"

#define API EMSCRIPTEN_KEEPALIVE

// Memory for the strings and data api.js passes in and takes out.
API void *ws_js_alloc(size_t size) { return malloc(size ? size : 1); }
API void ws_js_free(void *pointer) { free(pointer); }

// The whole of `data` as the file's new contents (as Node's fs.writeFileSync and Emscripten's
// FS.writeFile do).
API int ws_js_write_file(const char *path, const void *data, size_t length, uint32_t mode) {
  return _ws_write_file(path, data, length, mode);
}

// A lazy file (createLazyFile): `size` bytes at `url`, fetched on first read by the reading
// thread (a double: exact to 2^53, beyond any file a Wasm program reads).
API int ws_js_create_lazy(const char *path, const char *url, double size, uint32_t mode) {
  if (!(size >= 0 && size <= 9007199254740992.0)) return -EINVAL;
  return _ws_fs_create_lazy(path, url, (uint64_t)size, mode);
}

// Reads the whole file into a new buffer (*data, freed with ws_js_free); returns its length
// (an int: JavaScript gets no larger copy, and an int crosses every Emscripten ABI the same).
API int ws_js_read_file(const char *path, void **data) {
  *data = NULL;
  int fd = _ws_fs_openat(WS_AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return fd;
  ws_stat info;
  int64_t result = _ws_fs_fstat(fd, &info);
  size_t capacity = result == 0 ? (size_t)info.size + 1 : 0, length = 0;
  char *buffer = result == 0 ? malloc(capacity) : NULL;
  if (result == 0 && buffer == NULL) result = -ENOMEM;
  // Read to the end even if the file grew after fstat (another thread may be appending).
  while (result >= 0) {
    if (length == capacity) {
      char *larger = realloc(buffer, capacity *= 2);
      if (larger == NULL) {
        result = -ENOMEM;
        break;
      }
      buffer = larger;
    }
    result = _ws_fs_read(fd, buffer + length, capacity - length);
    if (result <= 0) break;
    length += (size_t)result;
    if (length > INT_MAX) result = -EFBIG;
  }
  _ws_fs_close(fd);
  if (result < 0) {
    free(buffer);
    return (int)result;
  }
  *data = buffer;
  return (int)length;
}

API int ws_js_mkdir(const char *path, uint32_t mode) { return _ws_fs_mkdirat(WS_AT_FDCWD, path, mode); }
API int ws_js_rmdir(const char *path) { return _ws_fs_unlinkat(WS_AT_FDCWD, path, AT_REMOVEDIR); }
API int ws_js_unlink(const char *path) { return _ws_fs_unlinkat(WS_AT_FDCWD, path, 0); }
API int ws_js_rename(const char *from, const char *to) { return _ws_fs_renameat(WS_AT_FDCWD, from, WS_AT_FDCWD, to); }

// Mounts a backend chosen by name ("memory", "host", "opfs") at `path`; `options` as the
// backend takes them (host: the host directory; opfs: a directory in OPFS). ENODEV for a
// backend this program does not hold (src/fs/linked.h: each is linked only when asked for).
API int ws_js_mount(const char *path, const char *type, const char *options) {
  const ws_fs_backend *backend = strcmp(type, "memory") == 0 ? ws_fs_memory_backend() : _ws_linked_backend(type);
  bool opfs = strcmp(type, "opfs") == 0;
  if (backend == NULL) return -ENODEV;
  return ws_fs_mount(path, backend, options[0] != '\0' || opfs ? options : NULL);  // "": the OPFS root
}

API int ws_js_unmount(const char *path) { return ws_fs_unmount(path); }

// fsync of one file (by path), or sync of everything open when `path` is empty.
API int ws_js_sync(const char *path) {
  if (path[0] == '\0') return _ws_fs_sync_all();
  int fd = _ws_fs_openat(WS_AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return fd;
  int error = _ws_fs_fsync(fd);
  int closed = _ws_fs_close(fd);
  return error != 0 ? error : closed;
}

// stat/lstat into 13 doubles (exact for every value a file system of Wasm memory reaches):
// dev, ino, mode, nlink, uid, gid, rdev, size, blksize, blocks, atime, mtime, ctime (ms).
API int ws_js_stat(const char *path, double *out, int follow) {
  ws_stat info;
  int error = _ws_fs_fstatat(WS_AT_FDCWD, path, &info, follow ? 0 : AT_SYMLINK_NOFOLLOW);
  if (error != 0) return error;
  const struct timespec *times[] = {&info.atime, &info.mtime, &info.ctime};
  double values[] = {(double)info.dev, (double)info.ino, info.mode, info.nlink, 0, 0, (double)info.rdev,
                     (double)info.size, info.blksize, (double)info.blocks};
  memcpy(out, values, sizeof values);
  for (int i = 0; i < 3; i++) out[10 + i] = (double)times[i]->tv_sec * 1e3 + (double)times[i]->tv_nsec / 1e6;
  return 0;
}

typedef struct names {
  char *buffer;
  size_t length, capacity;
  int error;
} names;

static int add_name(void *context, const struct ws_dirent *entry, uint64_t next) {
  (void)next;
  names *list = context;
  if (list->length + entry->length + 1 > list->capacity) {
    size_t capacity = (list->capacity + entry->length + 1) * 2;
    char *larger = realloc(list->buffer, capacity);
    if (larger == NULL) {
      list->error = -ENOMEM;
      return 0;
    }
    list->buffer = larger;
    list->capacity = capacity;
  }
  memcpy(list->buffer + list->length, entry->name, entry->length + 1u);
  list->length += entry->length + 1u;
  return 1;
}

// The directory's names, "." and ".." first, each ended by a zero, in a new buffer (*data);
// returns the buffer's length.
API int ws_js_readdir(const char *path, char **data) {
  *data = NULL;
  int fd = _ws_fs_openat(WS_AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return fd;
  names list = {0};
  int result;
  while ((result = _ws_fs_getdents(fd, add_name, &list)) > 0 && list.error == 0) {
  }
  _ws_fs_close(fd);
  if (result >= 0) result = list.length > INT_MAX ? -EFBIG : list.error;
  if (result < 0) {
    free(list.buffer);
    return result;
  }
  *data = list.buffer;
  return (int)list.length;
}

// ----- for Emscripten's FS API (emscripten_fs.js): links, attributes, descriptors ------------
// Sizes, offsets and times cross as doubles: exact up to 2^53, and a double is a double under
// every Emscripten ABI, where a 64-bit integer is a pair of i32 in some and a BigInt in others.

API int ws_js_symlink(const char *target, const char *path) { return _ws_fs_symlinkat(target, WS_AT_FDCWD, path); }

// The link's target in a new buffer (*data); returns its length.
API int ws_js_readlink(const char *path, char **data) {
  *data = malloc(PATH_MAX);
  if (*data == NULL) return -ENOMEM;
  int length = _ws_fs_readlinkat(WS_AT_FDCWD, path, *data, PATH_MAX);
  if (length < 0) {
    free(*data);
    *data = NULL;
  }
  return length;
}

API int ws_js_chmod(const char *path, uint32_t mode, int follow) {
  return _ws_fs_fchmodat(WS_AT_FDCWD, path, mode, follow ? 0 : AT_SYMLINK_NOFOLLOW);
}

static struct timespec from_ms(double ms) {
  double seconds = ms / 1e3;
  struct timespec time = {.tv_sec = (time_t)seconds};
  if ((double)time.tv_sec > seconds) time.tv_sec--;  // toward minus infinity: nsec stays >= 0
  time.tv_nsec = (long)((ms - (double)time.tv_sec * 1e3) * 1e6);
  if (time.tv_nsec > 999999999) time.tv_nsec = 999999999;
  return time;
}

// A number that converts to an integer exactly and without trapping: finite, within ±2^53.
static bool within_2_53(double value) { return value == value && value <= 9007199254740992.0 && value >= -9007199254740992.0; }

API int ws_js_utime(const char *path, double atime_ms, double mtime_ms) {
  if (!within_2_53(atime_ms) || !within_2_53(mtime_ms)) return -EINVAL;
  struct timespec times[2] = {from_ms(atime_ms), from_ms(mtime_ms)};
  return _ws_fs_utimensat(WS_AT_FDCWD, path, times, 0);
}

API int ws_js_truncate(const char *path, double size) {
  return !within_2_53(size) || size < 0 ? -EINVAL : _ws_fs_truncate(path, (int64_t)size);
}

API int ws_js_open(const char *path, int flags, uint32_t mode) { return _ws_fs_openat(WS_AT_FDCWD, path, flags, mode); }
API int ws_js_close(int fd) { return _ws_fs_close(fd); }

// read or write of `length` bytes at `data`, at `position` (< 0: the descriptor's position,
// which then moves); the bytes done, or -errno.
API double ws_js_transfer(int fd, void *data, size_t length, double position, int writing) {
  struct iovec part = {.iov_base = data, .iov_len = length};
  int64_t offset = position < 0 ? -1 : (int64_t)position;
  return (double)(writing ? _ws_fs_writev(fd, &part, 1, offset) : _ws_fs_readv(fd, &part, 1, offset));
}

API double ws_js_llseek(int fd, double offset, int whence) { return (double)_ws_fs_lseek(fd, (int64_t)offset, whence); }

API int ws_js_chdir(const char *path) { return _ws_fs_chdir(path); }

// The working directory in a new buffer (*data); returns its length without the zero.
API int ws_js_getcwd(char **data) {
  *data = malloc(PATH_MAX);
  if (*data == NULL) return -ENOMEM;
  int length = _ws_fs_getcwd(*data, PATH_MAX);
  if (length < 0) {
    free(*data);
    *data = NULL;
    return length;
  }
  return length - 1;
}

// The symbolic name of an errno value ("ENOENT"), for the exceptions api.js throws; NULL for
// a value the file system never returns.
API const char *ws_js_errno_name(int error) {
  static const struct {
    int value;
    const char *name;
  } known[] = {
      {EPERM, "EPERM"},   {ENOENT, "ENOENT"},   {EIO, "EIO"},         {EBADF, "EBADF"},
      {ENOMEM, "ENOMEM"}, {EACCES, "EACCES"},   {EBUSY, "EBUSY"},     {EEXIST, "EEXIST"},
      {EXDEV, "EXDEV"},   {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"},   {EINVAL, "EINVAL"},
      {EMFILE, "EMFILE"}, {EFBIG, "EFBIG"},     {ENOSPC, "ENOSPC"},   {EROFS, "EROFS"},
      {ENAMETOOLONG, "ENAMETOOLONG"},           {ENOTEMPTY, "ENOTEMPTY"}, {ELOOP, "ELOOP"},
      {ENOTSUP, "ENOTSUP"}, {ENOSYS, "ENOSYS"}, {ENODEV, "ENODEV"},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    if (known[i].value == error) return known[i].name;
  }
  return NULL;
}

API const char *ws_js_strerror(int error) { return strerror(error); }
