// Console and randomness for Emscripten: the host side lives in console.js (a JS library
// the driver links), which every thread calls directly.
#include <emscripten/emscripten.h>
#include <stddef.h>
#include <stdint.h>

#include "../platform.h"

void _ws_console_flush_at_abort(void);  // src/fs/console.c

// console.js
extern void _wasmscale_console_write(int stream, const char *data, size_t length);
extern int _wasmscale_console_read(void *data, size_t length);

void ws_prim_console_write(int stream, const char *data, size_t length) { _wasmscale_console_write(stream, data, length); }

int64_t ws_prim_console_read(void *data, size_t length) { return _wasmscale_console_read(data, length); }

// Called by console.js just before the runtime aborts (abort(), running out of memory), on the
// aborting thread, so that partial lines already written reach the host before the program stops.
EMSCRIPTEN_KEEPALIVE void ws_console_abort_flush(void) { _ws_console_flush_at_abort(); }
