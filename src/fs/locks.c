// Record locks (fcntl F_GETLK/F_SETLK/F_SETLKW and the open-file-description F_OFD_* forms).
//
// All threads of a Wasm program are one process, so classic POSIX locks never conflict with
// each other (exactly as on Linux) and go away when any descriptor of the file is closed.
// Locks that work *between threads* are the OFD locks: owned by one open description, they
// conflict with every other description's locks and with the process's. Rare calls, so one
// mutex and one condition variable serve all files.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

#define PROCESS_OWNER 1  // descriptions' owners are their addresses, never 1
#define TO_END UINT64_MAX

typedef struct ws_record_lock {
  struct ws_record_lock *next;
  uint64_t owner;
  uint64_t start, end;  // inclusive
  short type;           // F_RDLCK or F_WRLCK
} ws_record_lock;

static pthread_mutex_t locks_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t locks_changed = PTHREAD_COND_INITIALIZER;

static bool conflicts(const ws_record_lock *held, uint64_t owner, short type, uint64_t start, uint64_t end) {
  return held->owner != owner && held->start <= end && start <= held->end &&
         (held->type == F_WRLCK || type == F_WRLCK);
}

static ws_record_lock *first_conflict(ws_node *node, uint64_t owner, short type, uint64_t start, uint64_t end) {
  for (ws_record_lock *held = node->locks; held != NULL; held = held->next) {
    if (conflicts(held, owner, type, start, end)) return held;
  }
  return NULL;
}

// Removes `owner`'s locks in [start, end], splitting ranges that stick out. Needs at most one
// spare record (a split of one range in two); returns false if that could not be allocated.
static bool carve(ws_node *node, uint64_t owner, uint64_t start, uint64_t end, ws_record_lock **spare) {
  for (ws_record_lock **link = &node->locks; *link != NULL;) {
    ws_record_lock *held = *link;
    if (held->owner != owner || held->end < start || end < held->start) {
      link = &held->next;
      continue;
    }
    if (held->start < start && held->end > end) {  // a hole in the middle: split
      ws_record_lock *tail = *spare;
      *spare = NULL;
      *tail = *held;
      tail->start = end + 1;
      held->end = start - 1;
      held->next = tail;
      return true;
    }
    if (held->start < start) {
      held->end = start - 1;
    } else if (held->end > end) {
      held->start = end + 1;
    } else {
      *link = held->next;
      free(held);
      continue;
    }
    link = &held->next;
  }
  return true;
}

void ws_locks_release(ws_node *node, uint64_t owner) {
  pthread_mutex_lock(&locks_lock);
  if (node->locks != NULL) {
    carve(node, owner, 0, TO_END, &(ws_record_lock *){NULL});
    pthread_cond_broadcast(&locks_changed);
  }
  pthread_mutex_unlock(&locks_lock);
}

void ws_locks_release_process(ws_node *node) { ws_locks_release(node, PROCESS_OWNER); }

// The byte range [*start, *end] a struct flock names, relative to the file and position.
static int lock_range(ws_file *file, const struct flock *request, uint64_t *start, uint64_t *end) {
  int64_t base;
  switch (request->l_whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR:
      ws_file_hold_position(file);
      base = (int64_t)file->position;
      ws_file_release_position(file);
      break;
    case SEEK_END:
      ws_rwlock_read(&file->node->lock);
      base = (int64_t)file->node->size;
      ws_rwlock_unlock(&file->node->lock);
      break;
    default: return -EINVAL;
  }
  int64_t first = base + (int64_t)request->l_start, length = (int64_t)request->l_len;
  if (length < 0) {
    first += length;
    length = -length;
  }
  if (first < 0) return -EINVAL;
  *start = (uint64_t)first;
  *end = length == 0 ? TO_END : (uint64_t)first + (uint64_t)length - 1;
  return 0;
}

int ws_locks_fcntl(ws_file *file, int command, struct flock *request) {
  bool ofd = command == F_OFD_GETLK || command == F_OFD_SETLK || command == F_OFD_SETLKW;
  bool get = command == F_GETLK || command == F_OFD_GETLK, wait = command == F_SETLKW || command == F_OFD_SETLKW;
  if (ofd && request->l_pid != 0) return -EINVAL;
  short type = request->l_type;
  if (type != F_RDLCK && type != F_WRLCK && type != F_UNLCK) return -EINVAL;
  int access = atomic_load(&file->flags) & O_ACCMODE;
  if (!get && ((type == F_RDLCK && access == O_WRONLY) || (type == F_WRLCK && access == O_RDONLY))) return -EBADF;
  uint64_t start, end, owner = ofd ? file->lock_owner : PROCESS_OWNER;
  int error = lock_range(file, request, &start, &end);
  if (error != 0) return error;
  ws_node *node = file->node;
  ws_record_lock *spare = malloc(sizeof *spare), *added = type != F_UNLCK ? malloc(sizeof *added) : NULL;
  if (spare == NULL || (type != F_UNLCK && added == NULL)) {
    free(spare);
    free(added);
    return -ENOLCK;
  }
  pthread_mutex_lock(&locks_lock);
  ws_record_lock *blocker = type == F_UNLCK ? NULL : first_conflict(node, owner, type, start, end);
  if (get) {
    if (blocker == NULL) {
      request->l_type = F_UNLCK;
    } else {
      request->l_type = blocker->type;
      request->l_whence = SEEK_SET;
      request->l_start = (off_t)blocker->start;
      request->l_len = blocker->end == TO_END ? 0 : (off_t)(blocker->end - blocker->start + 1);
      request->l_pid = blocker->owner == PROCESS_OWNER ? getpid() : -1;
    }
  } else {
    while (blocker != NULL && wait) {
      pthread_cond_wait(&locks_changed, &locks_lock);
      blocker = first_conflict(node, owner, type, start, end);
    }
    if (blocker != NULL) {
      error = -EAGAIN;
    } else {
      carve(node, owner, start, end, &spare);
      if (added != NULL) {
        *added = (ws_record_lock){.next = node->locks, .owner = owner, .start = start, .end = end, .type = type};
        node->locks = added;
        added = NULL;
      }
      pthread_cond_broadcast(&locks_changed);
    }
  }
  pthread_mutex_unlock(&locks_lock);
  free(spare);
  free(added);
  return error;
}
