// Checked mode and fatal errors.
//
// In checked builds (-DWS_CHECKED=1) every block the program gets sits inside a larger one:
//
//   block start   front - 32    front - 16      p = start + front    p + requested    block end
//   | (alignment) | header       | front canary  | the program's bytes | back canary    |
//
// front is 32 bytes, or the alignment asked for when that is larger, so p keeps it. The
// header holds the requested size, front, and a state word that says live or freed, mixed with
// p so that no other address passes for a block start. The canaries are fixed byte patterns;
// the back one runs from the end of the request to the end of the allocator's block (at least
// WS_CHECK_BACK bytes).
//
// free(p) stops the program, with one line naming the problem and the address, on:
//   - a pointer this allocator never returned (not its memory, or not a block start there);
//   - a double free (the state says freed);
//   - a write before the block (the front canary changed) or past its end (the back one).
// A freed block is then filled with a poison pattern and kept out of use for a while (the
// quarantine: the last QUARANTINE_BLOCKS blocks freed, at most QUARANTINE_BYTES in all), so a
// second free of it, even of a large one, is still recognised; when it leaves, the poison is
// checked, and a changed byte stops the program: a write to a freed block.
// Every check only reads the allocator's own memory, so a valid program never stops.
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

#define HEADER_BYTES 16
#define CANARY_BYTES 16
#define FRONT_MIN (HEADER_BYTES + CANARY_BYTES)
#define CANARY_BYTE 0xcb
#define POISON_BYTE 0xdf
#define LIVE_MARK ((uintptr_t)0x11fe0b1cu)
#define FREED_MARK ((uintptr_t)0x5eedf4eeu)
#define QUARANTINE_BLOCKS 1024
#define QUARANTINE_BYTES ((size_t)16 << 20)

typedef struct check_header {
  uint64_t requested;  // bytes the program asked for
  uint32_t front;      // from the allocator's block start to p
  uint32_t state;      // LIVE_MARK or FREED_MARK, xor the low bits of p
} check_header;
_Static_assert(sizeof(check_header) == HEADER_BYTES, "the header fills its 16 bytes");

static check_header *header_of(const unsigned char *p) { return (check_header *)(p - FRONT_MIN); }
static uint32_t state_for(const void *p, uintptr_t mark) { return (uint32_t)(mark ^ (uintptr_t)p); }

static bool all_bytes(const unsigned char *from, const unsigned char *to, unsigned char value) {
  for (; from < to; from++) {
    if (*from != value) return false;
  }
  return true;
}

size_t _ws_check_front(size_t alignment) { return alignment > FRONT_MIN ? alignment : FRONT_MIN; }

// The allocator's block holding address p, as [start, end), or false when p is not in one.
static bool block_around(const unsigned char *p, unsigned char **start, unsigned char **end) {
  ws_page *head = ws_span_of(p);
  if (head == NULL) return false;
  unsigned char *first = ws_page_address(head);
  if (head->kind == WS_PAGE_RUN) {
    size_t index = (size_t)(p - first) / head->block_size;
    if (index >= head->capacity) return false;
    *start = first + index * head->block_size;
    *end = *start + head->block_size;
    return true;
  }
  if (head->kind == WS_PAGE_LARGE) {
    *start = first;
    *end = first + (size_t)head->pages * WS_PAGE_SIZE;
    return true;
  }
  return false;
}

void *_ws_check_after_alloc(void *block, size_t front, size_t requested) {
  unsigned char *start, *end, *p = (unsigned char *)block + front;
  if (!block_around(block, &start, &end)) _ws_fatal("checked mode lost a block it was just given", block);
  *header_of(p) = (check_header){
      .requested = requested, .front = (uint32_t)(p - start), .state = state_for(p, LIVE_MARK)};
  memset(p - CANARY_BYTES, CANARY_BYTE, CANARY_BYTES);
  memset(p + requested, CANARY_BYTE, (size_t)(end - (p + requested)));
  return p;
}

// The header of live or freed block p, or stops: the allocator never returned p.
static check_header *verified_header(const unsigned char *p, unsigned char **end) {
  unsigned char *start;
  if (block_around(p, &start, end) && p - start >= FRONT_MIN && *end - p >= WS_CHECK_BACK) {
    check_header *header = header_of(p);
    bool state_known = header->state == state_for(p, LIVE_MARK) || header->state == state_for(p, FREED_MARK);
    if (state_known && header->front == (uint32_t)(p - start) && header->requested <= (uint64_t)(*end - p)) {
      return header;
    }
  }
  _ws_fatal("free() of a pointer this allocator never returned", p);
}

// ----- the quarantine --------------------------------------------------------------------------
static ws_prim_lock quarantine_lock = WS_PRIM_LOCK_INIT;
static unsigned char *quarantine[QUARANTINE_BLOCKS];  // p of freed blocks, oldest at `oldest`
static uint32_t oldest, held;
static size_t held_bytes;

// A block leaving the quarantine: still poisoned and whole, or the program wrote to it after
// freeing it. Returns the allocator's block start, to free for real.
static void *leaving(unsigned char *p) {
  unsigned char *end;
  check_header *header = verified_header(p, &end);
  if (header->state != state_for(p, FREED_MARK) || !all_bytes(p, p + header->requested, POISON_BYTE)) {
    _ws_fatal("write to a freed block", p);
  }
  if (!all_bytes(p - CANARY_BYTES, p, CANARY_BYTE) || !all_bytes(p + header->requested, end, CANARY_BYTE)) {
    _ws_fatal("write to a freed block (a canary beside it changed)", p);
  }
  return p - header->front;
}

void _ws_check_free(ws_heap *heap, void *pointer) {
  unsigned char *p = pointer, *end;
  check_header *header = verified_header(p, &end);
  if (header->state == state_for(p, FREED_MARK)) _ws_fatal("double free", p);
  if (!all_bytes(p - CANARY_BYTES, p, CANARY_BYTE)) _ws_fatal("write before the start of a block", p);
  if (!all_bytes(p + header->requested, end, CANARY_BYTE)) _ws_fatal("write past the end of a block", p);
  memset(p, POISON_BYTE, header->requested);
  header->state = state_for(p, FREED_MARK);
  size_t bytes = (size_t)(end - p) + header->front;

  // Blocks that leave to make room; freed for real outside the lock.
  void *leave[8];
  uint32_t leaving_count = 0;
  ws_prim_lock_acquire(&quarantine_lock);
  while (held > 0 && leaving_count < 8 && (held == QUARANTINE_BLOCKS || held_bytes + bytes > QUARANTINE_BYTES)) {
    unsigned char *old = quarantine[oldest], *old_start, *old_end;
    block_around(old, &old_start, &old_end);
    held_bytes -= (size_t)(old_end - old_start);
    oldest = (oldest + 1) % QUARANTINE_BLOCKS;
    held--;
    leave[leaving_count++] = old;
  }
  bool kept = held < QUARANTINE_BLOCKS && bytes <= QUARANTINE_BYTES;
  if (kept) {
    quarantine[(oldest + held) % QUARANTINE_BLOCKS] = p;
    held++;
    held_bytes += bytes;
  }
  ws_prim_lock_release(&quarantine_lock);
  for (uint32_t i = 0; i < leaving_count; i++) _ws_free_in(heap, leaving(leave[i]));
  if (!kept) _ws_free_in(heap, leaving(p));  // larger than the whole quarantine: checked and freed now
}

size_t _ws_check_requested_size(const void *p) {
  unsigned char *end;
  return (size_t)verified_header(p, &end)->requested;
}

#endif
