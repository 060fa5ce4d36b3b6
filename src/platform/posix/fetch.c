// Fetched files for native builds: the URL is a path of the host's, or a file: URL, read with
// pread, so that the memory backend's lazy files run under the sanitizers.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "../platform.h"

int64_t ws_prim_fetch(const char *url, void *buffer, size_t length, uint64_t offset) {
  if (strncmp(url, "file://", 7) == 0) {
    url += 7;
  } else if (strstr(url, "://") != NULL) {
    return -EOPNOTSUPP;  // no network here
  }
  int fd = open(url, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -EIO;  // the source is gone: the file's data cannot be had
  int64_t done = 0;
  while ((size_t)done < length) {
    ssize_t got = pread(fd, (char *)buffer + done, length - (size_t)done, (off_t)(offset + (uint64_t)done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      done = -EIO;
      break;
    }
    if (got == 0) break;  // the file's end
    done += got;
  }
  close(fd);
  return done;
}
