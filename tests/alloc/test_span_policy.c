// The span pool's placement and accounting rules (span.c), asked of the pool directly, one
// scenario at a time on an empty pool, where each rule decides one address or one byte count:
//   - growth takes from the platform only what the free pages at the top lack;
//   - trimming gives the free top back and counts exactly that much less reserved;
//   - a run of the last bin's size comes from the free span at the top of memory;
//   - a large block of the last bin's size takes the smallest hole it fits;
//   - a hole ends when part of it is used, so the rest serves runs again;
//   - runs spare holes until WS_HOLE_SPARING_PAGES pages have been grown for that, and no longer,
//     and again after a large block of the last bin's size or more;
//   - a large block of the last bin's size with no hole to take comes from the smallest free
//     span that holds it, the lowest of equal ones, in whichever order they were freed;
//   - a large block takes the smallest hole it fits, also where two holes lie in one free span;
//   - realloc grows a large block in place by exactly the pages the new size needs, also to more
//     than twice its size, and never into memory trimmed away;
//   - an alignment no window can hold is refused without a look at the pool;
//   - the statistics read the descriptors of a chunk and not the memory after it;
//   - the page map's descriptors for new memory come from a free span, not from the break.
// Native only, and its own program: it reads the allocator's internals, and every scenario
// needs a pool that holds nothing else. Page-map descriptors come one chunk (WS_MAP_CHUNK_PAGES)
// at a time; every scenario but the last stays inside the first chunk, so no descriptor page
// lands in its layout.
#include "check.h"

#include <string.h>

#include "../../src/alloc/internal.h"

enum { PAGE = WS_PAGE_SIZE, HOLE = WS_SPAN_BINS };  // a freed large block of HOLE pages or more is a hole

static ws_page *take(size_t pages, ws_page_kind kind) {
  ws_page *span = _ws_span_alloc(pages, WS_PAGE_SIZE, kind, WS_SPAN_MAY_GROW);
  CHECK(span != NULL);
  return span;
}

static ws_alloc_stats pool(void) {
  ws_alloc_stats stats;
  uint64_t large_peak;
  memset(&stats, 0, sizeof stats);
  _ws_span_stats(&stats, &large_peak);
  return stats;
}

static uintptr_t address(const ws_page *span) { return (uintptr_t)ws_page_address(span); }

// Frees everything a scenario took and gives the top back: the next scenario starts on an
// empty pool (checked, since every placement below depends on it).
static void empty_pool(ws_page **spans, size_t count) {
  for (size_t i = 0; i < count; i++) {
    if (spans[i] != NULL) _ws_span_free(spans[i]);
  }
  _ws_span_trim();
  CHECK(pool().bytes_pool_free == 0);
}

// First: the memory after the page map's first chunk is the pool's first page. A block there
// filled with bytes that would read as a run's descriptor adds nothing to the runs' counts.
static void counts_stay_inside_the_chunk(void) {
  ws_page *block = take(1, WS_PAGE_LARGE);
  CHECK((unsigned char *)ws_page_address(block) == (unsigned char *)_ws_page_map[0] + WS_MAP_CHUNK_PAGES * sizeof(ws_page));
  memset(ws_page_address(block), WS_PAGE_RUN, sizeof(ws_page));
  uint64_t allocations[WS_CLASSES] = {0}, frees[WS_CLASSES] = {0};
  _ws_span_add_run_counts(allocations, frees);
  for (unsigned i = 0; i < WS_CLASSES; i++) CHECK(allocations[i] == 0 && frees[i] == 0);
  empty_pool(&block, 1);
}

static void growth_and_trim(void) {
  ws_page *first = take(100, WS_PAGE_RUN);  // also settles the page map's first chunk
  uint64_t reserved = pool().bytes_reserved;
  ws_page *large = take(100, WS_PAGE_LARGE);
  CHECK(pool().bytes_reserved - reserved == 100 * PAGE);  // nothing free at the top: exactly the block
  _ws_span_free(large);
  CHECK(_ws_span_trim());
  CHECK(pool().bytes_reserved == reserved);
  _ws_span_free(first);  // now the top, and trimmed in turn: the pool still knows where its memory ends
  CHECK(_ws_span_trim());
  CHECK(pool().bytes_reserved == reserved - 100 * PAGE);
  CHECK(!_ws_span_trim());  // nothing left to give
}

static void runs_from_the_top(void) {
  // Two free spans of the last bin's size, both of HOLE pages and neither a hole (runs left
  // them): the lower one, and the one at the top of memory.
  ws_page *lower = take(HOLE, WS_PAGE_RUN), *between = take(1, WS_PAGE_LARGE), *top = take(HOLE, WS_PAGE_RUN);
  CHECK(ws_prim_break() == address(top) + HOLE * PAGE);
  uintptr_t top_address = address(top);
  _ws_span_free(lower);
  _ws_span_free(top);
  ws_page *run = take(HOLE, WS_PAGE_RUN);
  CHECK(address(run) == top_address);
  empty_pool((ws_page *[]){run, between}, 2);
}

static void smallest_hole(void) {
  // Free spans: [10 run pages + a hole of HOLE pages] (74 pages) and [a hole of HOLE + 16 pages]
  // (80). Best fit by span would pick the second; the smallest hole is in the first.
  ws_page *run = take(10, WS_PAGE_RUN), *small_hole = take(HOLE, WS_PAGE_LARGE), *keep = take(1, WS_PAGE_LARGE);
  ws_page *big_hole = take(HOLE + 16, WS_PAGE_LARGE), *keep_top = take(1, WS_PAGE_LARGE);
  uintptr_t small_hole_address = address(small_hole);
  _ws_span_free(run);
  _ws_span_free(small_hole);
  _ws_span_free(big_hole);
  ws_page *block = take(HOLE, WS_PAGE_LARGE);
  CHECK(address(block) == small_hole_address);
  empty_pool((ws_page *[]){block, keep, keep_top}, 3);
}

static void partly_used_hole(void) {
  // A large block takes the first 70 pages of a hole of 140: the hole ends, and a run may then
  // come from the 70 left (the top has too few free pages to serve it).
  ws_page *hole = take(2 * 70, WS_PAGE_LARGE), *keep = take(1, WS_PAGE_LARGE);
  uintptr_t hole_address = address(hole);
  _ws_span_free(hole);
  ws_page *block = take(70, WS_PAGE_LARGE);
  CHECK(address(block) == hole_address);
  ws_page *run = take(20, WS_PAGE_RUN);
  CHECK(address(run) == hole_address + 70 * PAGE);
  empty_pool((ws_page *[]){block, keep, run}, 3);
}

static void hole_sparing_ends(void) {
  // A hole, and nothing else free of the last bin's size: runs grow memory instead of cutting
  // into it, until the pages grown for that reach WS_HOLE_SPARING_PAGES since the hole's block
  // was allocated.
  ws_page *hole = take(100, WS_PAGE_LARGE), *keep = take(1, WS_PAGE_LARGE);
  uintptr_t hole_address = address(hole);
  _ws_span_free(hole);
  uint64_t reserved = pool().bytes_reserved;
  ws_page *spared[3];
  spared[0] = take(20, WS_PAGE_RUN);
  size_t grown = (size_t)((pool().bytes_reserved - reserved) / PAGE);
  CHECK(grown > 0 && grown < 20);  // the top's free pages, then growth
  spared[1] = take(WS_HOLE_SPARING_PAGES - 1 - grown, WS_PAGE_RUN);  // exactly one page short
  CHECK(pool().bytes_reserved - reserved == (WS_HOLE_SPARING_PAGES - 1) * PAGE);
  spared[2] = take(20, WS_PAGE_RUN);
  for (int i = 0; i < 3; i++) CHECK(address(spared[i]) < hole_address || address(spared[i]) >= hole_address + 100 * PAGE);
  ws_page *in_hole = take(20, WS_PAGE_RUN);  // the sparing is spent
  CHECK(address(in_hole) == hole_address);
  empty_pool((ws_page *[]){spared[0], spared[1], spared[2], in_hole, keep}, 5);
}

static void hole_sparing_starts_again(void) {
  // The sparing spent as above; then a large block of more than HOLE pages takes the hole, and
  // is freed: runs spare the hole it leaves again.
  ws_page *hole = take(100, WS_PAGE_LARGE), *keep = take(1, WS_PAGE_LARGE);
  _ws_span_free(hole);
  uint64_t reserved = pool().bytes_reserved;
  ws_page *spent[2];
  spent[0] = take(20, WS_PAGE_RUN);
  size_t grown = (size_t)((pool().bytes_reserved - reserved) / PAGE);
  spent[1] = take(WS_HOLE_SPARING_PAGES - grown, WS_PAGE_RUN);
  CHECK(pool().bytes_reserved - reserved == WS_HOLE_SPARING_PAGES * PAGE);  // the sparing is spent
  ws_page *block = take(100, WS_PAGE_LARGE);
  uintptr_t block_address = address(block);
  CHECK(block_address == address(hole));
  _ws_span_free(block);
  ws_page *run = take(20, WS_PAGE_RUN);
  CHECK(address(run) < block_address || address(run) >= block_address + 100 * PAGE);
  empty_pool((ws_page *[]){spent[0], spent[1], run, keep}, 4);
}

static void realloc_in_place(void) {
  unsigned char *block = WS(malloc)(40 * PAGE), *after = WS(malloc)(60 * PAGE), *keep = WS(malloc)(3 * PAGE);  // large blocks all three
  CHECK(block != NULL && after == block + 40 * PAGE && keep == after + 60 * PAGE);
  WS(free)(after);
  unsigned char *grown = WS(realloc)(block, 64 * PAGE);
  CHECK(grown == block);
  CHECK(WS(malloc_usable_size)(grown) == 64 * PAGE);  // the pages 64 pages need, not one more
  WS(free)(grown);
  WS(free)(keep);
  WS(malloc_trim)(0);
  CHECK(pool().bytes_pool_free == 0);
}

static void last_bin_best_fit(void) {
  // Free spans that runs left (no holes): 80 pages low in memory, 70 above; a block of 65 pages
  // takes the 70. Then two of 70: it takes the lower, whichever was freed last.
  ws_page *low = take(80, WS_PAGE_RUN), *keep = take(1, WS_PAGE_LARGE), *high = take(70, WS_PAGE_RUN);
  ws_page *keep_top = take(1, WS_PAGE_LARGE);
  uintptr_t high_address = address(high);
  _ws_span_free(low);
  _ws_span_free(high);
  ws_page *block = take(65, WS_PAGE_LARGE);
  CHECK(address(block) == high_address);
  empty_pool((ws_page *[]){block, keep, keep_top}, 3);

  for (int lower_freed_first = 1; lower_freed_first >= 0; lower_freed_first--) {
    ws_page *first = take(70, WS_PAGE_RUN), *keep_a = take(1, WS_PAGE_LARGE), *second = take(70, WS_PAGE_RUN);
    ws_page *keep_b = take(1, WS_PAGE_LARGE);
    uintptr_t first_address = address(first);
    _ws_span_free(lower_freed_first ? first : second);
    _ws_span_free(lower_freed_first ? second : first);  // the one freed last is first in its bin's list
    block = take(65, WS_PAGE_LARGE);
    CHECK(address(block) == first_address);
    empty_pool((ws_page *[]){block, keep_a, keep_b}, 3);
  }
}

static void two_holes_in_one_span(void) {
  // Large blocks of 100 and 70 pages side by side, freed: one free span of 170 pages whose
  // pages remember two holes. A block of 65 pages takes the smaller, the second.
  ws_page *big = take(100, WS_PAGE_LARGE), *small = take(70, WS_PAGE_LARGE), *keep = take(1, WS_PAGE_LARGE);
  uintptr_t small_address = address(small);
  _ws_span_free(big);
  _ws_span_free(small);
  ws_page *block = take(65, WS_PAGE_LARGE);
  CHECK(address(block) == small_address);
  empty_pool((ws_page *[]){block, keep}, 2);
}

static void realloc_beyond_twice(void) {
  // A block of 10 pages, 200 free pages after it: grown to 30 pages in place, it holds exactly
  // those, and a block of 170 pages taken next lies after them.
  unsigned char *block = WS(malloc)(10 * PAGE), *after = WS(malloc)(200 * PAGE), *keep = WS(malloc)(3 * PAGE);
  CHECK(block != NULL && after == block + 10 * PAGE && keep == after + 200 * PAGE);
  WS(free)(after);
  unsigned char *grown = WS(realloc)(block, 30 * PAGE);
  CHECK(grown == block && WS(malloc_usable_size)(grown) == 30 * PAGE);
  unsigned char *next = WS(malloc)(170 * PAGE);
  CHECK(next == block + 30 * PAGE);
  WS(free)(next);
  WS(free)(grown);
  WS(free)(keep);
  WS(malloc_trim)(0);
  CHECK(pool().bytes_pool_free == 0);
}

static void realloc_not_into_trimmed_memory(void) {
  // The block after this one was freed and trimmed away: growing must move the block (to
  // memory grown for it), not claim pages the platform took back.
  unsigned char *block = WS(malloc)(40 * PAGE), *after = WS(malloc)(60 * PAGE);
  CHECK(block != NULL && after == block + 40 * PAGE);
  WS(free)(after);
  CHECK(WS(malloc_trim)(0) == 1);
  unsigned char *grown = WS(realloc)(block, 64 * PAGE);
  CHECK(grown != NULL && grown != block);
  ws_alloc_stats stats = pool();
  CHECK(stats.large_in_use <= stats.bytes_reserved);
  WS(free)(grown);
  WS(malloc_trim)(0);
  CHECK(pool().bytes_pool_free == 0);
}

// An alignment no window can hold is refused before the pool is searched or grown.
static void alignment_beyond_the_window(void) {
  uint64_t locked = pool().pool_lock_acquisitions;  // counting this look
  CHECK(_ws_span_alloc(1, (size_t)WS_WINDOW_MAX, WS_PAGE_LARGE, WS_SPAN_MAY_GROW) == NULL);
  CHECK(pool().pool_lock_acquisitions == locked + 1);  // only the next look
}

// The descriptors for memory past the first chunk come from a free span, not from the platform:
// placed at the break, they would sit between the pool's memory and the new memory, and the free
// spans on either side could never merge. Last: the descriptor page stays taken.
static void descriptors_from_the_pool(void) {
  _ws_span_free(take(200, WS_PAGE_RUN));
  CHECK(WS_MAP_CHUNK_PAGES < 300);
  ws_page *block = take(300, WS_PAGE_LARGE);  // grows past the first chunk
  _ws_span_free(block);
  ws_alloc_stats stats = pool();
  CHECK(stats.pool_largest_free == stats.bytes_pool_free);  // one span
  CHECK(stats.bytes_pool_free == 300 * PAGE);
}

int main(void) {
  CHECK(pool().bytes_reserved == 0);
  counts_stay_inside_the_chunk();
  growth_and_trim();
  runs_from_the_top();
  smallest_hole();
  partly_used_hole();
  hole_sparing_ends();
  hole_sparing_starts_again();
  realloc_in_place();
  last_bin_best_fit();
  two_holes_in_one_span();
  realloc_beyond_twice();
  realloc_not_into_trimmed_memory();
  alignment_beyond_the_window();
  descriptors_from_the_pool();
  return check_summary("span policy");
}
