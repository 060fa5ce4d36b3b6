// Record locks (fcntl F_GETLK/F_SETLK/F_SETLKW and the open-file-description F_OFD_* forms),
// and flock's whole-file locks.
//
// All threads of a Wasm program are one process, so classic POSIX locks never conflict with
// each other (exactly as on Linux) and go away when any descriptor of the file is closed.
// Locks that work *between threads* are the OFD locks: owned by one open description, they
// conflict with every other description's locks and with the process's. Rare calls, so one
// mutex and one condition variable serve all files. flock's locks belong to an open
// description too, cover the whole file and, as on Linux, never meet fcntl's: each kind of
// lock conflicts only with its own kind.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "internal.h"

#define PROCESS_OWNER 1  // descriptions' owners are their addresses, never 1
#define TO_END UINT64_MAX

typedef enum { RECORD_LOCK, FLOCK_LOCK, ANY_LOCK } ws_lock_kind;

typedef struct ws_record_lock {
  struct ws_record_lock *next;
  uint64_t owner;
  uint64_t start, end;  // inclusive
  short type;           // F_RDLCK or F_WRLCK
  ws_lock_kind kind;    // RECORD_LOCK or FLOCK_LOCK
} ws_record_lock;

static pthread_mutex_t locks_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t locks_changed = PTHREAD_COND_INITIALIZER;

typedef struct ws_lock_request {
  uint64_t owner;
  ws_lock_kind kind;
  short type;  // F_RDLCK, F_WRLCK or F_UNLCK
  uint64_t start, end;
} ws_lock_request;

static bool conflicts(const ws_record_lock *held, const ws_lock_request *request) {
  return held->kind == request->kind && held->owner != request->owner && held->start <= request->end &&
         request->start <= held->end && (held->type == F_WRLCK || request->type == F_WRLCK);
}

static ws_record_lock *first_conflict(ws_node *node, const ws_lock_request *request) {
  for (ws_record_lock *held = node->locks; held != NULL; held = held->next) {
    if (conflicts(held, request)) return held;
  }
  return NULL;
}

// Removes `owner`'s locks of `kind` (ANY_LOCK: both) in [start, end], splitting ranges that
// stick out. Needs at most one spare record (a split of one range in two).
static void carve(ws_node *node, uint64_t owner, ws_lock_kind kind, uint64_t start, uint64_t end,
                  ws_record_lock **spare) {
  for (ws_record_lock **link = &node->locks; *link != NULL;) {
    ws_record_lock *held = *link;
    if (held->owner != owner || (kind != ANY_LOCK && held->kind != kind) || held->end < start || end < held->start) {
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
      return;
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
}

// Takes the owner's locks of the same kind and type that touch `lock` (which carve has left
// apart from it) into `lock`, as Linux does: F_GETLK then reports the whole range.
static void merge_neighbours(ws_node *node, ws_record_lock *lock) {
  for (ws_record_lock **link = &node->locks; *link != NULL;) {
    ws_record_lock *held = *link;
    bool same = held->owner == lock->owner && held->kind == lock->kind && held->type == lock->type;
    bool before = held->end != TO_END && held->end + 1 == lock->start;
    bool after = lock->end != TO_END && lock->end + 1 == held->start;
    if (!same || !(before || after)) {
      link = &held->next;
      continue;
    }
    if (before) lock->start = held->start;
    if (after) lock->end = held->end;
    *link = held->next;
    free(held);
  }
}

void _ws_locks_release(ws_node *node, uint64_t owner) {
  pthread_mutex_lock(&locks_lock);
  if (node->locks != NULL) {
    carve(node, owner, ANY_LOCK, 0, TO_END, &(ws_record_lock *){NULL});
    pthread_cond_broadcast(&locks_changed);
  }
  pthread_mutex_unlock(&locks_lock);
}

void _ws_locks_release_process(ws_node *node) { _ws_locks_release(node, PROCESS_OWNER); }

// The byte range [*start, *end] a struct flock names, relative to the file and position.
static int lock_range(ws_file *file, const struct flock *request, uint64_t *start, uint64_t *end) {
  int64_t base;
  switch (request->l_whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR:
      _ws_file_hold_position(file);
      base = (int64_t)file->position;
      _ws_file_release_position(file);
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

// Sets or clears `request` (waiting first for conflicting locks to go, when `wait`): 0, or
// -EAGAIN (a conflict, not waiting), -ENOLCK (no memory for the records).
static int set_lock(ws_node *node, const ws_lock_request *request, bool wait) {
  ws_record_lock *spare = malloc(sizeof *spare), *added = request->type != F_UNLCK ? malloc(sizeof *added) : NULL;
  if (spare == NULL || (request->type != F_UNLCK && added == NULL)) {
    free(spare);
    free(added);
    return -ENOLCK;
  }
  int error = 0;
  pthread_mutex_lock(&locks_lock);
  ws_record_lock *blocker = request->type == F_UNLCK ? NULL : first_conflict(node, request);
  while (blocker != NULL && wait) {
    pthread_cond_wait(&locks_changed, &locks_lock);
    blocker = first_conflict(node, request);
  }
  if (blocker != NULL) {
    error = -EAGAIN;
  } else {
    carve(node, request->owner, request->kind, request->start, request->end, &spare);
    if (added != NULL) {
      *added = (ws_record_lock){.owner = request->owner, .start = request->start, .end = request->end,
                                .type = request->type, .kind = request->kind};
      merge_neighbours(node, added);
      added->next = node->locks;
      node->locks = added;
      added = NULL;
    }
    pthread_cond_broadcast(&locks_changed);
  }
  pthread_mutex_unlock(&locks_lock);
  free(spare);
  free(added);
  return error;
}

int _ws_locks_fcntl(ws_file *file, int command, struct flock *request) {
  bool ofd = command == F_OFD_GETLK || command == F_OFD_SETLK || command == F_OFD_SETLKW;
  bool get = command == F_GETLK || command == F_OFD_GETLK, wait = command == F_SETLKW || command == F_OFD_SETLKW;
  if (ofd && request->l_pid != 0) return -EINVAL;
  short type = request->l_type;
  if (type != F_RDLCK && type != F_WRLCK && type != F_UNLCK) return -EINVAL;
  int access = atomic_load(&file->flags) & O_ACCMODE;
  if (!get && ((type == F_RDLCK && access == O_WRONLY) || (type == F_WRLCK && access == O_RDONLY))) return -EBADF;
  ws_lock_request wanted = {.owner = ofd ? file->lock_owner : PROCESS_OWNER, .kind = RECORD_LOCK, .type = type};
  int error = lock_range(file, request, &wanted.start, &wanted.end);
  if (error != 0) return error;
  if (!get) return set_lock(file->node, &wanted, wait);
  pthread_mutex_lock(&locks_lock);
  ws_record_lock *blocker = type == F_UNLCK ? NULL : first_conflict(file->node, &wanted);
  if (blocker == NULL) {
    request->l_type = F_UNLCK;
  } else {
    request->l_type = blocker->type;
    request->l_whence = SEEK_SET;
    request->l_start = (off_t)blocker->start;
    request->l_len = blocker->end == TO_END ? 0 : (off_t)(blocker->end - blocker->start + 1);
    request->l_pid = blocker->owner == PROCESS_OWNER ? getpid() : -1;
  }
  pthread_mutex_unlock(&locks_lock);
  return 0;
}

int _ws_locks_flock(ws_file *file, int operation) {
  int kind = operation & ~LOCK_NB;
  short type = kind == LOCK_SH ? F_RDLCK : kind == LOCK_EX ? F_WRLCK : kind == LOCK_UN ? F_UNLCK : -1;
  if (type == -1) return -EINVAL;
  ws_lock_request wanted = {.owner = file->lock_owner, .kind = FLOCK_LOCK, .type = type, .start = 0, .end = TO_END};
  return set_lock(file->node, &wanted, (operation & LOCK_NB) == 0);
}
