// The imports Emscripten's libc (emscripten_mmap.c) calls for mmap/munmap/msync of a file.
// libc keeps the list of mappings and frees the memory at munmap when told it allocated it.
#include <errno.h>

#include "../core.h"
#include "abi.h"

#define MAPPING_ALIGNMENT 65536  // a Wasm page, as Emscripten's anonymous mappings

static long map_file(long length, long prot, long flags, long fd, int64_t offset, int *allocated, void **address) {
  if (length <= 0 || offset < 0) return -EINVAL;
  void *memory = emscripten_builtin_memalign(MAPPING_ALIGNMENT, (size_t)length);
  if (memory == NULL) return -ENOMEM;
  int error = _ws_fs_map((int)fd, (uint64_t)offset, (size_t)length, (int)prot, (int)flags, memory);
  if (error != 0) {
    emscripten_builtin_free(memory);
    return error;
  }
  *allocated = 1;
  *address = memory;
  return 0;
}

#if WS_SYSCALL_ABI == 31
// The address comes back as the result; offsets are 32-bit.
long _mmap_js(long addr, long length, long prot, long flags, long fd, long offset, int *allocated) {
  (void)addr;
  void *address;
  long error = map_file(length, prot, flags, fd, (uint32_t)offset, allocated, &address);
  return error != 0 ? error : (long)address;
}

long _munmap_js(long addr, long length, long prot, long flags, long fd, long offset) {
  (void)prot, (void)flags, (void)fd, (void)offset;
  return _ws_fs_unmap((void *)addr, (size_t)length);
}

long _msync_js(long addr, long length, long flags, long fd) {
  (void)flags, (void)fd;
  return _ws_fs_msync((void *)addr, (size_t)length);
}
#else
// An i64 offset, and the address through a pointer.
int _mmap_js(size_t length, int prot, int flags, int fd, int64_t offset, int *allocated, void **addr) {
  return (int)map_file((long)length, prot, flags, fd, offset, allocated, addr);
}

int _munmap_js(intptr_t addr, size_t length, int prot, int flags, int fd, int64_t offset) {
  (void)prot, (void)flags, (void)fd, (void)offset;
  return _ws_fs_unmap((void *)addr, length);
}

int _msync_js(intptr_t addr, size_t length, int prot, int flags, int fd, int64_t offset) {
  (void)prot, (void)flags, (void)fd, (void)offset;
  return _ws_fs_msync((void *)addr, length);
}
#endif
