// The shared span pool: hands out runs of pages (to heaps, for small and medium blocks) and
// large blocks, and takes them back, merging each freed span with free neighbours so memory
// freed anywhere is reusable everywhere. It is the allocator's only lock; it is taken about
// once per run of blocks, never per small malloc or free.
//
// Free spans sit in bins by page count (the last bin holds every span of 64 pages or more).
// Every page of a free span says FREE, and its first and last point at the head, which is how a
// span being freed finds a free neighbour on either side.
#include <string.h>

#include "internal.h"

static ws_prim_lock pool_lock = WS_PRIM_LOCK_INIT;
static ws_page *bins[WS_SPAN_BINS + 1];
static uintptr_t owned_end;  // end of the last memory taken from the platform (page aligned)
static uint64_t reserved, reserved_peak, lock_acquisitions, lock_contended, growths;
// Bytes of large blocks, counted here under the lock with the pool's own counts, so that a
// snapshot of the statistics never sees a large block both freed and not yet in the pool.
static uint64_t large_in_use, large_in_use_peak;

static void count_large(size_t pages) {
  large_in_use += (uint64_t)pages * WS_PAGE_SIZE;
  if (large_in_use > large_in_use_peak) large_in_use_peak = large_in_use;
}

static void lock_pool(void) {
  bool contended = ws_prim_lock_acquire(&pool_lock);
  lock_acquisitions++;
  if (contended) lock_contended++;
}

static void validate_pool_locked(void);

static void unlock_pool(void) {
  validate_pool_locked();
  ws_prim_lock_release(&pool_lock);
}

// Functions named *_locked, and the bins' and marks' helpers, run under the pool lock.
#define ASSERT_LOCKED() ws_assert(ws_prim_lock_held(&pool_lock))

// ----- bins ----------------------------------------------------------------------------------

static size_t bin_of(size_t pages) { return pages < WS_SPAN_BINS ? pages : WS_SPAN_BINS; }

// What the bins hold, changed under the lock and read without it, so that a caller that may not
// grow memory skips the lock when the pool cannot have what it asks for: their pages, and which
// bins hold a span (bin b is bit b - 1). The count alone let through requests whose pages lay
// only in a bin they may not take from, or only in spans too short: the lock, to find nothing.
_Static_assert(WS_SPAN_BINS == 64, "one bit per bin in a 64-bit word");
static _Atomic size_t free_pages;
static _Atomic uint64_t filled_bins;

static uint64_t bit_of(size_t bin) { return 1ull << (bin - 1); }

// Bins `first` to `last` (1 <= first, last <= WS_SPAN_BINS); none when last < first (a span
// of the last bin's length asked of the shorter bins only).
static uint64_t bins_between(size_t first, size_t last) {
  if (last < first) return 0;
  return (~0ull >> (WS_SPAN_BINS - (last - first + 1))) << (first - 1);
}

static void count_free(size_t pages, bool in) {
  ASSERT_LOCKED();
  size_t bin = bin_of(pages);
  size_t now = atomic_load_explicit(&free_pages, memory_order_relaxed);
  atomic_store_explicit(&free_pages, in ? now + pages : now - pages, memory_order_relaxed);
  uint64_t filled = atomic_load_explicit(&filled_bins, memory_order_relaxed);
  filled = bins[bin] != NULL ? filled | bit_of(bin) : filled & ~bit_of(bin);
  atomic_store_explicit(&filled_bins, filled, memory_order_relaxed);
}

// Whether a span of `pages` may sit in bins up to `last_bin` (a span freed meanwhile may be missed).
static bool may_hold(size_t pages, size_t last_bin) {
  return atomic_load_explicit(&free_pages, memory_order_relaxed) >= pages &&
         (atomic_load_explicit(&filled_bins, memory_order_relaxed) & bins_between(bin_of(pages), last_bin)) != 0;
}

static void bin_insert(ws_page *head) {
  ws_page_list_push(&bins[bin_of(head->pages)], head);
  count_free(head->pages, true);
}

static void bin_remove(ws_page *head) {
  ws_page_list_unlink(&bins[bin_of(head->pages)], head);
  count_free(head->pages, false);
}

// ----- validation (debug builds) -------------------------------------------------------------

#if WS_DEBUG >= 2
// Every free span sits in the bin of its length, marked free at its head and tail (mark_free),
// linked both ways, the bins' pages add up to free_pages, and filled_bins names the bins that
// hold one.
static void validate_pool_locked(void) {
  ASSERT_LOCKED();
  size_t total = 0;
  uint64_t filled = atomic_load_explicit(&filled_bins, memory_order_relaxed);
  for (size_t bin = 1; bin <= WS_SPAN_BINS; bin++) {
    ws_assert((bins[bin] != NULL) == ((filled & bit_of(bin)) != 0));
    ws_page *previous = NULL;
    for (ws_page *span = bins[bin]; span != NULL; previous = span, span = span->next) {
      ws_assert(span->prev == previous);
      ws_assert(span->kind == WS_PAGE_FREE && span->head == span && span->pages > 0);
      ws_assert(bin_of(span->pages) == bin);
      ws_page *tail = ws_page_at_index(span->index + span->pages - 1);
      ws_assert(tail != NULL && tail->kind == WS_PAGE_FREE && tail->head == span && tail->pages == span->pages);
      total += span->pages;
    }
  }
  ws_assert(total == atomic_load_explicit(&free_pages, memory_order_relaxed));
}

// A run or large block coming back: its head is marked as one (mark_used) and every other page
// of it names that head in the page map.
static void validate_span_in_use(const ws_page *head) {
  ws_assert(head->head == head && (head->kind == WS_PAGE_RUN || head->kind == WS_PAGE_LARGE) && head->pages > 0);
  for (size_t i = 1; i < head->pages; i++) {
    const ws_page *page = ws_page_at_index(head->index + i);
    ws_assert(page != NULL && page->head == head && page->kind == WS_PAGE_INTERIOR);
  }
}
#else
static void validate_pool_locked(void) {}
static void validate_span_in_use(const ws_page *head) { (void)head; }
#endif

// ----- marking -------------------------------------------------------------------------------

static void mark_free(ws_page *head, size_t pages) {
  ASSERT_LOCKED();
  head->kind = WS_PAGE_FREE;
  head->head = head;
  head->pages = (uint32_t)pages;
  ws_page *tail = ws_page_at_index(head->index + pages - 1);
  tail->kind = WS_PAGE_FREE;
  tail->head = head;
  tail->pages = (uint32_t)pages;
}

static void mark_used(ws_page *head, size_t pages, ws_page_kind kind) {
  ASSERT_LOCKED();
  head->head = head;
  head->pages = (uint32_t)pages;
  head->kind = (uint8_t)kind;
  for (size_t i = 1; i < pages; i++) {
    ws_page *page = ws_page_at_index(head->index + i);
    page->head = head;
    page->kind = WS_PAGE_INTERIOR;
  }
}

// ----- holes --------------------------------------------------------------------------------
//
// Every free page that a large block of WS_SPAN_BINS pages or more left knows that block's pages
// (its hole). Threads that come and go free their stacks (Emscripten allocates them with malloc)
// and make new ones of the same size; a run cut from such a hole while it waits for the next stack
// pushes that stack onto new memory, a whole stack more. So runs are cut beside holes, and when
// only holes are left, memory grows for them instead, up to WS_HOLE_SPARING_PAGES per large block
// allocated (so a program that frees a large block for good gets its memory back for runs after
// that much). A large block takes the smallest hole it fits first. A hole ends when any of its
// pages is used again (docs/decisions.md, "the allocator's measured choices").
static uint32_t live_holes;          // so that searches skip the page walks when there are none
static uint32_t hole_sparing_grown;  // pages grown since the last large block to spare holes
static bool hole_spared;             // the current search passed a span by for its holes

// A page's hole, which only a free page has (the fields are a run's counts on other pages).
static ws_page *free_page(size_t index) {
  ws_page *page = ws_page_at_index(index);
  ws_assert(page->kind == WS_PAGE_FREE);
  return page;
}

// Pages [first, first + pages) are being used: the holes they belong to end.
static void end_holes(size_t first, size_t pages) {
  for (size_t i = 0; i < pages; i++) {
    const ws_page *page = free_page(first + i);
    if (page->hole_pages == 0) continue;
    for (size_t at = page->hole_at, end = at + page->hole_pages; at < end; at++) {
      ws_page *hole_page = free_page(at);
      hole_page->hole_at = hole_page->hole_pages = 0;
    }
    live_holes--;
  }
}

// Pages to skip from `page` to the first `alignment`-aligned address.
static size_t aligned_skip(const ws_page *page, size_t alignment) {
  uintptr_t start = (uintptr_t)ws_page_address(page);
  uintptr_t aligned = (start + alignment - 1) & ~(uintptr_t)(alignment - 1);
  return (aligned - start) / WS_PAGE_SIZE;
}

// Pages to skip in `span` so that a run of `pages` takes no page of a hole, or SIZE_MAX if there
// is no such place.
static size_t run_lead(const ws_page *span, size_t pages) {
  if (live_holes == 0 || hole_sparing_grown >= WS_HOLE_SPARING_PAGES) return 0;
  size_t end = span->index + span->pages;
  for (size_t at = span->index; at + pages <= end;) {
    size_t i = 0;
    while (i < pages && free_page(at + i)->hole_pages == 0) i++;
    if (i == pages) return at - span->index;
    const ws_page *hole = free_page(at + i);
    at = hole->hole_at + hole->hole_pages;
  }
  hole_spared = true;
  return SIZE_MAX;
}

// The free span whose smallest hole holds `pages` at `alignment`, and the pages to skip to it.
static ws_page *hole_fit_locked(size_t pages, size_t alignment, size_t *lead) {
  ws_page *best = NULL;
  size_t best_at = 0, best_pages = SIZE_MAX;
  if (live_holes == 0) return NULL;
  for (ws_page *span = bins[WS_SPAN_BINS]; span != NULL; span = span->next) {
    size_t end = span->index + span->pages;
    for (size_t at = span->index; at < end;) {
      const ws_page *page = free_page(at);
      if (page->hole_pages == 0) {
        at++;
        continue;
      }
      size_t skip = aligned_skip(page, alignment);
      if (skip + pages <= page->hole_pages && page->hole_pages < best_pages) {
        best = span;
        best_at = at + skip;
        best_pages = page->hole_pages;
      }
      at = page->hole_at + page->hole_pages;
    }
  }
  if (best != NULL) *lead = best_at - best->index;
  return best;
}

// Pages [first, first + pages) become free pages, each its own head until mark_free names the
// span's, with the hole given (hole_pages 0: none). A free page's kind says its hole fields hold
// a hole, so every page is marked, whatever it was.
static void become_free(size_t first, size_t pages, uint32_t hole_at, uint32_t hole_pages) {
  for (size_t i = 0; i < pages; i++) {
    ws_page *page = ws_page_at_index(first + i);
    page->kind = WS_PAGE_FREE;
    page->head = page;
    page->hole_at = hole_at;
    page->hole_pages = hole_pages;
  }
}

// Puts span [head, head + pages) into the bins, merged with free neighbours; a large block's pages
// become a hole.
static void release_locked(ws_page *head, size_t pages) {
  ASSERT_LOCKED();
  bool large = head->kind == WS_PAGE_LARGE && pages >= WS_SPAN_BINS;
  become_free(head->index, pages, large ? head->index : 0, large ? (uint32_t)pages : 0);
  if (large) live_holes++;
  ws_page *next = ws_page_at_index(head->index + pages);
  if (next && next->kind == WS_PAGE_FREE && next->head == next) {
    bin_remove(next);
    pages += next->pages;
  }
  ws_page *before = head->index > 0 ? ws_page_at_index(head->index - 1) : NULL;
  if (before && before->kind == WS_PAGE_FREE) {
    ws_page *previous = before->head;
    if (previous->kind == WS_PAGE_FREE && previous->index + previous->pages == head->index) {
      bin_remove(previous);
      pages += previous->pages;
      head = previous;
    }
  }
  mark_free(head, pages);
  bin_insert(head);
}

// ----- growing -------------------------------------------------------------------------------

// The free span at the end of the pool's memory, or NULL.
static ws_page *top_span_locked(void) {
  ws_page *last = owned_end != 0 ? ws_page_at_index(ws_address_index(owned_end) - 1) : NULL;
  return last != NULL && last->kind == WS_PAGE_FREE ? last->head : NULL;
}

// Free pages at the top of the pool's memory, which new memory from the platform would extend
// (only while the break is still where the pool left it: otherwise the new memory is elsewhere).
static size_t free_pages_at_top(void) {
  if (owned_end == 0 || ws_prim_break() != owned_end) return 0;
  ws_page *top = top_span_locked();
  return top != NULL ? top->pages : 0;
}

// ----- allocation ----------------------------------------------------------------------------

// Finds a free span holding `pages` pages at an `alignment`-aligned start; returns the head and
// the number of leading pages to skip. Best fit by bin, and the lowest address within a bin:
// address-ordered placement keeps long-lived blocks together and free space in large pieces.
//
// A run that must come out of a large free span comes out of the one at the top of memory, if
// that is large enough: the others are mostly holes large blocks left, and threads that come and
// go free their stacks and make new ones of the same size, which a run in the hole would push
// onto new memory (docs/decisions.md, "the allocator's measured choices"). Nor does a run take a
// page of a hole (above) while the sparing lasts,
// and a large block of the last bin's size takes the smallest hole it fits before anything else.
static ws_page *find_locked(size_t pages, size_t alignment, size_t last_bin, ws_page_kind kind, size_t *lead) {
  ASSERT_LOCKED();
  if (kind == WS_PAGE_LARGE && pages >= WS_SPAN_BINS && last_bin == WS_SPAN_BINS) {
    ws_page *span = hole_fit_locked(pages, alignment, lead);
    if (span != NULL) return span;
  }
  for (size_t bin = bin_of(pages); bin <= last_bin; bin++) {
    if (bin == WS_SPAN_BINS && kind == WS_PAGE_RUN) {  // runs need no alignment beyond a page
      ws_page *top = top_span_locked();
      if (top != NULL && top->pages >= WS_SPAN_BINS && top->pages >= pages) {
        size_t top_lead = run_lead(top, pages);
        if (top_lead != SIZE_MAX) {
          *lead = top_lead;
          return top;
        }
      }
    }
    ws_page *best = NULL;
    size_t best_skip = 0;
    for (ws_page *span = bins[bin]; span != NULL; span = span->next) {
      size_t skip = bin == WS_SPAN_BINS && kind == WS_PAGE_RUN ? run_lead(span, pages) : aligned_skip(span, alignment);
      if (skip == SIZE_MAX) continue;
      bool fits = skip + pages <= span->pages;
      bool better = best == NULL || (bin == WS_SPAN_BINS ? span->pages < best->pages || (span->pages == best->pages && span->index < best->index)
                                                         : span->index < best->index);
      if (fits && better) {
        best = span;
        best_skip = skip;
      }
    }
    if (best != NULL) {
      *lead = best_skip;
      return best;
    }
  }
  return NULL;
}

// Takes `pages` pages `lead` pages into free span `span` for a span of `kind`; what is left on
// either side goes back into the bins.
static ws_page *take_locked(ws_page *span, size_t lead, size_t pages, ws_page_kind kind) {
  bin_remove(span);
  size_t total = span->pages;
  if (lead > 0) {
    mark_free(span, lead);
    bin_insert(span);
  }
  ws_page *head = ws_page_at_index(span->index + lead);
  if (total > lead + pages) {
    ws_page *rest = ws_page_at_index(head->index + pages);
    mark_free(rest, total - lead - pages);
    bin_insert(rest);
  }
  end_holes(head->index, pages);
  mark_used(head, pages, kind);
  if (kind == WS_PAGE_LARGE) count_large(pages);
  return head;
}

// Pages for page-map descriptors, from the free spans (the smallest that holds them, at its
// lowest address; a hole may be used), or NULL when none is free. Descriptors for new memory
// taken from the platform would sit between the pool's memory and the new memory, and keep the
// free spans on either side from ever merging, and a block larger than any piece could then not
// be had (docs/decisions.md, "the allocator's measured choices").
static void *map_pages_locked(size_t bytes) {
  size_t lead = 0, pages = bytes / WS_PAGE_SIZE;
  ws_page *span = find_locked(pages, WS_PAGE_SIZE, WS_SPAN_BINS, WS_PAGE_LARGE, &lead);
  return span != NULL ? ws_page_address(take_locked(span, lead, pages, WS_PAGE_MAP)) : NULL;
}

// Takes more pages from the platform and adds them to the bins, so that a span of `pages` is
// free: only what the free pages at the top lack (as dlmalloc extends its top chunk), so a
// request that nearly fits at the top does not grow the heap by its whole size.
static bool grow_locked(size_t pages) {
  ASSERT_LOCKED();
  if (_ws_window_base == 0) _ws_window_base = ws_prim_window_base();
  for (int attempt = 0; attempt < 4; attempt++) {
    size_t at_top = free_pages_at_top();
    size_t top = at_top < pages ? at_top : 0;  // it fits, but not at the alignment asked: grow by the whole
    size_t bytes = (pages - top) * WS_PAGE_SIZE;
    if (bytes < WS_GROW_MIN) bytes = WS_GROW_MIN;
    // The page map may take pages of its own (from the free spans, else the platform), so
    // settle it before growing, and measure again if it took some of the top.
    uintptr_t before = ws_prim_break();
    uintptr_t start = (before + WS_PAGE_SIZE - 1) & ~(uintptr_t)(WS_PAGE_SIZE - 1);
    if (!_ws_map_ensure(ws_address_index(start), bytes / WS_PAGE_SIZE, map_pages_locked)) return false;
    if (ws_prim_break() != before || free_pages_at_top() != at_top) continue;
    size_t request = start - before + bytes;
    growths++;
    unsigned char *got = ws_prim_grow(request);
    if (got == NULL) return false;
    reserved += request;
    if (reserved > reserved_peak) reserved_peak = reserved;
    // Another sbrk user may have moved the break just before us: use what lies page-aligned
    // inside what we got.
    uintptr_t first = ((uintptr_t)got + WS_PAGE_SIZE - 1) & ~(uintptr_t)(WS_PAGE_SIZE - 1);
    uintptr_t end = ((uintptr_t)got + request) & ~(uintptr_t)(WS_PAGE_SIZE - 1);
    size_t usable = end > first ? (end - first) / WS_PAGE_SIZE : 0;
    if (usable == 0 || !_ws_map_ensure(ws_address_index(first), usable, map_pages_locked)) continue;
    owned_end = end;
    release_locked(ws_page_at_index(ws_address_index(first)), usable);  // merges with the top
    if (free_pages_at_top() >= pages) return true;
  }
  return false;
}

ws_page *_ws_span_alloc(size_t pages, size_t alignment, ws_page_kind kind, ws_span_source source) {
  if (alignment < WS_PAGE_SIZE) alignment = WS_PAGE_SIZE;
  if (pages == 0 || pages > WS_WINDOW_PAGES || alignment > WS_WINDOW_MAX / 2) return NULL;
  size_t last_bin = source == WS_SPAN_SMALL_FREE ? WS_SPAN_BINS - 1 : WS_SPAN_BINS;
  // A span freed meanwhile may be missed: the caller's last try may grow, and looks under the lock.
  if (source != WS_SPAN_MAY_GROW && !may_hold(pages, last_bin)) return NULL;
  lock_pool();
  size_t lead = 0;
  hole_spared = false;
  uint64_t reserved_before = reserved;
  ws_page *span = find_locked(pages, alignment, last_bin, kind, &lead);
  if (span == NULL && source == WS_SPAN_MAY_GROW && grow_locked(pages + alignment / WS_PAGE_SIZE - 1)) {
    span = find_locked(pages, alignment, last_bin, kind, &lead);
  }
  if (hole_spared) hole_sparing_grown += (uint32_t)((reserved - reserved_before) / WS_PAGE_SIZE);
  if (span == NULL) {
    unlock_pool();
    return NULL;
  }
  if (kind == WS_PAGE_LARGE && pages >= WS_SPAN_BINS) hole_sparing_grown = 0;
  ws_page *head = take_locked(span, lead, pages, kind);
  unlock_pool();
  ws_prim_see_memory(head, sizeof *head);  // the caller sets its atomic fields
  return head;
}

void _ws_span_free(ws_page *head) {
  lock_pool();
  validate_span_in_use(head);
  if (head->kind == WS_PAGE_LARGE) large_in_use -= (uint64_t)head->pages * WS_PAGE_SIZE;
  release_locked(head, head->pages);
  unlock_pool();
}

void _ws_span_free_runs(ws_page *first) {
  if (first == NULL) return;
  lock_pool();
  for (ws_page *run = first, *next; run != NULL; run = next) {
    next = run->next;
    run->next = NULL;
    validate_span_in_use(run);
    release_locked(run, run->pages);
  }
  unlock_pool();
}

bool _ws_span_extend(ws_page *head, size_t pages) {
  if (pages <= head->pages) return true;
  lock_pool();
  ws_page *next = ws_page_at_index(head->index + head->pages);
  size_t more = pages - head->pages;
  bool ok = next && next->kind == WS_PAGE_FREE && next->head == next && next->pages >= more;
  if (ok) {
    size_t spare = next->pages - more;
    bin_remove(next);
    if (spare > 0) {
      ws_page *rest = ws_page_at_index(next->index + more);
      mark_free(rest, spare);
      bin_insert(rest);
    }
    end_holes(next->index, more);
    mark_used(head, pages, (ws_page_kind)head->kind);
    count_large(more);  // only large blocks grow in place
  }
  unlock_pool();
  return ok;
}

// Gives the free span at the end of our memory back to the platform, when nothing else has
// taken memory after it.
bool _ws_span_trim(void) {
  lock_pool();
  bool trimmed = false;
  ws_page *last = owned_end ? ws_page_at_index(ws_address_index(owned_end) - 1) : NULL;
  if (last && last->kind == WS_PAGE_FREE) {
    ws_page *top = last->head;
    size_t bytes = (size_t)top->pages * WS_PAGE_SIZE;
    if (ws_prim_shrink(ws_page_address(top), bytes)) {
      bin_remove(top);
      end_holes(top->index, top->pages);
      for (size_t i = 0; i < top->pages; i++) {
        ws_page *page = ws_page_at_index(top->index + i);
        page->kind = WS_PAGE_UNUSED;
        page->head = page;
      }
      owned_end -= bytes;
      reserved -= bytes;
      trimmed = true;
    }
  }
  unlock_pool();
  return trimmed;
}

// Under the pool lock, which every change of a page's kind holds.
void _ws_span_add_run_counts(uint64_t *allocations, uint64_t *frees) {
  ws_prim_see_all_memory(NULL);  // descriptors in memory any thread grew
  lock_pool();
  for (size_t chunk = 0; chunk < WS_MAP_CHUNKS; chunk++) {
    ws_page *pages = __atomic_load_n(&_ws_page_map[chunk], __ATOMIC_ACQUIRE);
    if (pages == NULL) continue;
    for (size_t i = 0; i < WS_MAP_CHUNK_PAGES; i++) {
      if (pages[i].kind == WS_PAGE_RUN) _ws_run_add_counts(&pages[i], allocations, frees);
    }
  }
  unlock_pool();
}

void _ws_span_stats(ws_alloc_stats *stats, uint64_t *large_peak) {
  lock_pool();
  stats->bytes_reserved = reserved;
  stats->bytes_reserved_peak = reserved_peak;
  stats->large_in_use = large_in_use;
  *large_peak = large_in_use_peak;
  stats->pool_lock_acquisitions = lock_acquisitions;
  stats->pool_lock_contended = lock_contended;
  stats->growths = growths;
  for (size_t bin = 1; bin <= WS_SPAN_BINS; bin++) {
    for (ws_page *span = bins[bin]; span != NULL; span = span->next) {
      uint64_t bytes = (uint64_t)span->pages * WS_PAGE_SIZE;
      stats->bytes_pool_free += bytes;
      if (bytes > stats->pool_largest_free) stats->pool_largest_free = bytes;
    }
  }
  unlock_pool();
}
