// Fetched files for Emscripten: the fetch itself lives in fetch.js (a JS library the driver
// links); this adapts its arguments (the offset as a double, exact below 2^53; one call moves at
// most 1 GiB, so the count fits an int).
#include <errno.h>
#include <stdint.h>

#include "../platform.h"

extern int _wasmscale_fetch(const char *url, void *buffer, size_t length, double offset);

#define MOST_PER_CALL ((size_t)1 << 30)
#define EXACT_LIMIT ((uint64_t)1 << 53)

int64_t ws_prim_fetch(const char *url, void *buffer, size_t length, uint64_t offset) {
  if (offset >= EXACT_LIMIT) return -EFBIG;
  return _wasmscale_fetch(url, buffer, length < MOST_PER_CALL ? length : MOST_PER_CALL, (double)offset);
}
