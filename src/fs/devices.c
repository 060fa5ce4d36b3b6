// /dev: null, zero, urandom, and the console (stdin; stdout and stderr through console.c).
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../platform/platform.h"
#include "internal.h"

int64_t _ws_device_read(enum ws_device device, void *buffer, size_t length) {
  switch (device) {
    case WS_DEV_NULL: return 0;
    case WS_DEV_ZERO: memset(buffer, 0, length); return (int64_t)length;
    case WS_DEV_URANDOM: return ws_prim_random(buffer, length) == 0 ? (int64_t)length : -EIO;
    case WS_DEV_STDIN: return ws_prim_console_read(buffer, length);
    default: return -EBADF;
  }
}

int64_t _ws_device_write(enum ws_device device, const void *buffer, size_t length) {
  switch (device) {
    case WS_DEV_STDOUT: _ws_console_write(1, buffer, length); return (int64_t)length;
    case WS_DEV_STDERR: _ws_console_write(2, buffer, length); return (int64_t)length;
    case WS_DEV_STDIN: return -EBADF;
    default: return (int64_t)length;  // null, zero and urandom swallow writes
  }
}

int _ws_devices_create(ws_node *dev_dir) {
  static const struct {
    const char *name;
    enum ws_device device;
    uint32_t mode;
  } devices[] = {
      {"null", WS_DEV_NULL, 0666},     {"zero", WS_DEV_ZERO, 0666},     {"urandom", WS_DEV_URANDOM, 0444},
      {"random", WS_DEV_URANDOM, 0444}, {"stdin", WS_DEV_STDIN, 0444},  {"stdout", WS_DEV_STDOUT, 0222},
      {"stderr", WS_DEV_STDERR, 0222}, {"tty", WS_DEV_STDOUT, 0666},
  };
  int error = 0;
  ws_rwlock_write(&dev_dir->lock);
  for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
    ws_node *node;
    error = _ws_b_create(dev_dir, devices[i].name, strlen(devices[i].name), S_IFCHR | devices[i].mode, NULL, &node);
    if (error != 0) break;
    node->device = devices[i].device;
    _ws_node_unref(node);
  }
  ws_rwlock_unlock(&dev_dir->lock);
  return error;
}
