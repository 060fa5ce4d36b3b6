// Console and randomness for Emscripten: the host side lives in console.js (a JS library
// the driver links), which every thread calls directly.
#include <stddef.h>
#include <stdint.h>

#include "../platform.h"

// console.js
extern void _wasmscale_console_write(int stream, const char *data, size_t length);
extern int _wasmscale_console_read(void *data, size_t length);

void ws_prim_console_write(int stream, const char *data, size_t length) { _wasmscale_console_write(stream, data, length); }

int64_t ws_prim_console_read(void *data, size_t length) { return _wasmscale_console_read(data, length); }
