// The platform contract: everything wasmscale's libraries need from the OS or the runtime.
// The allocator and file system call only these; src/platform/<platform>/ implements them.
//   emscripten/  Wasm: memory from a shared sbrk, Emscripten's pthreads
//   posix/       native Linux: one reserved mmap window, pthreads (for tests and comparisons)
#ifndef WASMSCALE_PLATFORM_H
#define WASMSCALE_PLATFORM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "debug.h"

// ----- memory ------------------------------------------------------------------------------
// All memory the platform hands out lies in one window of at most 4 GiB starting here
// (0 in Wasm, where the window is all of linear memory).
uintptr_t ws_prim_window_base(void);

// The current end of platform memory: the next ws_prim_grow returns this address unless
// another user of the same memory (another sbrk caller) moved it in between.
uintptr_t ws_prim_break(void);

// Extends platform memory by `bytes` (a multiple of 16) and returns the start of the new
// memory, 16-byte aligned (contents unspecified), or NULL when memory cannot grow.
void *ws_prim_grow(size_t bytes);

// Gives back the last `bytes` of platform memory if they still end at the break.
bool ws_prim_shrink(void *start, size_t bytes);

// Makes [start, start + size) reachable by the calling thread's atomic instructions. In Wasm
// each thread checks atomic accesses against its own record of the memory size, which V8
// brings up to date only some time after another thread grows memory: until then an atomic
// access to the new memory traps ("memory access out of bounds") while plain loads and stores
// work (measured on Node 20; tests/alloc/test_grown_memory.c). memory.grow(0) refreshes the
// record. So code about to use atomics on memory another thread may have just taken from the
// platform calls this first. Natively there is nothing to do.
#define WS_PRIM_WASM_PAGE 65536u  // the unit of memory.size and memory.grow
static inline void ws_prim_see_memory(const void *start, size_t size) {
#ifdef __EMSCRIPTEN__
  if ((uint64_t)(uintptr_t)start + size > (uint64_t)__builtin_wasm_memory_size(0) * WS_PRIM_WASM_PAGE) {
    __builtin_wasm_memory_grow(0, 0);
  }
#else
  (void)start;
  (void)size;
#endif
}

// The same for everything below the break (whoever's malloc the program links): whatever
// existed when the caller got its pointers. With `seen_break` (the caller's thread-local
// record of the break it last made visible, zero at first), a thread that has already seen
// memory up to the break only compares two words; NULL always looks at the memory size.
void ws_prim_see_all_memory(uintptr_t *seen_break);

// ----- threads -----------------------------------------------------------------------------
// Calls fn(arg) when the calling thread exits (not for the main thread). false if impossible.
bool ws_prim_on_thread_exit(void (*fn)(void *), void *arg);

// Lets the thread holding a lock run: called by a waiter that has spun for a while. `word` is
// the lock's state, `busy` its locked value. Natively it yields the CPU; in Wasm (where
// sched_yield does nothing) it sleeps on the word briefly, so 4 threads on 2 cores do not burn
// their time slices spinning while the holder waits to be scheduled.
void ws_prim_wait(_Atomic int *word, int busy);

void ws_prim_yield(void);

// Sleeps while *word == expected, until ws_prim_wake_all on the word (may return early, and
// at once if the word has already changed). The file system's locks, which may be held across
// long copies, sleep here instead of spinning.
void ws_prim_futex_wait(_Atomic unsigned *word, unsigned expected);
void ws_prim_wake_all(_Atomic unsigned *word);

// ----- console, randomness and the clock (the file system's /dev, file times) ----------------
// Hands bytes for the host's stdout (stream 1) or stderr (2) over synchronously, from any
// thread: in Wasm straight to Node's fs.writeSync or the browser console, never through the
// main thread. The file system passes whole lines except at a flush.
void ws_prim_console_write(int stream, const char *data, size_t length);
// Reads up to `length` bytes of the host's stdin: the count, 0 at its end, or -errno.
int64_t ws_prim_console_read(void *data, size_t length);
// Fills `buffer` with random bytes; 0 or -errno.
int ws_prim_random(void *buffer, size_t length);
// The wall clock (CLOCK_REALTIME), for file times.
void ws_prim_realtime(struct timespec *now);

// ----- host files (the file system's host-directory backend) ----------------------------------
// One host's file calls, as a table (the model of SQLite's sqlite3_io_methods): the platform's
// own host files below, the OPFS backend's calls (src/fs/opfs/) and the tests' failing host
// each fill one, and the host-directory backend's logic runs over any of them. Errors are
// -errno in this platform's numbering.
//
// Files are named beneath a held directory: a descriptor from open_root or open_dir and one
// name in it (never "", "." or "..", never holding '/'). No call follows a symlink in that
// name, and a held directory keeps meaning the directory it was opened on, whatever is renamed
// or replaced on the host meanwhile (the model of openat2's RESOLVE_BENEATH): so no call made
// through a mount reaches outside the directory it mounted. Directory descriptors are closed
// with close like file ones.
typedef struct ws_host_stat {
  uint32_t mode;  // S_IFMT | permission bits
  uint32_t nlink;
  uint64_t dev, ino;  // together, the file's identity on the host
  uint64_t size, blocks;
  int64_t atime_sec, mtime_sec, ctime_sec;
  int32_t atime_nsec, mtime_nsec, ctime_nsec;
} ws_host_stat;

enum { WS_HOST_READ_ONLY = 0, WS_HOST_READ_WRITE = 1, WS_HOST_CREATE = 2 /* exclusive */ };

typedef struct ws_host_io {
  // A held directory for `path` (relative: against the working directory), symlinks followed:
  // the mount's own directory, which the user named.
  int (*open_root)(const char *path);
  // A held directory for subdirectory `name` of `dir`; -ELOOP or -ENOTDIR if `name` is a symlink.
  int (*open_dir)(int dir, const char *name);
  int (*lstat)(int dir, const char *name, ws_host_stat *out);
  int (*fstat)(int fd, ws_host_stat *out);  // a file or a held directory
  int (*open)(int dir, const char *name, int how, uint32_t mode);  // a host descriptor
  int (*close)(int fd);
  int64_t (*pread)(int fd, void *buffer, size_t length, uint64_t offset);
  int64_t (*pwrite)(int fd, const void *buffer, size_t length, uint64_t offset);
  int (*ftruncate)(int fd, uint64_t size);
  int (*fsync)(int fd);
  // Attributes of the file or held directory `fd`: permission bits; access and modification
  // times (seconds and nanoseconds each, as utimensat's, UTIME_OMIT/UTIME_NOW resolved by the
  // caller).
  int (*chmod)(int fd, uint32_t mode);
  int (*utimes)(int fd, const int64_t seconds[2], const int32_t nanoseconds[2]);
  int (*mkdir)(int dir, const char *name, uint32_t mode);
  int (*rmdir)(int dir, const char *name);
  int (*unlink)(int dir, const char *name);
  int (*rename)(int from_dir, const char *from, int to_dir, const char *to);
  int (*link)(int from_dir, const char *from, int to_dir, const char *to);
  int (*symlink)(const char *target, int dir, const char *name);
  int (*readlink)(int dir, const char *name, char *buffer, size_t size);  // bytes, no terminator
  // Lists held directory `dir` (without . and ..) into `buffer` as packed entries: the S_IFMT
  // bits of the entry's type shifted right by 12 (one byte), its inode number (8 bytes, little
  // endian), its name and a zero byte. Returns the bytes the whole listing needs (more than
  // `size`: call again with a bigger buffer), or -errno.
  int64_t (*list)(int dir, void *buffer, size_t size);
} ws_host_io;

// The table of functions named PREFIX_open_root, PREFIX_open_dir... of one file.
#define WS_HOST_IO(prefix)                                                                     \
  {                                                                                            \
    prefix##_open_root, prefix##_open_dir, prefix##_lstat, prefix##_fstat, prefix##_open,      \
    prefix##_close, prefix##_pread, prefix##_pwrite, prefix##_ftruncate, prefix##_fsync,       \
    prefix##_chmod, prefix##_utimes, prefix##_mkdir, prefix##_rmdir, prefix##_unlink,          \
    prefix##_rename, prefix##_link, prefix##_symlink, prefix##_readlink, prefix##_list,        \
  }

// The host's own files, used synchronously by whichever thread needs them: natively the POSIX
// *at calls, in Wasm Node's fs module (host.js), called from the calling worker itself. Every
// call gives -ENODEV where there is no host file system (a browser).
extern const ws_host_io ws_prim_host_io;

// The absolute, symlink-free form of `path` (relative: against the working directory); for
// the start-up directory only, never to reach files.
int ws_prim_host_realpath(const char *path, char *out, size_t size);
// The host directories to mount at start-up (`wasmscale-cc --mount`), as zero-terminated
// pairs "virtual path", "host directory" in `buffer`. Returns the bytes needed (0: none).
size_t ws_prim_host_startup_mounts(char *buffer, size_t size);

// ----- fetched files (the memory backend's lazy files) ----------------------------------------
// Reads up to `length` bytes at `offset` of the file `url` names into `buffer`, synchronously,
// on the calling thread, which may be any: in a browser a synchronous XMLHttpRequest with a
// Range header (from a server that ignores ranges, the part asked for is cut from the whole
// file it sends); on Node and natively `url` is a path of the host's or a file: URL, read with
// pread. Returns the bytes read (fewer only at the file's end) or -errno: -EIO for a request
// that failed, -EOPNOTSUPP for a URL this platform cannot fetch (http on Node).
int64_t ws_prim_fetch(const char *url, void *buffer, size_t length, uint64_t offset);

// ----- the OPFS I/O worker (the OPFS backend's transport) -----------------------------------
// The browser's origin-private file system can be read and written synchronously only from a
// dedicated worker holding a FileSystemSyncAccessHandle, and a file admits one such handle, so
// one I/O worker (emscripten/opfs_worker.js) owns them all. A thread sends it a request, which
// lives on the sender's stack in shared memory, and waits; the worker answers requests in the
// order they arrive. OPFS names files by path: "" is the origin's OPFS root, "/a/b" below it.
// The OPFS backend (src/fs/opfs/) builds its held directories and its cache on these calls.
enum ws_opfs_call {  // opfs_worker.js's CALLS, in this order
  WS_OPFS_LSTAT = 1,  // path: buffer gets a ws_host_stat; fd gets the descriptor open on it, or -1
  WS_OPFS_FSTAT,      // fd: buffer gets a ws_host_stat
  WS_OPFS_REALPATH,   // path: buffer (length bytes) gets its normal form, made as a directory if missing
  WS_OPFS_OPEN,       // path, length = how: the descriptor (below WS_OPFS_FILES_MAX); offset gets the size
  WS_OPFS_CLOSE,      // fd: one open fewer (the handle lets go at the last, after a while)
  WS_OPFS_PREAD,      // fd, buffer, length, offset: the bytes read
  WS_OPFS_PWRITE,     // fd, buffer, length, offset: the bytes written
  WS_OPFS_TRUNCATE,   // fd, offset = the new size
  WS_OPFS_FLUSH,      // fd
  WS_OPFS_MKDIR,      // path
  WS_OPFS_RMDIR,      // path
  WS_OPFS_UNLINK,     // path
  WS_OPFS_RENAME,     // path to path2
  WS_OPFS_LIST,       // path, buffer, length: as ws_host_io's list
  WS_OPFS_CLOSE_ALL,  // every handle (ws_prim_opfs_disconnect sends it)
};
#define WS_OPFS_FILES_MAX 4096  // the worker's descriptors are below this

typedef struct ws_opfs_request {
  _Atomic uint32_t done;          // the word the sender waits on: 1 once answered
  uint32_t call;                  // enum ws_opfs_call
  struct ws_opfs_request *next;   // in the worker's queue
  int32_t fd;
  const char *path, *path2;
  void *buffer;
  uint32_t length;
  double offset;                  // offsets travel as doubles: exact below 2^53
  double result;                  // >= 0, or -errno
} ws_opfs_request;

// Sends `request` and waits for its answer, which it returns (also in request->result). A
// pthread sleeps; the browser's main thread, which may not sleep, spins (the worker never
// needs the main thread to answer). -ENODEV where there is no I/O worker: Node, a program
// built without -pthread, a browser without OPFS, or after ws_prim_opfs_disconnect.
double ws_prim_opfs_send(ws_opfs_request *request);
// Connects to the I/O worker that the page started before main(); true if requests will be
// answered. Called once, on the main thread before main() (a constructor).
bool ws_prim_opfs_connect(void);
// The worker lets go of every file handle; later requests give -ENODEV. At exit.
void ws_prim_opfs_disconnect(void);

// ----- diagnostics -------------------------------------------------------------------------
// Writes a message to the error console without allocating.
void ws_prim_write_error(const char *message);
_Noreturn void ws_prim_abort(void);

// ----- a small lock for slow paths ----------------------------------------------------------
typedef struct ws_prim_lock {
  _Atomic int held;
#if WS_DEBUG >= 1
  _Atomic uintptr_t holder;  // ws_debug_self() of the thread holding it, 0 when free
#endif
} ws_prim_lock;

#define WS_PRIM_LOCK_INIT {0}

// Whether the calling thread holds the lock (debug builds: for ws_assert).
#if WS_DEBUG >= 1
static inline bool ws_prim_lock_held(ws_prim_lock *lock) {
  return atomic_load_explicit(&lock->holder, memory_order_relaxed) == ws_debug_self();
}
#endif

// Returns true if the lock was busy on the first try (for contention statistics). Not
// recursive: a thread that takes a lock it holds waits forever (debug builds stop instead).
static inline bool ws_prim_lock_acquire(ws_prim_lock *lock) {
  ws_assert(!ws_prim_lock_held(lock));
  bool contended = atomic_exchange_explicit(&lock->held, 1, memory_order_acquire) != 0;
  for (unsigned spins = 0; contended;) {
    if (atomic_load_explicit(&lock->held, memory_order_relaxed) == 0 &&
        atomic_exchange_explicit(&lock->held, 1, memory_order_acquire) == 0) {
      break;
    }
    if (++spins > 64) {
      ws_prim_wait(&lock->held, 1);
      spins = 0;
    }
  }
#if WS_DEBUG >= 1
  atomic_store_explicit(&lock->holder, ws_debug_self(), memory_order_relaxed);
#endif
  return contended;
}

static inline void ws_prim_lock_release(ws_prim_lock *lock) {
  ws_assert(ws_prim_lock_held(lock));
#if WS_DEBUG >= 1
  atomic_store_explicit(&lock->holder, 0, memory_order_relaxed);
#endif
  atomic_store_explicit(&lock->held, 0, memory_order_release);
}

#endif
