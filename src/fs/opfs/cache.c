// The OPFS backend's open files: each reached through the I/O worker, with a cache of small
// calls, since every crossing to the worker costs a round trip between threads.
//
// Reads and writes of up to SMALL bytes go through a copy of one stretch of the file (the
// window), kept per open file, so a run of small calls costs one crossing per window. The
// window is as big as the file, from WINDOW_MIN up to WINDOW_MAX: a file that fits is held
// whole, and small calls anywhere in it (random records) never cross.
// Writes stay in the window (dirty) until it moves, fsync, close or exit. To keep quota errors
// where they belong, a cached write that grows the file first grows it in OPFS (ahead of need,
// see reserve): a full quota fails that write with ENOSPC, and writing the window back later
// never needs more space. The OPFS file is cut back to its real size at fsync and close.
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opfs.h"

#define WINDOW_MIN ((uint32_t)64 << 10)
#define WINDOW_MAX ((uint32_t)1 << 20)
#define SMALL (WINDOW_MIN / 4)
#define RESERVE_STEP ((uint64_t)1 << 20)
#define EXACT_LIMIT ((uint64_t)1 << 53)  // offsets travel as doubles

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

static opfs_file *files[WS_OPFS_FILES_MAX];  // by descriptor; set and cleared under files_lock
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

// The open file `fd`, which the caller holds open (so it stays), or NULL.
static opfs_file *file_of(int fd) { return fd >= 0 && fd < WS_OPFS_FILES_MAX ? files[fd] : NULL; }

static int64_t call_data(enum ws_opfs_call call, int fd, void *buffer, size_t length, uint64_t offset) {
  if (offset >= EXACT_LIMIT) return -EFBIG;
  if (length > (1u << 30)) length = 1u << 30;
  ws_opfs_request request = {.call = call, .fd = fd, .buffer = buffer, .length = (uint32_t)length,
                             .offset = (double)offset};
  return (int64_t)ws_prim_opfs_send(&request);
}

// ----- the window -------------------------------------------------------------------------------
// Writes the window's dirty bytes to OPFS (the space is already reserved).
static int write_back(int fd, opfs_file *file) {
  while (file->dirty_from < file->dirty_to) {
    int64_t put = call_data(WS_OPFS_PWRITE, fd, file->window + file->dirty_from, file->dirty_to - file->dirty_from,
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
    error = (int)call_data(WS_OPFS_TRUNCATE, fd, NULL, 0, file->size);
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
    int64_t got = call_data(WS_OPFS_PREAD, fd, file->window + file->valid, want - file->valid, file->base + file->valid);
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
  int error = (int)call_data(WS_OPFS_TRUNCATE, fd, NULL, 0, grown);
  if (error == -ENOSPC) error = (int)call_data(WS_OPFS_TRUNCATE, fd, NULL, 0, grown = end);  // room for this write alone?
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

// ----- open and close -----------------------------------------------------------------------------
// At exit every open file's cached writes reach OPFS and the worker lets go of its handles,
// so the next program in this page (or a reload) finds the files whole and unlocked.
static void close_at_exit(void) {
  fflush(NULL);  // stdio's buffers of OPFS files first
  pthread_mutex_lock(&files_lock);
  for (int fd = 0; fd < WS_OPFS_FILES_MAX; fd++) {
    if (files[fd] == NULL) continue;
    pthread_mutex_lock(&files[fd]->lock);
    settle(fd, files[fd]);
    pthread_mutex_unlock(&files[fd]->lock);
  }
  ws_prim_opfs_disconnect();
  pthread_mutex_unlock(&files_lock);
}

// Registered before main(), so that it runs after every exit handler the program registers.
__attribute__((constructor)) static void connect_worker(void) {
  if (ws_prim_opfs_connect()) atexit(close_at_exit);
}

// The worker's side of a close (its descriptor count; the handle at the last).
static void close_in_worker(int fd) {
  ws_opfs_request request = {.call = WS_OPFS_CLOSE, .fd = fd};
  ws_prim_opfs_send(&request);
}

int _ws_opfs_open_file(const char *path, int how) {
  ws_opfs_request request = {.call = WS_OPFS_OPEN, .path = path, .length = (uint32_t)how};
  pthread_mutex_lock(&files_lock);  // an open and a close of one descriptor never cross
  int fd = (int)ws_prim_opfs_send(&request);
  if (fd >= WS_OPFS_FILES_MAX) {
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

int _ws_opfs_close_file(int fd) {
  if (fd < 0 || fd >= WS_OPFS_FILES_MAX) return -EBADF;
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

// ----- calls on open files ------------------------------------------------------------------------
// `out` (the worker's answer) with the size the program sees of `file`, open here (NULL: as the
// worker said), and the blocks that size takes.
static void use_cached_size(opfs_file *file, ws_host_stat *out) {
  if (file != NULL) {
    pthread_mutex_lock(&file->lock);
    out->size = file->size;
    pthread_mutex_unlock(&file->lock);
  }
  out->blocks = (out->size + 511) / 512;
}

void _ws_opfs_cached_size(int fd, ws_host_stat *out) {
  if (fd < 0 || fd >= WS_OPFS_FILES_MAX) {
    use_cached_size(NULL, out);
    return;
  }
  pthread_mutex_lock(&files_lock);  // the file may be another thread's, closing
  use_cached_size(files[fd], out);
  pthread_mutex_unlock(&files_lock);
}

int _ws_opfs_fstat_file(int fd, ws_host_stat *out) {
  opfs_file *file = file_of(fd);
  if (file == NULL) return -EBADF;
  ws_opfs_request request = {.call = WS_OPFS_FSTAT, .fd = fd, .buffer = out};
  int error = (int)ws_prim_opfs_send(&request);
  if (error == 0) use_cached_size(file, out);
  return error;
}

int64_t _ws_opfs_pread(int fd, void *buffer, size_t length, uint64_t offset) {
  opfs_file *file = file_of(fd);
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
      result = call_data(WS_OPFS_PREAD, fd, buffer, length, offset);
    }
  }
  pthread_mutex_unlock(&file->lock);
  return result;
}

int64_t _ws_opfs_pwrite(int fd, const void *buffer, size_t length, uint64_t offset) {
  opfs_file *file = file_of(fd);
  if (file == NULL) return -EBADF;
  if (length == 0) return 0;
  pthread_mutex_lock(&file->lock);
  int64_t result = length <= SMALL ? cached_write(fd, file, buffer, length, offset) : 0;
  if (result == 0 && (result = write_back(fd, file)) == 0) {
    result = call_data(WS_OPFS_PWRITE, fd, (void *)buffer, length, offset);
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

int _ws_opfs_ftruncate(int fd, uint64_t size) {
  opfs_file *file = file_of(fd);
  if (file == NULL) return -EBADF;
  pthread_mutex_lock(&file->lock);
  int error = write_back(fd, file);
  if (error == 0) error = (int)call_data(WS_OPFS_TRUNCATE, fd, NULL, 0, size);
  if (error == 0) {
    file->size = file->stored = size;
    if (file->window != NULL) file->valid = size <= file->base ? 0 : (uint32_t)(size - file->base < file->valid ? size - file->base : file->valid);
  }
  pthread_mutex_unlock(&file->lock);
  return error;
}

int _ws_opfs_fsync(int fd) {
  opfs_file *file = file_of(fd);
  if (file == NULL) return -EBADF;
  pthread_mutex_lock(&file->lock);
  int error = settle(fd, file);
  if (error == 0) error = (int)call_data(WS_OPFS_FLUSH, fd, NULL, 0, 0);
  pthread_mutex_unlock(&file->lock);
  return error;
}
