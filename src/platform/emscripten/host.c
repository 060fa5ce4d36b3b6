// Host files for Emscripten: the calls themselves live in host.js (a JS library the driver
// links); this adapts their arguments (offsets as doubles, exact below 2^53; one call moves at
// most 1 GiB, so the count fits an int).
#include <errno.h>
#include <stdint.h>

#include "../platform.h"

// host.js
extern int _wasmscale_host_lstat(const char *path, ws_host_stat *out);
extern int _wasmscale_host_fstat(int fd, ws_host_stat *out);
extern int _wasmscale_host_realpath(const char *path, char *out, size_t size);
extern int _wasmscale_host_open(const char *path, int how, uint32_t mode);
extern int _wasmscale_host_close(int fd);
extern int _wasmscale_host_pread(int fd, void *buffer, size_t length, double offset);
extern int _wasmscale_host_pwrite(int fd, const void *buffer, size_t length, double offset);
extern int _wasmscale_host_ftruncate(int fd, double size);
extern int _wasmscale_host_fsync(int fd);
extern int _wasmscale_host_path_call(int call, const char *first, const char *second, uint32_t mode);
extern int _wasmscale_host_readlink(const char *path, char *buffer, size_t size);
extern int _wasmscale_host_list(const char *path, void *buffer, size_t size);
extern int _wasmscale_host_startup_mounts(char *buffer, size_t size);

enum { MKDIR, RMDIR, UNLINK, RENAME, LINK, SYMLINK };
#define MOST_PER_CALL ((size_t)1 << 30)
#define EXACT_LIMIT ((uint64_t)1 << 53)

_Static_assert(sizeof(ws_host_stat) == 72, "host.js writes this layout");

int ws_prim_host_lstat(const char *path, ws_host_stat *out) { return _wasmscale_host_lstat(path, out); }
int ws_prim_host_fstat(int fd, ws_host_stat *out) { return _wasmscale_host_fstat(fd, out); }
int ws_prim_host_realpath(const char *path, char *out, size_t size) { return _wasmscale_host_realpath(path, out, size); }
int ws_prim_host_open(const char *path, int how, uint32_t mode) { return _wasmscale_host_open(path, how, mode); }
int ws_prim_host_close(int fd) { return _wasmscale_host_close(fd); }

int64_t ws_prim_host_pread(int fd, void *buffer, size_t length, uint64_t offset) {
  if (offset >= EXACT_LIMIT) return -EFBIG;
  return _wasmscale_host_pread(fd, buffer, length < MOST_PER_CALL ? length : MOST_PER_CALL, (double)offset);
}

int64_t ws_prim_host_pwrite(int fd, const void *buffer, size_t length, uint64_t offset) {
  if (offset >= EXACT_LIMIT) return -EFBIG;
  return _wasmscale_host_pwrite(fd, buffer, length < MOST_PER_CALL ? length : MOST_PER_CALL, (double)offset);
}

int ws_prim_host_ftruncate(int fd, uint64_t size) {
  return size >= EXACT_LIMIT ? -EFBIG : _wasmscale_host_ftruncate(fd, (double)size);
}

int ws_prim_host_fsync(int fd) { return _wasmscale_host_fsync(fd); }
int ws_prim_host_mkdir(const char *path, uint32_t mode) { return _wasmscale_host_path_call(MKDIR, path, NULL, mode); }
int ws_prim_host_rmdir(const char *path) { return _wasmscale_host_path_call(RMDIR, path, NULL, 0); }
int ws_prim_host_unlink(const char *path) { return _wasmscale_host_path_call(UNLINK, path, NULL, 0); }
int ws_prim_host_rename(const char *from, const char *to) { return _wasmscale_host_path_call(RENAME, from, to, 0); }
int ws_prim_host_link(const char *existing, const char *path) { return _wasmscale_host_path_call(LINK, existing, path, 0); }
int ws_prim_host_symlink(const char *target, const char *path) { return _wasmscale_host_path_call(SYMLINK, target, path, 0); }
int ws_prim_host_readlink(const char *path, char *buffer, size_t size) { return _wasmscale_host_readlink(path, buffer, size); }

int64_t ws_prim_host_list(const char *path, void *buffer, size_t size) {
  return _wasmscale_host_list(path, buffer, size < MOST_PER_CALL ? size : MOST_PER_CALL);
}

size_t ws_prim_host_startup_mounts(char *buffer, size_t size) {
  return (size_t)_wasmscale_host_startup_mounts(buffer, size);
}
