// The OPFS transport: requests to the I/O worker (opfs_worker.js) through a lock-free list in
// shared memory. A sender pushes its request and wakes the worker; the worker takes the whole
// list, answers each request in order, writes its result and wakes its sender.
//
// Waiting: a pthread sleeps on its request's word (Atomics.wait). The browser's main thread
// may not sleep; emscripten_futex_wait spins there instead. The spin always ends, because the
// I/O worker never needs the main thread to answer (it has the memory and its own event loop)
// and it is running before main() starts: opfs.js holds the start back until it is ready.
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <emscripten/threading.h>

#include "../platform.h"

_Static_assert(offsetof(ws_opfs_request, fd) == 12 && offsetof(ws_opfs_request, offset) == 32 &&
                   offsetof(ws_opfs_request, result) == 40 && sizeof(ws_opfs_request) == 48,
               "opfs_worker.js reads this layout");

static _Atomic(ws_opfs_request *) queue;  // newest first; the worker takes it whole
static _Atomic bool connected;            // the I/O worker has the queue

extern int _wasmscale_opfs_connect(void *queue);  // opfs.js: 1 if the I/O worker is running

double ws_prim_opfs_send(ws_opfs_request *request) {
  if (!atomic_load(&connected)) return request->result = -ENODEV;
  atomic_store(&request->done, 0);
  ws_opfs_request *head = atomic_load(&queue);
  do {
    request->next = head;
  } while (!atomic_compare_exchange_weak(&queue, &head, request));
  emscripten_futex_wake((volatile void *)&queue, 1);
  while (atomic_load(&request->done) == 0) emscripten_futex_wait((volatile void *)&request->done, 0, INFINITY);
  return request->result;
}

bool ws_prim_opfs_connect(void) {
#ifdef __EMSCRIPTEN_PTHREADS__  // without shared memory there is no worker to talk to
  if (_wasmscale_opfs_connect((void *)&queue)) atomic_store(&connected, true);
#endif
  return atomic_load(&connected);
}

void ws_prim_opfs_disconnect(void) {
  ws_opfs_request request = {.call = WS_OPFS_CLOSE_ALL, .fd = -1};
  ws_prim_opfs_send(&request);
  atomic_store(&connected, false);
}
