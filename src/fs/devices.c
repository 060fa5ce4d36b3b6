// /dev: null, zero, urandom, and the console (stdin, stdout, stderr).
//
// Console output is assembled into lines here, in shared memory, and each whole line goes to
// the host in one call (src/platform/*/console): any thread can print without the main
// thread, lines from different threads never interleave mid-line, and ws_console_flush (at
// exit, on fsync) hands over a last unfinished line.
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../platform/platform.h"
#include "internal.h"

#define LINE_BYTES 4096  // a longer line goes out in pieces

typedef struct console_stream {
  pthread_mutex_t lock;
  size_t used;
  char line[LINE_BYTES];
} console_stream;

static console_stream streams[2] = {{.lock = PTHREAD_MUTEX_INITIALIZER}, {.lock = PTHREAD_MUTEX_INITIALIZER}};

static void console_write(int stream, const char *data, size_t length) {
  console_stream *out = &streams[stream - 1];
  pthread_mutex_lock(&out->lock);
  while (length > 0) {
    const char *newline = memchr(data, '\n', length);
    size_t piece = newline != NULL ? (size_t)(newline - data) + 1 : length;
    if (out->used == 0 && newline != NULL) {
      ws_prim_console_write(stream, data, piece);  // a whole line: no copy
    } else {
      size_t room = LINE_BYTES - out->used, taken = piece < room ? piece : room;
      memcpy(out->line + out->used, data, taken);
      out->used += taken;
      piece = taken;
      if (out->used == LINE_BYTES || out->line[out->used - 1] == '\n') {
        ws_prim_console_write(stream, out->line, out->used);
        out->used = 0;
      }
    }
    data += piece;
    length -= piece;
  }
  pthread_mutex_unlock(&out->lock);
}

void ws_console_flush(void) {
  for (int stream = 1; stream <= 2; stream++) {
    console_stream *out = &streams[stream - 1];
    pthread_mutex_lock(&out->lock);
    if (out->used > 0) ws_prim_console_write(stream, out->line, out->used);
    out->used = 0;
    pthread_mutex_unlock(&out->lock);
  }
}

int64_t ws_device_read(enum ws_device device, void *buffer, size_t length) {
  switch (device) {
    case WS_DEV_NULL: return 0;
    case WS_DEV_ZERO: memset(buffer, 0, length); return (int64_t)length;
    case WS_DEV_URANDOM: return ws_prim_random(buffer, length) == 0 ? (int64_t)length : -EIO;
    case WS_DEV_STDIN: return ws_prim_console_read(buffer, length);
    default: return -EBADF;
  }
}

int64_t ws_device_write(enum ws_device device, const void *buffer, size_t length) {
  switch (device) {
    case WS_DEV_STDOUT: console_write(1, buffer, length); return (int64_t)length;
    case WS_DEV_STDERR: console_write(2, buffer, length); return (int64_t)length;
    case WS_DEV_STDIN: return -EBADF;
    default: return (int64_t)length;  // null, zero and urandom swallow writes
  }
}

int ws_devices_create(ws_node *dev_dir) {
  static const struct {
    const char *name;
    enum ws_device device;
    uint32_t mode;
  } devices[] = {
      {"null", WS_DEV_NULL, 0666},     {"zero", WS_DEV_ZERO, 0666},     {"urandom", WS_DEV_URANDOM, 0444},
      {"random", WS_DEV_URANDOM, 0444}, {"stdin", WS_DEV_STDIN, 0444},  {"stdout", WS_DEV_STDOUT, 0222},
      {"stderr", WS_DEV_STDERR, 0222}, {"tty", WS_DEV_STDOUT, 0666},
  };
  for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
    ws_node *node;
    int error = ws_b_create(dev_dir, devices[i].name, strlen(devices[i].name), S_IFCHR | devices[i].mode, NULL, &node);
    if (error != 0) return error;
    node->device = devices[i].device;
    ws_node_unref(node);
  }
  return 0;
}
