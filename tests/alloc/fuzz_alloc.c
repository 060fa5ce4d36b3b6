// libFuzzer target: random sequences of malloc, calloc, realloc, memalign and free, checked
// against a shadow model that knows every live block's size and contents. Built with
// clang -fsanitize=fuzzer,address,undefined and -DWS_PREFIX_NAMES.
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SLOTS = 64 };

typedef struct shadow {
  unsigned char *p;
  size_t size;
  unsigned char fill;
} shadow;

static void verify(const shadow *s) {
  for (size_t i = 0; i < s->size; i += (s->size > 4096 ? 509 : 1)) {
    if (s->p[i] != s->fill) {
      fprintf(stderr, "fuzz: block %p (size %zu) lost its contents at byte %zu\n", (void *)s->p, s->size, i);
      abort();
    }
  }
  if (s->size > 0 && s->p[s->size - 1] != s->fill) abort();
}

static void set(shadow *s, void *p, size_t size, unsigned char fill) {
  s->p = p;
  s->size = size;
  s->fill = fill;
  if (p) memset(p, fill, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length) {
  shadow slots[SLOTS] = {{0}};
  for (size_t at = 0; at + 4 <= length; at += 4) {
    shadow *s = &slots[data[at + 1] % SLOTS];
    uint16_t raw = (uint16_t)(data[at + 2] | data[at + 3] << 8);
    size_t size = raw & 0x8000 ? (size_t)(raw & 0x7fff) * 64 : raw & 0x7ff;  // up to ~2 MiB
    unsigned char fill = (unsigned char)(at / 4 + 1);
    if (s->p) verify(s);
    switch (data[at] % 5) {
      case 0:
        WS(free)(s->p);
        set(s, WS(malloc)(size), size, fill);
        if (s->p == NULL) abort();
        break;
      case 1:
        WS(free)(s->p);
        s->p = WS(calloc)(1, size);
        for (size_t i = 0; s->p && i < size; i++) {
          if (s->p[i] != 0) abort();
        }
        set(s, s->p, size, fill);
        break;
      case 2: {
        unsigned char *moved = WS(realloc)(s->p, size);
        if (size == 0) {
          s->p = NULL;
          s->size = 0;
          WS(free)(moved);
          break;
        }
        if (moved == NULL) abort();
        size_t kept = s->size < size ? s->size : size;
        for (size_t i = 0; i < kept; i += (kept > 4096 ? 509 : 1)) {
          if (moved[i] != s->fill) abort();
        }
        set(s, moved, size, fill);
        break;
      }
      case 3: {
        size_t alignment = (size_t)1 << (data[at + 1] % 21);
        WS(free)(s->p);
        set(s, WS(memalign)(alignment, size), size, fill);
        if (s->p == NULL || !is_aligned(s->p, alignment)) abort();
        break;
      }
      default:
        WS(free)(s->p);
        s->p = NULL;
        s->size = 0;
        break;
    }
    if (s->p && WS(malloc_usable_size)(s->p) < s->size) abort();
  }
  for (int i = 0; i < SLOTS; i++) {
    if (slots[i].p) verify(&slots[i]);
    WS(free)(slots[i].p);
  }
  return 0;
}
