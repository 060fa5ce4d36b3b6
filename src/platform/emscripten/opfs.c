// The OPFS client: the C side of the browser's origin-private file system.
//
// OPFS files are read and written synchronously only from a dedicated worker holding a
// FileSystemSyncAccessHandle, and a file admits one such handle, so one I/O worker
// (opfs_worker.js) owns them all. A call here becomes a request on the caller's stack (shared
// memory), pushed onto a lock-free list; the worker takes the whole list, answers each request
// in order and wakes its caller.
//
// Waiting: a pthread sleeps on its request's word (Atomics.wait). The browser's main thread
// may not sleep; emscripten_futex_wait spins there instead. The spin always ends, because the
// I/O worker never needs the main thread to answer (it has the memory and its own event loop)
// and it is running before main() starts: opfs.js holds the start back until it is ready.
//
// Caching: reads and writes of up to SMALL bytes go through a copy of one stretch of the file
// (the window), kept per open file, so a run of small calls costs one crossing per window. The
// window is as big as the file, from WINDOW_MIN up to WINDOW_MAX: a file that fits is held
// whole, and small calls anywhere in it (random records) never cross.
// Writes stay in the window (dirty) until it moves, fsync, close or exit. To keep quota errors
// where they belong, a cached write that grows the file first grows it in OPFS (ahead of need,
// see reserve): a full quota fails that write with ENOSPC, and writing the window back later
// never needs more space. The OPFS file is cut back to its real size at fsync and close.
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <emscripten/threading.h>

#include "../platform.h"

enum opfs_call {
  LSTAT = 1, FSTAT, REALPATH, OPEN, CLOSE, PREAD, PWRITE, TRUNCATE, FLUSH,
  MKDIR, RMDIR, UNLINK, RENAME, LIST, CLOSE_ALL,
};

typedef struct opfs_request {
  _Atomic uint32_t done;      // the word the caller waits on: 1 once answered
  uint32_t call;              // enum opfs_call
  struct opfs_request *next;  // in the queue
  int32_t fd;                 // in; LSTAT out: the descriptor open on that path, or -1
  const char *path, *path2;
  void *buffer;
  uint32_t length;
  double offset;              // in; OPEN out: the file's size
  double result;              // >= 0, or -errno
} opfs_request;
_Static_assert(offsetof(opfs_request, offset) == 32 && offsetof(opfs_request, result) == 40 &&
                   sizeof(opfs_request) == 48,
               "opfs_worker.js reads this layout");

#define FILES_MAX 4096                 // the worker's descriptors are below this
#define DIR_BASE FILES_MAX             // held directories (see below) from here on
#define WINDOW_MIN ((uint32_t)64 << 10)
#define WINDOW_MAX ((uint32_t)1 << 20)
#define SMALL (WINDOW_MIN / 4)
#define RESERVE_STEP ((uint64_t)1 << 20)
#define EXACT_LIMIT ((uint64_t)1 << 53)  // offsets travel as doubles
#define PATH_BYTES 4096                  // an OPFS path with its terminating zero

typedef struct opfs_file {
  pthread_mutex_t lock;  // the window and sizes; a leaf below the file system's node locks
  uint32_t opens;        // opens that returned this descriptor and are not closed yet
  uint64_t size;         // the file's size as the program sees it (cached writes included)
  uint64_t stored;       // its size in OPFS: >= size while writes are cached (reserved space)
  uint8_t *window;       // `capacity` bytes, or NULL before the first small call
  uint32_t capacity;
  uint64_t base;         // file offset of window[0]
  uint32_t valid;        // window[0, valid) mirrors the file
  uint32_t dirty_from, dirty_to;  // window[dirty_from, dirty_to) is not in OPFS yet
} opfs_file;

static _Atomic(opfs_request *) queue;  // newest first; the worker takes it whole
static _Atomic bool connected;         // the I/O worker has the queue
static opfs_file *files[FILES_MAX];   // by descriptor; set and cleared under files_lock
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

extern int _wasmscale_opfs_connect(void *queue);  // opfs.js: 1 if the I/O worker is running

static double send(opfs_request *request) {
  if (!atomic_load(&connected)) return -ENODEV;
  atomic_store(&request->done, 0);
  opfs_request *head = atomic_load(&queue);
  do {
    request->next = head;
  } while (!atomic_compare_exchange_weak(&queue, &head, request));
  emscripten_futex_wake((volatile void *)&queue, 1);
  while (atomic_load(&request->done) == 0) emscripten_futex_wait((volatile void *)&request->done, 0, INFINITY);
  return request->result;
}

static int call_path(enum opfs_call call, const char *path, const char *path2) {
  opfs_request request = {.call = call, .path = path, .path2 = path2, .fd = -1};
  return (int)send(&request);
}

static int64_t call_data(enum opfs_call call, int fd, void *buffer, size_t length, uint64_t offset) {
  if (offset >= EXACT_LIMIT) return -EFBIG;
  if (length > (1u << 30)) length = 1u << 30;
  opfs_request request = {.call = call, .fd = fd, .buffer = buffer, .length = (uint32_t)length, .offset = (double)offset};
  return (int64_t)send(&request);
}

// ----- the window -------------------------------------------------------------------------------
// Writes the window's dirty bytes to OPFS (the space is already reserved).
static int write_back(int fd, opfs_file *file) {
  while (file->dirty_from < file->dirty_to) {
    int64_t put = call_data(PWRITE, fd, file->window + file->dirty_from, file->dirty_to - file->dirty_from,
                            file->base + file->dirty_from);
    if (put <= 0) return put < 0 ? (int)put : -EIO;  // stays dirty: a later flush tries again
    file->dirty_from += (uint32_t)put;
  }
  file->dirty_from = file->dirty_to = 0;
  return 0;
}

// Written back, and the OPFS file cut to the program's size (what fsync and close leave).
static int settle(int fd, opfs_file *file) {
  int error = write_back(fd, file);
  if (error == 0 && file->stored > file->size) {
    error = (int)call_data(TRUNCATE, fd, NULL, 0, file->size);
    if (error == 0) file->stored = file->size;
  }
  return error;
}

// A window big enough for twice the file (so that a growing file is rarely read again; within
// the limits), placed at 0 when the file fits, else at `offset`'s page. Written back first.
static int place_window(int fd, opfs_file *file, uint64_t offset) {
  int error = write_back(fd, file);
  if (error != 0) return error;
  uint64_t wanted = (2 * file->size + SMALL + WINDOW_MIN - 1) / WINDOW_MIN * WINDOW_MIN;
  uint32_t capacity = wanted > WINDOW_MAX ? WINDOW_MAX : (uint32_t)wanted;
  if (capacity > file->capacity) {
    uint8_t *grown = realloc(file->window, capacity);
    if (grown == NULL && file->window == NULL) return -ENOMEM;
    if (grown != NULL) {  // else the smaller window still works
      file->window = grown;
      file->capacity = capacity;
    }
  }
  file->base = file->size + SMALL <= file->capacity ? 0 : offset & ~(uint64_t)4095;
  file->valid = 0;
  return 0;
}

// Moves the window to the stretch holding `offset` (which is below the file's size).
static int load_window(int fd, opfs_file *file, uint64_t offset) {
  int error = place_window(fd, file, offset);
  if (error != 0) return error;
  uint64_t want = file->size - file->base < file->capacity ? file->size - file->base : file->capacity;
  while (file->valid < want) {
    int64_t got = call_data(PREAD, fd, file->window + file->valid, want - file->valid, file->base + file->valid);
    if (got < 0) return (int)got;
    if (got == 0) break;
    file->valid += (uint32_t)got;
  }
  return 0;
}

static bool window_holds(const opfs_file *file, uint64_t offset, size_t length) {
  return file->window != NULL && offset >= file->base && offset + length <= file->base + file->valid;
}

// The space up to `end` exists in OPFS. A file that grows again is grown ahead (by its size,
// up to RESERVE_STEP), so a run of appends asks rarely; a file written once is grown exactly
// and needs no cutting back.
static int reserve(int fd, opfs_file *file, uint64_t end) {
  if (end <= file->stored) return 0;
  uint64_t ahead = file->stored < RESERVE_STEP ? file->stored : RESERVE_STEP;
  uint64_t grown = end + ahead;
  int error = (int)call_data(TRUNCATE, fd, NULL, 0, grown);
  if (error == -ENOSPC) error = (int)call_data(TRUNCATE, fd, NULL, 0, grown = end);  // room for this write alone?
  if (error == 0) file->stored = grown;
  return error;
}

// A small write into the window, or 0 when it cannot go there (then it goes straight to OPFS).
static int64_t cached_write(int fd, opfs_file *file, const void *buffer, size_t length, uint64_t offset) {
  bool fits = file->window != NULL && offset >= file->base && offset <= file->base + file->valid &&
              offset + length <= file->base + file->capacity;
  if (!fits && offset <= file->size) {
    int error = offset < file->size ? load_window(fd, file, offset) : write_back(fd, file);
    if (error != 0) return error;
    if (offset == file->size) {  // appending: nothing to read if the window starts here
      error = place_window(fd, file, offset);
      if (error != 0) return error;
      if (file->base != 0) file->base = offset;
      else if (file->size > 0) error = load_window(fd, file, offset);  // the file fits: hold it whole
      if (error != 0) return error;
    }
    fits = offset + length <= file->base + file->capacity;
  }
  if (!fits) return 0;
  int error = reserve(fd, file, offset + length);
  if (error != 0) return error;
  uint32_t from = (uint32_t)(offset - file->base), to = from + (uint32_t)length;
  memcpy(file->window + from, buffer, length);
  if (file->dirty_from == file->dirty_to) {
    file->dirty_from = from;
    file->dirty_to = to;
  } else {
    if (from < file->dirty_from) file->dirty_from = from;
    if (to > file->dirty_to) file->dirty_to = to;
  }
  if (to > file->valid) file->valid = to;
  if (offset + length > file->size) file->size = offset + length;
  return (int64_t)length;
}

// ----- held directories ------------------------------------------------------------------------
// OPFS names files by path; the backend names them beneath held directories (platform.h). A
// held directory here is the path it was opened on: DIR_BASE plus its index in held_paths,
// above every file descriptor, so that close and fstat tell the two apart. A rename made
// through this client moves the held paths below it along, as a host descriptor would follow.
static char **held_paths;
static uint32_t held_capacity;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

// Holds `path` (taken over): a held directory, or -ENOMEM.
static int hold(char *path) {
  if (path == NULL) return -ENOMEM;
  pthread_mutex_lock(&held_lock);
  uint32_t slot = 0;
  while (slot < held_capacity && held_paths[slot] != NULL) slot++;
  if (slot == held_capacity) {
    uint32_t capacity = held_capacity != 0 ? held_capacity * 2 : 16;
    char **grown = realloc(held_paths, capacity * sizeof *grown);
    if (grown != NULL) {
      memset(grown + held_capacity, 0, (capacity - held_capacity) * sizeof *grown);
      held_paths = grown;
      held_capacity = capacity;
    }
  }
  int dir = slot < held_capacity ? DIR_BASE + (int)slot : -ENOMEM;
  if (dir >= 0) held_paths[slot] = path;
  pthread_mutex_unlock(&held_lock);
  if (dir < 0) free(path);
  return dir;
}

static bool is_held(int dir) { return dir >= DIR_BASE && (uint32_t)(dir - DIR_BASE) < held_capacity; }

// The OPFS path of `name` beneath held directory `dir` (of `dir` itself when name is NULL), in
// `out`; -EBADF for a directory not held, -ENAMETOOLONG.
static int path_of(int dir, const char *name, char out[PATH_BYTES]) {
  pthread_mutex_lock(&held_lock);
  const char *base = is_held(dir) ? held_paths[dir - DIR_BASE] : NULL;
  int written = base == NULL  ? -1
                : name == NULL ? snprintf(out, PATH_BYTES, "%s", base)
                               : snprintf(out, PATH_BYTES, "%s/%s", base, name);
  pthread_mutex_unlock(&held_lock);
  return base == NULL ? -EBADF : written >= PATH_BYTES ? -ENAMETOOLONG : 0;
}

// After a rename of `from` to `to`: held directories at or below `from` are now below `to`.
static void move_held(const char *from, const char *to) {
  size_t from_length = strlen(from);
  pthread_mutex_lock(&held_lock);
  for (uint32_t i = 0; i < held_capacity; i++) {
    char *path = held_paths[i];
    bool below = path != NULL && strncmp(path, from, from_length) == 0 &&
                 (path[from_length] == '\0' || path[from_length] == '/');
    if (!below) continue;
    char *moved = malloc(strlen(to) + strlen(path + from_length) + 1);
    if (moved == NULL) continue;  // keeps the old path: later calls through it fail with ENOENT
    strcpy(moved, to);
    strcat(moved, path + from_length);
    free(path);
    held_paths[i] = moved;
  }
  pthread_mutex_unlock(&held_lock);
}

// ----- the calls ----------------------------------------------------------------------------------
#ifdef __EMSCRIPTEN_PTHREADS__  // without shared memory there is no worker to talk to
// At exit every open file's cached writes reach OPFS and the worker lets go of its handles,
// so the next program in this page (or a reload) finds the files whole and unlocked.
static void close_at_exit(void) {
  if (!atomic_load(&connected)) return;
  fflush(NULL);  // stdio's buffers of OPFS files first
  pthread_mutex_lock(&files_lock);
  for (int fd = 0; fd < FILES_MAX; fd++) {
    if (files[fd] == NULL) continue;
    pthread_mutex_lock(&files[fd]->lock);
    settle(fd, files[fd]);
    pthread_mutex_unlock(&files[fd]->lock);
  }
  call_path(CLOSE_ALL, NULL, NULL);
  atomic_store(&connected, false);
  pthread_mutex_unlock(&files_lock);
}

// Runs before main() on the main thread, after opfs.js has started the worker (or found no OPFS).
__attribute__((constructor)) static void connect_worker(void) {
  if (_wasmscale_opfs_connect((void *)&queue)) {
    atomic_store(&connected, true);
    atexit(close_at_exit);
  }
}
#endif

static int lstat_path(const char *path, ws_host_stat *out) {
  opfs_request request = {.call = LSTAT, .path = path, .buffer = out, .fd = -1};
  int error = (int)send(&request);
  if (error == 0 && request.fd >= 0 && request.fd < FILES_MAX) {  // open here: the cache knows better
    pthread_mutex_lock(&files_lock);
    opfs_file *file = files[request.fd];
    if (file != NULL) {
      pthread_mutex_lock(&file->lock);
      out->size = file->size;
      pthread_mutex_unlock(&file->lock);
    }
    pthread_mutex_unlock(&files_lock);
  }
  if (error == 0) out->blocks = (out->size + 511) / 512;
  return error;
}

int ws_prim_opfs_fstat(int fd, ws_host_stat *out) {
  if (fd >= DIR_BASE) {  // a held directory: what its path names now
    char path[PATH_BYTES];
    int error = path_of(fd, NULL, path);
    return error != 0 ? error : lstat_path(path, out);
  }
  opfs_request request = {.call = FSTAT, .fd = fd, .buffer = out};
  int error = (int)send(&request);
  opfs_file *file = error == 0 && fd >= 0 && fd < FILES_MAX ? files[fd] : NULL;  // fd is the caller's: stays
  if (file != NULL) {
    pthread_mutex_lock(&file->lock);
    out->size = file->size;
    pthread_mutex_unlock(&file->lock);
  }
  if (error == 0) out->blocks = (out->size + 511) / 512;
  return error;
}

static int realpath_path(const char *path, char *out, size_t size) {
  opfs_request request = {.call = REALPATH, .path = path, .buffer = out, .length = (uint32_t)size};
  return (int)send(&request);
}

// The worker's side of a close (its descriptor count; the handle at the last).
static void close_in_worker(int fd) {
  opfs_request request = {.call = CLOSE, .fd = fd};
  send(&request);
}

static int open_path(const char *path, int how) {
  opfs_request request = {.call = OPEN, .path = path, .length = (uint32_t)how};
  pthread_mutex_lock(&files_lock);  // an open and a close of one descriptor never cross
  int fd = (int)send(&request);
  if (fd >= FILES_MAX) {
    close_in_worker(fd);
    fd = -ENFILE;
  }
  if (fd >= 0 && files[fd] != NULL) {
    files[fd]->opens++;
  } else if (fd >= 0) {
    opfs_file *file = calloc(1, sizeof *file);
    if (file == NULL) {
      close_in_worker(fd);
      fd = -ENOMEM;
    } else {
      pthread_mutex_init(&file->lock, NULL);
      file->opens = 1;
      file->size = file->stored = (uint64_t)request.offset;
      files[fd] = file;
    }
  }
  pthread_mutex_unlock(&files_lock);
  if (fd == -EBUSY) {
    char message[4096 + 160];
    snprintf(message, sizeof message,
             "wasmscale: OPFS file %s is open in another tab or worker; it cannot be opened here until "
             "that one closes it (EBUSY)\n", path);
    ws_prim_write_error(message);
  }
  return fd;
}

static int close_file(int fd) {
  if (fd < 0 || fd >= FILES_MAX) return -EBADF;
  pthread_mutex_lock(&files_lock);
  opfs_file *file = files[fd];
  int error = file == NULL ? -EBADF : 0;
  if (file != NULL && --file->opens == 0) {
    pthread_mutex_lock(&file->lock);
    error = settle(fd, file);
    pthread_mutex_unlock(&file->lock);
    files[fd] = NULL;
    pthread_mutex_destroy(&file->lock);
    free(file->window);
    free(file);
  }
  if (file != NULL) close_in_worker(fd);
  pthread_mutex_unlock(&files_lock);
  return error;
}

int64_t ws_prim_opfs_pread(int fd, void *buffer, size_t length, uint64_t offset) {
  opfs_file *file = fd >= 0 && fd < FILES_MAX ? files[fd] : NULL;
  if (file == NULL) return -EBADF;
  pthread_mutex_lock(&file->lock);
  int64_t result = 0;
  if (offset < file->size) {
    if (length > file->size - offset) length = (size_t)(file->size - offset);
    if (length <= SMALL) {
      if (!window_holds(file, offset, length)) result = load_window(fd, file, offset);
      if (result == 0 && window_holds(file, offset, length)) {
        memcpy(buffer, file->window + (offset - file->base), length);
        result = (int64_t)length;
      }
    } else if ((result = write_back(fd, file)) == 0) {
      result = call_data(PREAD, fd, buffer, length, offset);
    }
  }
  pthread_mutex_unlock(&file->lock);
  return result;
}

int64_t ws_prim_opfs_pwrite(int fd, const void *buffer, size_t length, uint64_t offset) {
  opfs_file *file = fd >= 0 && fd < FILES_MAX ? files[fd] : NULL;
  if (file == NULL) return -EBADF;
  if (length == 0) return 0;
  pthread_mutex_lock(&file->lock);
  int64_t result = length <= SMALL ? cached_write(fd, file, buffer, length, offset) : 0;
  if (result == 0 && (result = write_back(fd, file)) == 0) {
    result = call_data(PWRITE, fd, (void *)buffer, length, offset);
    if (result > 0) {
      uint64_t end = offset + (uint64_t)result;
      if (end > file->size) file->size = end;
      if (end > file->stored) file->stored = end;
      if (file->window != NULL && offset < file->base + file->valid && end > file->base) file->valid = 0;
    }
  }
  pthread_mutex_unlock(&file->lock);
  return result;
}

int ws_prim_opfs_ftruncate(int fd, uint64_t size) {
  opfs_file *file = fd >= 0 && fd < FILES_MAX ? files[fd] : NULL;
  if (file == NULL) return -EBADF;
  pthread_mutex_lock(&file->lock);
  int error = write_back(fd, file);
  if (error == 0) error = (int)call_data(TRUNCATE, fd, NULL, 0, size);
  if (error == 0) {
    file->size = file->stored = size;
    if (file->window != NULL) file->valid = size <= file->base ? 0 : (uint32_t)(size - file->base < file->valid ? size - file->base : file->valid);
  }
  pthread_mutex_unlock(&file->lock);
  return error;
}

int ws_prim_opfs_fsync(int fd) {
  opfs_file *file = fd >= 0 && fd < FILES_MAX ? files[fd] : NULL;
  if (file == NULL) return -EBADF;
  pthread_mutex_lock(&file->lock);
  int error = settle(fd, file);
  if (error == 0) error = (int)call_data(FLUSH, fd, NULL, 0, 0);
  pthread_mutex_unlock(&file->lock);
  return error;
}

int ws_prim_opfs_open_root(const char *path) {
  char resolved[PATH_BYTES];
  int error = realpath_path(path, resolved, sizeof resolved);
  return error != 0 ? error : hold(strdup(resolved));
}

int ws_prim_opfs_open_dir(int dir, const char *name) {
  char path[PATH_BYTES];
  ws_host_stat info;
  int error = path_of(dir, name, path);
  if (error == 0) error = lstat_path(path, &info);
  if (error == 0 && (info.mode & 0170000) != 0040000) error = -ENOTDIR;
  return error != 0 ? error : hold(strdup(path));
}

int ws_prim_opfs_lstat(int dir, const char *name, ws_host_stat *out) {
  char path[PATH_BYTES];
  int error = path_of(dir, name, path);
  return error != 0 ? error : lstat_path(path, out);
}

int ws_prim_opfs_open(int dir, const char *name, int how, uint32_t mode) {
  (void)mode;  // OPFS keeps no modes
  char path[PATH_BYTES];
  int error = path_of(dir, name, path);
  return error != 0 ? error : open_path(path, how);
}

int ws_prim_opfs_close(int fd) {
  if (fd < DIR_BASE) return close_file(fd);
  pthread_mutex_lock(&held_lock);
  char *path = is_held(fd) ? held_paths[fd - DIR_BASE] : NULL;
  if (path != NULL) held_paths[fd - DIR_BASE] = NULL;
  pthread_mutex_unlock(&held_lock);
  free(path);
  return path != NULL ? 0 : -EBADF;
}

int ws_prim_opfs_chmod(int fd, uint32_t mode) {
  (void)fd, (void)mode;
  return -EOPNOTSUPP;
}

int ws_prim_opfs_utimes(int fd, const int64_t seconds[2], const int32_t nanoseconds[2]) {
  (void)fd, (void)seconds, (void)nanoseconds;
  return -EOPNOTSUPP;
}

static int call_at(enum opfs_call call, int dir, const char *name) {
  char path[PATH_BYTES];
  int error = path_of(dir, name, path);
  return error != 0 ? error : call_path(call, path, NULL);
}

int ws_prim_opfs_mkdir(int dir, const char *name, uint32_t mode) {
  (void)mode;
  return call_at(MKDIR, dir, name);
}

int ws_prim_opfs_rmdir(int dir, const char *name) { return call_at(RMDIR, dir, name); }
int ws_prim_opfs_unlink(int dir, const char *name) { return call_at(UNLINK, dir, name); }

int ws_prim_opfs_rename(int from_dir, const char *from, int to_dir, const char *to) {
  char from_path[PATH_BYTES], to_path[PATH_BYTES];
  int error = path_of(from_dir, from, from_path);
  if (error == 0) error = path_of(to_dir, to, to_path);
  if (error == 0) error = call_path(RENAME, from_path, to_path);
  if (error == 0) move_held(from_path, to_path);
  return error;
}

int ws_prim_opfs_link(int from_dir, const char *from, int to_dir, const char *to) {
  (void)from_dir, (void)from, (void)to_dir, (void)to;
  return -EPERM;  // OPFS has no hard links (link(2)'s answer on such file systems)
}

int ws_prim_opfs_symlink(const char *target, int dir, const char *name) {
  (void)target, (void)dir, (void)name;
  return -EPERM;
}

int ws_prim_opfs_readlink(int dir, const char *name, char *buffer, size_t size) {
  (void)dir, (void)name, (void)buffer, (void)size;
  return -EINVAL;  // nothing in OPFS is a symlink
}

int64_t ws_prim_opfs_list(int dir, void *buffer, size_t size) {
  char path[PATH_BYTES];
  int error = path_of(dir, NULL, path);
  if (error != 0) return error;
  opfs_request request = {.call = LIST, .path = path, .buffer = buffer, .length = (uint32_t)size};
  return (int64_t)send(&request);
}
