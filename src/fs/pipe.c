// Pipes (pipe, pipe2, FIFOs from mknod) and poll.
//
// A pipe is a ring buffer with a mutex and a condition variable. Readers wait for data or for
// the last writer to go (end of file); writers wait for room or get EPIPE once no reader is
// left. Writes of up to PIPE_BUF bytes are atomic, as POSIX requires.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "internal.h"

struct ws_pipe {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  uint32_t readers, writers;  // open descriptions of each end
  uint32_t reader_opens, writer_opens;  // opens of each end ever (FIFO opens wait on them)
  uint32_t head, used;        // ring buffer state
  uint8_t buffer[WS_PIPE_BYTES];
};

ws_pipe *_ws_pipe_new(void) {
  ws_pipe *pipe = calloc(1, sizeof *pipe);
  if (pipe == NULL) return NULL;
  pthread_mutex_init(&pipe->lock, NULL);
  pthread_cond_init(&pipe->changed, NULL);
  return pipe;
}

void _ws_pipe_destroy(ws_pipe *pipe) {
  pthread_mutex_destroy(&pipe->lock);
  pthread_cond_destroy(&pipe->changed);
  free(pipe);
}

void _ws_pipe_open_end(ws_pipe *pipe, int access) {
  pthread_mutex_lock(&pipe->lock);
  if (access != O_WRONLY) pipe->readers++, pipe->reader_opens++;
  if (access != O_RDONLY) pipe->writers++, pipe->writer_opens++;
  pthread_cond_broadcast(&pipe->changed);
  pthread_mutex_unlock(&pipe->lock);
}

// What a FIFO open waits against, taken before it opens its own end: the peer end's opens so
// far, less one if a peer is open now. A peer open at this moment may write, close and go
// before the wait starts (it is released by this open's own end); counting it as one that
// opened since keeps the wait from missing it.
uint32_t _ws_pipe_peer_mark(ws_pipe *pipe, int access) {
  pthread_mutex_lock(&pipe->lock);
  bool reading = access == O_RDONLY;
  uint32_t opens = reading ? pipe->writer_opens : pipe->reader_opens;
  uint32_t open_now = reading ? pipe->writers : pipe->readers;
  pthread_mutex_unlock(&pipe->lock);
  return open_now > 0 ? opens - 1 : opens;
}

// A FIFO opened for reading waits for a writer, one opened for writing for a reader, as POSIX
// asks; with O_NONBLOCK a reader goes on and a writer fails with ENXIO. A peer that opened
// since `seen` (_ws_pipe_peer_mark before this open) releases the wait even if it has gone.
int _ws_pipe_await_peer(ws_pipe *pipe, int access, bool nonblocking, uint32_t seen) {
  if (access == O_RDWR) return 0;
  bool reading = access == O_RDONLY;
  int error = 0;
  pthread_mutex_lock(&pipe->lock);
  const uint32_t *peers = reading ? &pipe->writers : &pipe->readers;
  const uint32_t *peer_opens = reading ? &pipe->writer_opens : &pipe->reader_opens;
  if (nonblocking) {
    if (!reading && *peers == 0) error = -ENXIO;
  } else {
    while (*peers == 0 && *peer_opens == seen) pthread_cond_wait(&pipe->changed, &pipe->lock);
  }
  pthread_mutex_unlock(&pipe->lock);
  return error;
}

void _ws_pipe_close_end(ws_pipe *pipe, int access) {
  pthread_mutex_lock(&pipe->lock);
  if (access != O_WRONLY) pipe->readers--;
  if (access != O_RDONLY) pipe->writers--;
  pthread_cond_broadcast(&pipe->changed);
  pthread_mutex_unlock(&pipe->lock);
}

int64_t _ws_pipe_read(ws_pipe *pipe, void *buffer, size_t length, bool nonblocking) {
  if (length == 0) return 0;
  pthread_mutex_lock(&pipe->lock);
  while (pipe->used == 0 && pipe->writers > 0 && !nonblocking) pthread_cond_wait(&pipe->changed, &pipe->lock);
  int64_t result;
  if (pipe->used == 0) {
    result = pipe->writers > 0 ? -EAGAIN : 0;
  } else {
    size_t taken = length < pipe->used ? length : pipe->used;
    for (size_t done = 0; done < taken;) {
      size_t piece = WS_PIPE_BYTES - pipe->head;
      if (piece > taken - done) piece = taken - done;
      memcpy((uint8_t *)buffer + done, pipe->buffer + pipe->head, piece);
      pipe->head = (uint32_t)((pipe->head + piece) % WS_PIPE_BYTES);
      done += piece;
    }
    pipe->used -= (uint32_t)taken;
    result = (int64_t)taken;
    pthread_cond_broadcast(&pipe->changed);
  }
  pthread_mutex_unlock(&pipe->lock);
  return result;
}

int64_t _ws_pipe_write(ws_pipe *pipe, const void *buffer, size_t length, bool nonblocking) {
  size_t done = 0;
  int64_t error = 0;
  pthread_mutex_lock(&pipe->lock);
  while (done < length) {
    if (pipe->readers == 0) {
      error = -EPIPE;
      break;
    }
    size_t room = WS_PIPE_BYTES - pipe->used;
    // Up to PIPE_BUF bytes go in at once or not at all, so they never interleave with others.
    bool atomic = length - done <= PIPE_BUF;
    if (room == 0 || (atomic && room < length - done)) {
      if (nonblocking) {
        if (done == 0) error = -EAGAIN;
        break;
      }
      pthread_cond_wait(&pipe->changed, &pipe->lock);
      continue;
    }
    size_t piece = length - done < room ? length - done : room;
    for (size_t copied = 0; copied < piece;) {
      uint32_t tail = (pipe->head + pipe->used) % WS_PIPE_BYTES;
      size_t run = WS_PIPE_BYTES - tail;
      if (run > piece - copied) run = piece - copied;
      memcpy(pipe->buffer + tail, (const uint8_t *)buffer + done + copied, run);
      pipe->used += (uint32_t)run;
      copied += run;
    }
    done += piece;
    pthread_cond_broadcast(&pipe->changed);
  }
  pthread_mutex_unlock(&pipe->lock);
  return done > 0 ? (int64_t)done : error;
}

short _ws_pipe_poll(ws_pipe *pipe, short events) {
  short ready = 0;
  pthread_mutex_lock(&pipe->lock);
  if (pipe->used > 0) ready |= events & (POLLIN | POLLRDNORM);
  if (pipe->readers > 0 && pipe->used < WS_PIPE_BYTES) ready |= events & (POLLOUT | POLLWRNORM);
  if (pipe->writers == 0) ready |= POLLHUP;
  if (pipe->readers == 0) ready |= POLLERR;
  pthread_mutex_unlock(&pipe->lock);
  return ready;
}

int _ws_fs_pipe2(int fds[2], int flags) {
  if (flags & ~(O_CLOEXEC | O_NONBLOCK)) return -EINVAL;
  ws_node *node = _ws_node_new(NULL, S_IFIFO | 0600);  // anonymous: in no directory
  if (node == NULL) return -ENFILE;
  _ws_node_ref(node);
  ws_file *read_end = _ws_file_new(node, O_RDONLY | (flags & O_NONBLOCK));
  ws_file *write_end = _ws_file_new(node, O_WRONLY | (flags & O_NONBLOCK));
  if (read_end == NULL || write_end == NULL) {
    if (read_end == NULL) _ws_node_unref(node);
    if (write_end == NULL) _ws_node_unref(node);
    _ws_file_unref(read_end);
    _ws_file_unref(write_end);
    return -ENFILE;
  }
  int fd_flags = (flags & O_CLOEXEC) ? WS_FD_CLOEXEC : 0;
  fds[0] = _ws_fd_install(read_end, 0, fd_flags);
  fds[1] = fds[0] < 0 ? -1 : _ws_fd_install(write_end, 0, fd_flags);
  if (fds[1] < 0) {
    if (fds[0] >= 0) {
      _ws_fd_close(fds[0]);
    } else {
      _ws_file_unref(read_end);
    }
    _ws_file_unref(write_end);
    return -EMFILE;
  }
  return 0;
}

static short poll_one(const struct pollfd *entry) {
  if (entry->fd < 0) return 0;
  ws_file *file = _ws_fd_get(entry->fd);
  if (file == NULL) return POLLNVAL;
  short ready;
  if (file->node->pipe != NULL) {
    ready = _ws_pipe_poll(file->node->pipe, entry->events);
    int access = atomic_load(&file->flags) & O_ACCMODE;
    if (access == O_RDONLY) ready &= (short)~POLLERR;  // a reader sees hang-up, not error
    if (access == O_WRONLY) ready &= (short)~POLLHUP;
  } else {
    ready = entry->events & (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM);  // files never block
  }
  _ws_file_unref(file);
  return ready;
}

int _ws_fs_poll(struct pollfd *fds, unsigned count, int timeout_ms) {
  if (count > WS_FD_MAX) return -EINVAL;
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    int ready = 0;
    for (unsigned i = 0; i < count; i++) {
      fds[i].revents = poll_one(&fds[i]);
      if (fds[i].revents != 0) ready++;
    }
    if (ready > 0 || timeout_ms == 0) return ready;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (timeout_ms > 0 && elapsed_ms >= timeout_ms) return 0;
    // Pipes have no wait queue shared across descriptors: look again shortly.
    nanosleep(&(struct timespec){.tv_nsec = 200000}, NULL);
  }
}
