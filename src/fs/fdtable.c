// Open file descriptions and the descriptor table.
//
// The table is an array of atomic words: a ws_file pointer with two flag bits. Looking a
// descriptor up (every read/write) marks its slot busy for the instant it takes a reference,
// so a close on another thread cannot free the description in between; different descriptors
// never touch the same word. Installing and closing also take table_lock, which keeps "lowest
// free descriptor" and dup2's replace atomic.
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>

#include "internal.h"

#define SLOT_CLOEXEC ((uintptr_t)WS_FD_CLOEXEC)
#define SLOT_BUSY ((uintptr_t)2)
#define SLOT_FLAGS (SLOT_CLOEXEC | SLOT_BUSY)

static _Atomic uintptr_t slots[WS_FD_MAX];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

ws_file *ws_file_new(ws_node *node, int flags) {
  ws_file *file = calloc(1, sizeof *file);
  if (file == NULL) return NULL;
  if (pthread_mutex_init(&file->position_lock, NULL) != 0) {
    free(file);
    return NULL;
  }
  atomic_init(&file->refs, 1);
  atomic_init(&file->flags, flags);
  file->node = node;
  file->lock_owner = (uint64_t)(uintptr_t)file;
  if (node->mount != NULL) atomic_fetch_add(&node->mount->open_files, 1);
  if (node->pipe != NULL) ws_pipe_open_end(node->pipe, flags & O_ACCMODE);
  return file;
}

void ws_file_ref(ws_file *file) { atomic_fetch_add_explicit(&file->refs, 1, memory_order_relaxed); }

void ws_file_unref(ws_file *file) {
  if (file == NULL || atomic_fetch_sub_explicit(&file->refs, 1, memory_order_acq_rel) != 1) return;
  ws_node *node = file->node;
  ws_locks_release(node, file->lock_owner);
  if (node->pipe != NULL) ws_pipe_close_end(node->pipe, atomic_load(&file->flags) & O_ACCMODE);
  if (node->mount != NULL) atomic_fetch_sub(&node->mount->open_files, 1);
  pthread_mutex_destroy(&file->position_lock);
  ws_node_unref(node);
  free(file);
}

// Waits until the slot is not busy and returns its value (0 when free).
static uintptr_t settled(int fd) {
  for (;;) {
    uintptr_t value = atomic_load_explicit(&slots[fd], memory_order_acquire);
    if ((value & SLOT_BUSY) == 0) return value;
    sched_yield();
  }
}

ws_file *ws_fd_get(int fd) {
  ws_fs_init();  // descriptors 0-2 exist before any file is opened
  if (fd < 0 || fd >= WS_FD_MAX) return NULL;
  for (;;) {
    uintptr_t value = settled(fd);
    if (value == 0) return NULL;
    if (atomic_compare_exchange_weak_explicit(&slots[fd], &value, value | SLOT_BUSY, memory_order_acquire,
                                              memory_order_relaxed)) {
      ws_file *file = (ws_file *)(value & ~SLOT_FLAGS);
      ws_file_ref(file);
      atomic_store_explicit(&slots[fd], value, memory_order_release);
      return file;
    }
  }
}

// Swaps the slot's value (table_lock held); returns the old one.
static uintptr_t swap_slot(int fd, uintptr_t value) {
  for (;;) {
    uintptr_t old = settled(fd);
    if (atomic_compare_exchange_weak_explicit(&slots[fd], &old, value, memory_order_acq_rel, memory_order_relaxed)) {
      return old;
    }
  }
}

int ws_fd_install(ws_file *file, int minimum, int fd_flags) {
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

int ws_fd_install_at(ws_file *file, int fd, int fd_flags) {
  if (fd < 0 || fd >= WS_FD_MAX) return -EBADF;
  pthread_mutex_lock(&table_lock);
  uintptr_t old = swap_slot(fd, (uintptr_t)file | (uintptr_t)(fd_flags & WS_FD_CLOEXEC));
  pthread_mutex_unlock(&table_lock);
  ws_file_unref((ws_file *)(old & ~SLOT_FLAGS));
  return fd;
}

int ws_fd_close(int fd) {
  if (fd < 0 || fd >= WS_FD_MAX) return -EBADF;
  pthread_mutex_lock(&table_lock);
  uintptr_t old = settled(fd) == 0 ? 0 : swap_slot(fd, 0);
  pthread_mutex_unlock(&table_lock);
  if (old == 0) return -EBADF;
  ws_file_unref((ws_file *)(old & ~SLOT_FLAGS));
  return 0;
}

int ws_fd_get_flags(int fd) {
  if (fd < 0 || fd >= WS_FD_MAX) return -EBADF;
  uintptr_t value = settled(fd);
  return value == 0 ? -EBADF : (int)(value & SLOT_CLOEXEC);
}

int ws_fd_set_flags(int fd, int fd_flags) {
  if (fd < 0 || fd >= WS_FD_MAX) return -EBADF;
  pthread_mutex_lock(&table_lock);
  int result = 0;
  uintptr_t value = settled(fd);
  if (value == 0) {
    result = -EBADF;
  } else {
    swap_slot(fd, (value & ~SLOT_CLOEXEC) | (uintptr_t)(fd_flags & WS_FD_CLOEXEC));
  }
  pthread_mutex_unlock(&table_lock);
  return result;
}
