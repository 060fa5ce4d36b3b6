// Checked mode and fatal errors.
//
// In checked builds (-DWS_CHECKED=1) every block is 8 bytes longer than asked for. The last
// 4 bytes of the block hold the requested size; the bytes between the request and that field
// (at least 4) hold a canary pattern. A freed block's second word holds a marker derived from
// its address. free() then stops, with one line naming the problem and the address, on:
//   - a pointer this allocator never returned (not in its memory, not a block start);
//   - a double free (the marker is still there);
//   - a write past the end of the block (the canary changed).
#include <stdio.h>
#include <string.h>

#include "internal.h"

_Noreturn void _ws_fatal(const char *problem, const void *address) {
  char line[200];
  snprintf(line, sizeof line, "wasmscale: %s (address %p)\n", problem, address);
  ws_prim_write_error(line);
  ws_prim_abort();
}

#if WS_CHECKED

#define CANARY_BYTE 0xcb
#define FREED_MARK ((uintptr_t)0x5eedf4eeu)

typedef struct block_shape {
  unsigned char *start;  // first byte of the block
  size_t size;           // bytes in the block
} block_shape;

// Finds the block p must be the start of, or stops: the allocator never returned p.
static block_shape shape_of(const void *p) {
  ws_page *head = ws_span_of(p);
  const unsigned char *bytes = p;
  if (head != NULL && head->kind == WS_PAGE_RUN) {
    size_t offset = (size_t)(bytes - ws_page_address(head));
    if (offset % head->block_size == 0 && offset / head->block_size < head->capacity) {
      return (block_shape){(unsigned char *)p, head->block_size};
    }
  } else if (head != NULL && head->kind == WS_PAGE_LARGE && bytes == ws_page_address(head)) {
    return (block_shape){(unsigned char *)p, (size_t)head->pages * WS_PAGE_SIZE};
  }
  _ws_fatal("free() of a pointer this allocator never returned", p);
}

static uint32_t *size_field(block_shape block) { return (uint32_t *)(block.start + block.size - sizeof(uint32_t)); }

static uintptr_t *mark_field(block_shape block) { return (uintptr_t *)block.start + 1; }

static uintptr_t freed_mark(const void *p) { return (uintptr_t)p ^ FREED_MARK; }

void _ws_check_after_alloc(void *p, size_t requested) {
  block_shape block = shape_of(p);
  uint32_t *size = size_field(block);
  memset((unsigned char *)p + requested, CANARY_BYTE, (size_t)((unsigned char *)size - ((unsigned char *)p + requested)));
  *size = (uint32_t)requested;
  *mark_field(block) = 0;  // a reused block must not look freed
}

void _ws_check_before_free(void *p) {
  block_shape block = shape_of(p);
  if (*mark_field(block) == freed_mark(p)) _ws_fatal("double free", p);
  uint32_t *size = size_field(block);
  size_t requested = *size;
  unsigned char *canary = (unsigned char *)p + requested;
  if (requested > block.size - WS_CHECK_EXTRA) _ws_fatal("write past the end of a block (its size field is overwritten)", p);
  for (; canary < (unsigned char *)size; canary++) {
    if (*canary != CANARY_BYTE) _ws_fatal("write past the end of a block", p);
  }
  *mark_field(block) = freed_mark(p);
}

size_t _ws_check_requested_size(const void *p) { return *size_field(shape_of(p)); }

#endif
