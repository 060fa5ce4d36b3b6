// Host files for Emscripten: the calls themselves live in host.js (a JS library the driver
// links); this adapts their arguments (offsets as doubles, exact below 2^53; one call moves at
// most 1 GiB, so the count fits an int).
#include <errno.h>
#include <stdint.h>

#include "../platform.h"

// host.js
extern int _wasmscale_host_open_root(const char *path);
extern int _wasmscale_host_open_dir(int dir, const char *name);
extern int _wasmscale_host_lstat(int dir, const char *name, ws_host_stat *out);
extern int _wasmscale_host_fstat(int fd, ws_host_stat *out);
extern int _wasmscale_host_realpath(const char *path, char *out, size_t size);
extern int _wasmscale_host_open(int dir, const char *name, int how, uint32_t mode);
extern int _wasmscale_host_close(int fd);
extern int _wasmscale_host_pread(int fd, void *buffer, size_t length, double offset);
extern int _wasmscale_host_pwrite(int fd, const void *buffer, size_t length, double offset);
extern int _wasmscale_host_ftruncate(int fd, double size);
extern int _wasmscale_host_fsync(int fd);
extern int _wasmscale_host_chmod(int fd, uint32_t mode);
extern int _wasmscale_host_utimes(int fd, double atime, double mtime);
extern int _wasmscale_host_name_call(int call, int dir, const char *name, int to_dir, const char *to, uint32_t mode);
extern int _wasmscale_host_readlink(int dir, const char *name, char *buffer, size_t size);
extern int _wasmscale_host_list(int dir, void *buffer, size_t size);
extern int _wasmscale_host_startup_mounts(char *buffer, size_t size);

enum { MKDIR, RMDIR, UNLINK, RENAME, LINK, SYMLINK };
#define MOST_PER_CALL ((size_t)1 << 30)
#define EXACT_LIMIT ((uint64_t)1 << 53)

_Static_assert(sizeof(ws_host_stat) == 80, "host.js writes this layout");

static int host_open_root(const char *path) { return _wasmscale_host_open_root(path); }
static int host_open_dir(int dir, const char *name) { return _wasmscale_host_open_dir(dir, name); }
static int host_lstat(int dir, const char *name, ws_host_stat *out) { return _wasmscale_host_lstat(dir, name, out); }
static int host_fstat(int fd, ws_host_stat *out) { return _wasmscale_host_fstat(fd, out); }
int ws_prim_host_realpath(const char *path, char *out, size_t size) { return _wasmscale_host_realpath(path, out, size); }
static int host_open(int dir, const char *name, int how, uint32_t mode) {
  return _wasmscale_host_open(dir, name, how, mode);
}
static int host_close(int fd) { return _wasmscale_host_close(fd); }

static int64_t host_pread(int fd, void *buffer, size_t length, uint64_t offset) {
  if (offset >= EXACT_LIMIT) return -EFBIG;
  return _wasmscale_host_pread(fd, buffer, length < MOST_PER_CALL ? length : MOST_PER_CALL, (double)offset);
}

static int64_t host_pwrite(int fd, const void *buffer, size_t length, uint64_t offset) {
  if (offset >= EXACT_LIMIT) return -EFBIG;
  return _wasmscale_host_pwrite(fd, buffer, length < MOST_PER_CALL ? length : MOST_PER_CALL, (double)offset);
}

static int host_ftruncate(int fd, uint64_t size) {
  return size >= EXACT_LIMIT ? -EFBIG : _wasmscale_host_ftruncate(fd, (double)size);
}

static int host_fsync(int fd) { return _wasmscale_host_fsync(fd); }
static int host_chmod(int fd, uint32_t mode) { return _wasmscale_host_chmod(fd, mode); }
static int host_utimes(int fd, const int64_t seconds[2], const int32_t nanoseconds[2]) {
  return _wasmscale_host_utimes(fd, (double)seconds[0] + nanoseconds[0] / 1e9, (double)seconds[1] + nanoseconds[1] / 1e9);
}
static int host_mkdir(int dir, const char *name, uint32_t mode) {
  return _wasmscale_host_name_call(MKDIR, dir, name, -1, NULL, mode);
}
static int host_rmdir(int dir, const char *name) { return _wasmscale_host_name_call(RMDIR, dir, name, -1, NULL, 0); }
static int host_unlink(int dir, const char *name) { return _wasmscale_host_name_call(UNLINK, dir, name, -1, NULL, 0); }
static int host_rename(int from_dir, const char *from, int to_dir, const char *to) {
  return _wasmscale_host_name_call(RENAME, from_dir, from, to_dir, to, 0);
}
static int host_link(int from_dir, const char *from, int to_dir, const char *to) {
  return _wasmscale_host_name_call(LINK, from_dir, from, to_dir, to, 0);
}
static int host_symlink(const char *target, int dir, const char *name) {
  return _wasmscale_host_name_call(SYMLINK, dir, name, -1, target, 0);
}
static int host_readlink(int dir, const char *name, char *buffer, size_t size) {
  return _wasmscale_host_readlink(dir, name, buffer, size);
}

static int64_t host_list(int dir, void *buffer, size_t size) {
  return _wasmscale_host_list(dir, buffer, size < MOST_PER_CALL ? size : MOST_PER_CALL);
}

size_t ws_prim_host_startup_mounts(char *buffer, size_t size) {
  return (size_t)_wasmscale_host_startup_mounts(buffer, size);
}

const ws_host_io ws_prim_host_io = WS_HOST_IO(host);
