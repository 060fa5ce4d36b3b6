// The Emscripten syscall ABI, as libc (musl) calls it: the import names and argument shapes
// that the syscall layer defines, per release. Each release wasmscale knows (the table in
// tools/toolchain.py) is mapped here to the ABI it shares; any other stops the build, because
// a definition with another signature than libc's call would link and then misread its
// arguments. docs/abi/ lists each release's imports (tools/syscall_imports.py), and the
// toolchain test checks the library against them.
//   WS_SYSCALL_ABI 31 (3.1.6): 64-bit arguments of ftruncate64, truncate64, fallocate and
//     fadvise64_64 come as two i32 halves; fchmodat is variadic; _mmap_js returns the address and takes a 32-bit
//     offset; emscripten_builtin_memalign is declared in <emscripten/emmalloc.h>.
//   WS_SYSCALL_ABI 40 (4.0.23): real i64 arguments (WASM_BIGINT is the default), fadvise64 for
//     fadvise64_64; fchmodat2
//     takes the flags; _mmap_js, _munmap_js and _msync_js take i64 offsets, and _mmap_js gives
//     the address through a pointer; <emscripten/heap.h> declares the builtin allocator.
#ifndef WASMSCALE_FS_SYSCALLS_ABI_H
#define WASMSCALE_FS_SYSCALLS_ABI_H

#include <emscripten/version.h>
#include <stdint.h>

#define WS_EMSCRIPTEN_IS(major, minor, tiny) \
  (__EMSCRIPTEN_major__ == (major) && __EMSCRIPTEN_minor__ == (minor) && __EMSCRIPTEN_tiny__ == (tiny))

#if WS_EMSCRIPTEN_IS(3, 1, 6)
#define WS_SYSCALL_ABI 31
#elif WS_EMSCRIPTEN_IS(4, 0, 23)
#define WS_SYSCALL_ABI 40
#else
#error "wasmscale: the syscall ABI of this Emscripten release is not known; check its imports (tools/syscall_imports.py) and add it here and to tools/toolchain.py"
#endif

#if WS_SYSCALL_ABI == 31
#define WS_I64_PARAM(name) long name##_low, long name##_high
#define WS_I64_VALUE(name) ((int64_t)(((uint64_t)(uint32_t)name##_high << 32) | (uint32_t)name##_low))
#define WS_SYSCALL_FADVISE __syscall_fadvise64_64
#include <emscripten/emmalloc.h>
#else
#define WS_I64_PARAM(name) int64_t name
#define WS_I64_VALUE(name) (name)
#define WS_SYSCALL_FADVISE __syscall_fadvise64
#include <emscripten/heap.h>
#endif

#endif
