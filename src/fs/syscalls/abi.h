// The Emscripten syscall ABI, as libc (musl) calls it: the import names and argument shapes
// that the syscall layer defines. Emscripten 3.1.6 is the reference (../shared/reference);
// where newer releases differ, the difference is guarded here.
#ifndef WASMSCALE_FS_SYSCALLS_ABI_H
#define WASMSCALE_FS_SYSCALLS_ABI_H

#include <emscripten/version.h>
#include <stdint.h>

// 3.1.6 passes 64-bit syscall arguments (ftruncate64, truncate64, fallocate) as two i32
// halves; later releases pass a real i64. The cut-over release is assumed to be 3.1.20
// (build with -DWS_SYSCALL_SPLIT_I64=0 or =1 to override).
#ifndef WS_SYSCALL_SPLIT_I64
#if __EMSCRIPTEN_major__ < 3 || (__EMSCRIPTEN_major__ == 3 && __EMSCRIPTEN_minor__ < 1) || \
    (__EMSCRIPTEN_major__ == 3 && __EMSCRIPTEN_minor__ == 1 && __EMSCRIPTEN_tiny__ < 20)
#define WS_SYSCALL_SPLIT_I64 1
#else
#define WS_SYSCALL_SPLIT_I64 0
#endif
#endif

#if WS_SYSCALL_SPLIT_I64
#define WS_I64_PARAM(name) long name##_low, long name##_high
#define WS_I64_VALUE(name) ((int64_t)(((uint64_t)(uint32_t)name##_high << 32) | (uint32_t)name##_low))
#else
#define WS_I64_PARAM(name) int64_t name
#define WS_I64_VALUE(name) (name)
#endif

#endif
