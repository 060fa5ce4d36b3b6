// Open file descriptions and the descriptor table.
//
// Looking a descriptor up (every read, write and lseek) only reads the table: it loads the
// slot, takes a reference on the description unless its count is already zero, and checks
// the slot still holds it. Calls that use the position take it in the same atomic operation
// (it is a bit of the reference word), so a read costs two: one to take, one to give back. That is safe because descriptions are never given back to malloc:
// a closed one goes to a free list and is reused as a description, so a lookup that raced
// with close touches a counter, never freed memory. Threads using different descriptors so
// write no shared word (slots sit next to each other; descriptions have cache lines of their
// own). Installing and closing take table_lock, which keeps "lowest free descriptor" and
// dup2's replace atomic.
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "internal.h"

#define SLOT_CLOEXEC ((uintptr_t)WS_FD_CLOEXEC)
#define CACHE_LINE 64

static _Atomic uintptr_t slots[WS_FD_MAX];  // a description's address | SLOT_CLOEXEC
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static ws_file *spare;  // closed descriptions, linked through `node`

static ws_file *file_alloc(void) {
  pthread_mutex_lock(&spare_lock);
  ws_file *file = spare;
  if (file != NULL) spare = (ws_file *)file->node;
  pthread_mutex_unlock(&spare_lock);
  if (file == NULL) {
    _Static_assert(sizeof(ws_file) <= CACHE_LINE, "a description fits a cache line");
    file = aligned_alloc(CACHE_LINE, CACHE_LINE);
    if (file == NULL) return NULL;
    atomic_init(&file->refs, 0);
  }
  return file;
}

ws_file *_ws_file_new(ws_node *node, int flags) {
  ws_file *file = file_alloc();
  if (file == NULL) return NULL;
  atomic_init(&file->flags, flags);
  file->node = node;
  file->position = 0;
  file->lock_owner = (uint64_t)(uintptr_t)file;
  if (node->mount != NULL) atomic_fetch_add(&node->mount->open_files, 1);
  if (node->pipe != NULL) _ws_pipe_open_end(node->pipe, flags & O_ACCMODE);
  atomic_store_explicit(&file->refs, 1, memory_order_release);  // now lookups may take it
  return file;
}

// The last reference is gone (so is the position: its holder has a reference).
static void file_destroy(ws_file *file) {
  ws_node *node = file->node;
  _ws_locks_release(node, file->lock_owner);
  if (node->pipe != NULL) _ws_pipe_close_end(node->pipe, atomic_load(&file->flags) & O_ACCMODE);
  if (node->mount != NULL) atomic_fetch_sub(&node->mount->open_files, 1);
  _ws_node_unref(node);
  pthread_mutex_lock(&spare_lock);
  file->node = (ws_node *)spare;
  spare = file;
  pthread_mutex_unlock(&spare_lock);
}

void _ws_file_unref(ws_file *file) {
  if (file == NULL) return;
  uint32_t old = atomic_fetch_sub_explicit(&file->refs, 1, memory_order_acq_rel);
  if ((old & WS_FILE_REFS_MASK) == 1) file_destroy(file);
}

void _ws_file_hold_position(ws_file *file) {
  uint32_t refs = atomic_load_explicit(&file->refs, memory_order_relaxed);
  if ((refs & WS_FILE_POSITION_HELD) == 0 &&
      atomic_compare_exchange_weak_explicit(&file->refs, &refs, refs + WS_FILE_POSITION_HELD, memory_order_acquire,
                                            memory_order_relaxed)) {
    return;
  }
  ws_lockword_acquire_slow(&file->refs, WS_FILE_POSITION_HELD, WS_FILE_POSITION_HELD);
}

// Gives back the position and `refs` references in one operation.
static void put(ws_file *file, uint32_t refs) {
  uint32_t old = atomic_fetch_sub_explicit(&file->refs, WS_FILE_POSITION_HELD + refs, memory_order_acq_rel);
  if (old & WS_FILE_POSITION_WAITING) ws_lockword_wake(&file->refs);
  if (refs != 0 && (old & WS_FILE_REFS_MASK) == refs) file_destroy(file);
}

void _ws_file_release_position(ws_file *file) { put(file, 0); }
void _ws_file_put_position(ws_file *file) { put(file, 1); }

// A reference unless the count is zero (the description is closed, or being reused); with
// `position`, the position too when it is free (*got_position says whether it was taken).
static bool try_ref(ws_file *file, bool position, bool *got_position) {
  uint32_t refs = atomic_load_explicit(&file->refs, memory_order_relaxed), taken;
  do {
    if ((refs & WS_FILE_REFS_MASK) == 0) return false;
    *got_position = position && (refs & WS_FILE_POSITION_HELD) == 0;
    taken = refs + 1 + (*got_position ? WS_FILE_POSITION_HELD : 0);
  } while (!atomic_compare_exchange_weak_explicit(&file->refs, &refs, taken, memory_order_acquire,
                                                  memory_order_relaxed));
  return true;
}

static ws_file *lookup(int fd, bool position) {
  _ws_fs_init();  // descriptors 0-2 exist before any file is opened
  if (fd < 0 || fd >= WS_FD_MAX) return NULL;
  for (;;) {
    uintptr_t value = atomic_load_explicit(&slots[fd], memory_order_acquire);
    if (value == 0) return NULL;
    ws_file *file = (ws_file *)(value & ~SLOT_CLOEXEC);
    bool got_position;
    if (try_ref(file, position, &got_position)) {
      if ((atomic_load_explicit(&slots[fd], memory_order_acquire) & ~SLOT_CLOEXEC) == (uintptr_t)file) {
        if (position && !got_position) _ws_file_hold_position(file);  // another call has it: wait
        return file;
      }
      if (got_position) {  // closed (and perhaps reused) meanwhile: look again
        _ws_file_put_position(file);
      } else {
        _ws_file_unref(file);
      }
    }
  }
}

ws_file *_ws_fd_get(int fd) { return lookup(fd, false); }
ws_file *_ws_fd_get_position(int fd) { return lookup(fd, true); }

int _ws_fd_install(ws_file *file, int minimum, int fd_flags) {
  if (minimum < 0) return -EINVAL;
  pthread_mutex_lock(&table_lock);
  for (int fd = minimum; fd < WS_FD_MAX; fd++) {
    if (atomic_load_explicit(&slots[fd], memory_order_relaxed) == 0) {
      atomic_store_explicit(&slots[fd], (uintptr_t)file | (uintptr_t)(fd_flags & WS_FD_CLOEXEC), memory_order_release);
      pthread_mutex_unlock(&table_lock);
      return fd;
    }
  }
  pthread_mutex_unlock(&table_lock);
  return -EMFILE;
}

int _ws_fd_install_at(ws_file *file, int fd, int fd_flags) {
  if (fd < 0 || fd >= WS_FD_MAX) return -EBADF;
  pthread_mutex_lock(&table_lock);
  uintptr_t old = atomic_exchange_explicit(&slots[fd], (uintptr_t)file | (uintptr_t)(fd_flags & WS_FD_CLOEXEC),
                                          memory_order_acq_rel);
  pthread_mutex_unlock(&table_lock);
  _ws_file_unref((ws_file *)(old & ~SLOT_CLOEXEC));
  return fd;
}

int _ws_fd_close(int fd) {
  if (fd < 0 || fd >= WS_FD_MAX) return -EBADF;
  pthread_mutex_lock(&table_lock);
  uintptr_t old = atomic_exchange_explicit(&slots[fd], 0, memory_order_acq_rel);
  pthread_mutex_unlock(&table_lock);
  if (old == 0) return -EBADF;
  _ws_file_unref((ws_file *)(old & ~SLOT_CLOEXEC));
  return 0;
}

int _ws_fd_get_flags(int fd) {
  if (fd < 0 || fd >= WS_FD_MAX) return -EBADF;
  uintptr_t value = atomic_load_explicit(&slots[fd], memory_order_acquire);
  return value == 0 ? -EBADF : (int)(value & SLOT_CLOEXEC);
}

int _ws_fd_set_flags(int fd, int fd_flags) {
  if (fd < 0 || fd >= WS_FD_MAX) return -EBADF;
  pthread_mutex_lock(&table_lock);
  int result = 0;
  uintptr_t value = atomic_load_explicit(&slots[fd], memory_order_acquire);
  if (value == 0) {
    result = -EBADF;
  } else {
    atomic_store_explicit(&slots[fd], (value & ~SLOT_CLOEXEC) | (uintptr_t)(fd_flags & WS_FD_CLOEXEC),
                          memory_order_release);
  }
  pthread_mutex_unlock(&table_lock);
  return result;
}
