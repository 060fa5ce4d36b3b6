// Debug levels, as mimalloc's MI_DEBUG: the rules the code states in comments, checked.
//
//   WS_DEBUG=0  (default) no checks: what users get.
//   WS_DEBUG=1  cheap checks (ws_assert): a lock the caller must hold is held, an owner-only
//               structure is touched by its owner, counts stay in range.
//   WS_DEBUG=2  also the validators (code under `#if WS_DEBUG >= 2`): walks of whole
//               structures (a heap's run lists, the span pool, the page map, a directory) at
//               the points where they must be consistent.
//
// A failed check writes one line naming the condition, file and line, and aborts: a broken
// invariant is a bug here, never the program's fault, and going on would corrupt memory or
// files. `make test` runs the whole suite once more with WS_DEBUG=2 (docs/testing.md).
#ifndef WASMSCALE_DEBUG_H
#define WASMSCALE_DEBUG_H

#include <stdint.h>

#ifndef WS_DEBUG
#define WS_DEBUG 0
#endif

_Noreturn void _ws_debug_fail(const char *condition, const char *file, int line);

#if WS_DEBUG >= 1
#define ws_assert(condition) ((condition) ? (void)0 : _ws_debug_fail(#condition, __FILE__, __LINE__))
#else
#define ws_assert(condition) ((void)0)
#endif

#if WS_DEBUG >= 1
#include <pthread.h>
// A number that tells the calling thread from every other live thread: what locks record as
// their holder. Not the address of a thread-local variable: in Wasm a new thread allocates
// its thread-local block with malloc, under the allocator's locks, and until then all new
// threads' thread-local addresses are the same; pthread_self() is set before that.
static inline uintptr_t ws_debug_self(void) { return (uintptr_t)pthread_self(); }
#endif

#endif
