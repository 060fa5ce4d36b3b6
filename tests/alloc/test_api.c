// Allocator API semantics and edge cases: zero sizes, NULL, huge sizes, every alignment from
// 1 to 1 MiB, bad alignments, errno, realloc's documented cases, usable sizes, statistics.
// Runs natively and in Wasm; prints "api: N passed, N failed".
#include "check.h"

#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "wasmscale/alloc.h"

// Fills and re-reads a block, so a block that overlaps another or is too small shows up.
static int fill_and_check(unsigned char *p, size_t size, unsigned char seed) {
  for (size_t i = 0; i < size; i++) p[i] = (unsigned char)(seed + i * 7);
  for (size_t i = 0; i < size; i++) {
    if (p[i] != (unsigned char)(seed + i * 7)) return 0;
  }
  return 1;
}

static void test_malloc_free(void) {
  void *zero = WS(malloc)(0), *zero2 = WS(malloc)(0);
  CHECK(zero != NULL && zero2 != NULL && zero != zero2);  // malloc(0): unique pointers
  WS(free)(zero);
  WS(free)(zero2);
  WS(free)(NULL);
  CHECK(WS(malloc_usable_size)(NULL) == 0);

  static const size_t sizes[] = {1, 7, 16, 17, 100, 128, 129, 1000, 2023, 4096, 32768, 32769, 100000, 1 << 20, 5 << 20};
  void *blocks[sizeof sizes / sizeof sizes[0]];
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    blocks[i] = WS(malloc)(sizes[i]);
    CHECK(blocks[i] != NULL);
    CHECK(is_aligned(blocks[i], 16));
    size_t usable = WS(malloc_usable_size)(blocks[i]);
    CHECK(usable >= sizes[i]);
    CHECK(sizes[i] < 1000 || usable <= sizes[i] + sizes[i] / 8 + 32768);  // bounded rounding
    CHECK(fill_and_check(blocks[i], usable, (unsigned char)i));
  }
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    unsigned char *p = blocks[i];
    CHECK(p[0] == (unsigned char)i);  // nothing else wrote into it
    WS(free)(p);
  }
}

static void test_huge_sizes(void) {
  errno = 0;
  CHECK(WS(malloc)(SIZE_MAX) == NULL && errno == ENOMEM);
  errno = 0;
  CHECK(WS(malloc)(SIZE_MAX / 2 + 1) == NULL && errno == ENOMEM);
  errno = 0;
  CHECK(WS(malloc)((size_t)-4096) == NULL && errno == ENOMEM);
  errno = 0;
  CHECK(WS(calloc)(SIZE_MAX / 2, 3) == NULL && errno == ENOMEM);  // count * size overflows
  errno = 0;
  CHECK(WS(calloc)(1u << 20, 1u << 20) == NULL);                   // 1 TiB (or overflow in wasm32)
  CHECK(errno == ENOMEM);
  errno = 0;
  char *p = WS(malloc)(10);
  strcpy(p, "kept");
  void *result = WS(reallocarray)(p, SIZE_MAX / 2, 3);
  CHECK(result == NULL && errno == ENOMEM);
  result = WS(realloc)(p, SIZE_MAX - 100);
  CHECK(result == NULL);
  CHECK(strcmp(p, "kept") == 0);  // a failed realloc leaves the block as it was
  WS(free)(p);
}

static void test_calloc(void) {
  unsigned char *dirty = WS(malloc)(3000);
  memset(dirty, 0xff, 3000);
  WS(free)(dirty);
  unsigned char *clean = WS(calloc)(1000, 3);
  CHECK(clean != NULL);
  int zero = 1;
  for (size_t i = 0; i < 3000; i++) zero &= clean[i] == 0;
  CHECK(zero);
  WS(free)(clean);
  void *none = WS(calloc)(0, 100);
  CHECK(none != NULL);
  WS(free)(none);
}

static void test_realloc(void) {
  unsigned char *p = WS(realloc)(NULL, 50);  // NULL: like malloc
  CHECK(p != NULL);
  for (int i = 0; i < 50; i++) p[i] = (unsigned char)i;
  p = WS(realloc)(p, 5000);  // grow: contents kept
  CHECK(p != NULL && p[0] == 0 && p[49] == 49);
  unsigned char *same = WS(realloc)(p, 4500);  // shrinking a little stays in place
  CHECK(same == p && same[49] == 49);
  p = WS(realloc)(same, 20);  // shrinking a lot moves to a smaller block
  CHECK(p != NULL && p[19] == 19);
  p = WS(realloc)(p, 3 << 20);  // to a large block
  CHECK(p != NULL && p[19] == 19);
  memset(p, 0x5a, 3 << 20);
  p = WS(realloc)(p, 4 << 20);  // large to larger
  CHECK(p != NULL && p[(3 << 20) - 1] == 0x5a);
  errno = 0;
  CHECK(WS(realloc)(p, 0) == NULL);  // size 0 frees, as in glibc
}

static void test_alignment(void) {
  static const size_t sizes[] = {0, 1, 100, 5000, 70000};
  for (size_t alignment = 1; alignment <= (1u << 20); alignment <<= 1) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      void *p = WS(memalign)(alignment, sizes[i]);
      CHECK(p != NULL && is_aligned(p, alignment) && is_aligned(p, 16));
      CHECK(WS(malloc_usable_size)(p) >= sizes[i]);
      if (p) memset(p, 0xab, sizes[i]);
      WS(free)(p);

      void *q = (void *)1;
      int error = WS(posix_memalign)(&q, alignment, sizes[i]);
      if (alignment % sizeof(void *) == 0) {
        CHECK(error == 0 && q != NULL && is_aligned(q, alignment));
        WS(free)(q);
      } else {
        CHECK(error == EINVAL && q == (void *)1);  // result untouched
      }

      void *r = WS(aligned_alloc)(alignment, sizes[i]);
      CHECK(r != NULL && is_aligned(r, alignment));
      // Up to a page (16 KiB), from the smallest size class that keeps the alignment: the class
      // of twice the larger of size and alignment always does, so no more than that is used.
      size_t wanted = sizes[i] > alignment ? sizes[i] : alignment;
      if (wanted <= (16 << 10)) CHECK(WS(malloc_usable_size)(r) <= 2 * (wanted > 16 ? wanted : 16));
      WS(free)(r);
    }
  }
  void *q = (void *)1;
  CHECK(WS(posix_memalign)(&q, 0, 10) == EINVAL && q == (void *)1);
  CHECK(WS(posix_memalign)(&q, 24, 10) == EINVAL);
  CHECK(WS(posix_memalign)(&q, 3 * sizeof(void *), 10) == EINVAL);
  CHECK(WS(posix_memalign)(&q, 64, SIZE_MAX / 2 + 1) == ENOMEM && q == (void *)1);
  // Past the 4 GiB the allocator spans, refused whatever the alignment, also where size_t is
  // wider: 2^36 + 129 bytes is not taken for a size class by its low 32 bits (129 bytes).
  if (SIZE_MAX > UINT32_MAX) CHECK(WS(memalign)(64, (size_t)UINT32_MAX * 16 + 145) == NULL);
  // A page's alignment (16 KiB) still comes from a size class, not as a large block.
  ws_alloc_stats before_paged, after_paged;
  WS(free)(WS(malloc)(100));  // the heap made first
  ws_alloc_get_stats(&before_paged);
  void *paged = WS(memalign)(16 << 10, 100);
  ws_alloc_get_stats(&after_paged);
  CHECK(paged != NULL && is_aligned(paged, 16 << 10) && after_paged.large_in_use == before_paged.large_in_use);
  WS(free)(paged);
  errno = 0;
  volatile size_t not_power_of_two = 24;  // volatile: compilers warn about the constant
  CHECK(WS(aligned_alloc)(not_power_of_two, 48) == NULL && errno == EINVAL);
  void *rounded = WS(memalign)(48, 10);  // like glibc: rounded up to 64
  CHECK(rounded != NULL && is_aligned(rounded, 64));
  WS(free)(rounded);
  errno = 0;
  CHECK(WS(memalign)(SIZE_MAX / 2 + 2, 10) == NULL && errno == EINVAL);

  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  void *v = WS(valloc)(10);
  CHECK(v != NULL && is_aligned(v, page));
  WS(free)(v);
  void *pv = WS(pvalloc)(page + 1);
  CHECK(pv != NULL && is_aligned(pv, page) && WS(malloc_usable_size)(pv) >= 2 * page);
  WS(free)(pv);
  pv = WS(pvalloc)(1);  // a whole page
  CHECK(pv != NULL && is_aligned(pv, page) && WS(malloc_usable_size)(pv) >= page);
  WS(free)(pv);
}

static void test_many_sizes(void) {
  enum { COUNT = 3000 };
  static unsigned char *blocks[COUNT];
  static size_t lengths[COUNT];
  uint32_t random = 12345;
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < COUNT; i++) {
      if (blocks[i]) {
        CHECK(blocks[i][0] == (unsigned char)i && blocks[i][lengths[i] - 1] == (unsigned char)(i >> 3));
        WS(free)(blocks[i]);
      }
      random = random * 1103515245u + 12345u;
      lengths[i] = 2 + (random >> 8) % ((random & 15) == 0 ? 200000 : 600);
      blocks[i] = WS(malloc)(lengths[i]);
      CHECK(blocks[i] != NULL);
      blocks[i][0] = (unsigned char)i;
      blocks[i][lengths[i] - 1] = (unsigned char)(i >> 3);
    }
  }
  for (int i = 0; i < COUNT; i++) WS(free)(blocks[i]);
  CHECK(WS(malloc_trim)(0) >= 0);
  // A large block freed at the end of the allocator's memory goes back to the platform.
  ws_alloc_stats before, after;
  char *top = WS(malloc)(8 << 20);
  CHECK(top != NULL);
  memset(top, 1, 8 << 20);
  WS(free)(top);
  ws_alloc_get_stats(&before);
  CHECK(WS(malloc_trim)(0) == 1);
  ws_alloc_get_stats(&after);
  CHECK(after.bytes_reserved + (8 << 20) <= before.bytes_reserved);
  top = WS(malloc)(8 << 20);  // and can be taken again
  CHECK(top != NULL);
  memset(top, 2, 8 << 20);
  WS(free)(top);
}

static void test_stats(void) {
  ws_alloc_stats before, after;
  ws_alloc_get_stats(&before);
  void *blocks[100];
  for (int i = 0; i < 100; i++) blocks[i] = WS(malloc)(100);
  ws_alloc_get_stats(&after);
  // Exact: nothing else allocates meanwhile, and frees are counted from what the runs still
  // hold (stats.c), so a miscount shows.
  CHECK(after.allocations == before.allocations + 100);
  CHECK(after.bytes_in_use == before.bytes_in_use + 100 * 112);
  CHECK(after.bytes_reserved >= after.bytes_in_use && after.bytes_reserved_peak >= after.bytes_reserved);
  CHECK(after.class_block_size[6] == 112 && after.class_allocations[6] == before.class_allocations[6] + 100);
  CHECK(after.heaps_live >= 1);
  struct mallinfo info = WS(mallinfo)();  // dlmalloc's interface, from the same statistics
  CHECK(info.uordblks >= 100 * 100 && info.arena >= info.uordblks && info.fordblks == info.arena - info.uordblks);
  for (int i = 0; i < 50; i++) WS(free)(blocks[i]);
  ws_alloc_stats half;
  ws_alloc_get_stats(&half);
  CHECK(half.bytes_in_use == before.bytes_in_use + 50 * 112);
  for (int i = 50; i < 100; i++) WS(free)(blocks[i]);
  ws_alloc_stats freed;
  ws_alloc_get_stats(&freed);
  CHECK(freed.bytes_in_use == before.bytes_in_use && freed.allocations == after.allocations);
  ws_alloc_print_stats(stdout);
  WS(malloc_stats)();  // glibc's name for the same (to stderr)
  CHECK(WS(mallopt)(M_MMAP_THRESHOLD, 1 << 20) == 0);  // no tunables, and it says so
}

int main(void) {
  test_malloc_free();
  test_huge_sizes();
  test_calloc();
  test_realloc();
  test_alignment();
  test_many_sizes();
  test_stats();
  return check_summary("api");
}
