// A measurement prototype, not the product: malloc and free from a heap per thread that splits
// and coalesces blocks (two-level segregated fit: a free list per size range, found by two
// bitmaps), so that memory moves between sizes the way dlmalloc's does, without dlmalloc's one
// lock. It answers one question of issue 30 (docs/decisions.md, "a heap per thread that
// coalesces"): can an allocator that escapes the size-class floor keep mimalloc's speed?
//
// Linked in place of malloc, with the project's sbrk, into the malloc workload by the Makefile
// (`make build/emscripten-VERSION/bench/malloc-coalescing-heap.js`, and `-merging.js` for
// CACHE_MAX 0). Wasm only: the owner map below assumes a 32-bit address space, and the break
// (sbrk) is the only source of memory. It trusts its callers: a pointer it did not hand out,
// or one freed twice, goes undetected.
//
// The layout (dlmalloc's boundary tags): a chunk starts with the previous chunk's size (valid
// only while that chunk is free) and its own size with two flags; the payload follows, 16-byte
// aligned, and a block in use lends its last word to the next chunk's first. A free chunk holds
// its list links and, in the next chunk's first word, its size. Each piece of memory taken from
// the break ends with a chunk header of size 0 that is never free, so coalescing stops there.
#define _GNU_SOURCE  // sbrk
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(void *) == 4, "the owner map covers a 32-bit address space");

#define ALIGNMENT 16
#define WORD sizeof(size_t)
#define HEADER (2 * WORD)                    // previous chunk's size, own size and flags
#define MIN_CHUNK 16                         // header and two links
#define IS_FREE ((size_t)1)
#define PREVIOUS_FREE ((size_t)2)
#define SIZE_MASK (~(size_t)(ALIGNMENT - 1))
#define SECOND_LEVEL_LOG2 4                  // 16 lists per doubling
#define SECOND_LEVEL (1u << SECOND_LEVEL_LOG2)
#define SMALL_LIMIT ((size_t)SECOND_LEVEL * ALIGNMENT)  // below: one list per 16 bytes
#define FIRST_LEVEL 25                       // up to 2^31
#define MAX_REQUEST ((size_t)1 << 30)
// A thread's own freed chunks of up to CACHED_MAX_SIZE bytes wait, CACHE_MAX of each size at
// most, unmerged, for a request of their size (glibc's tcache); all are merged before the
// arena grows. 0: every free merges at once.
#ifndef CACHE_MAX
#define CACHE_MAX 16
#endif
#ifndef CACHED_MAX_SIZE
#define CACHED_MAX_SIZE ((size_t)1024)
#endif
#define CACHED_SIZES (CACHED_MAX_SIZE / ALIGNMENT + 1)
#define GROW_SHIFT 14
#define GROW_STEP ((size_t)1 << GROW_SHIFT)  // the break moves in these steps, each of one arena
#define OWNER_LEAF_SHIFT 10                  // owner map: leaves of 1,024 steps...
#define OWNER_LEAVES (1u << (32 - GROW_SHIFT - OWNER_LEAF_SHIFT))  // ...each (16 MiB)

typedef struct chunk {
  size_t previous_size;
  size_t head;
  struct chunk *next, *prev;
} chunk;

typedef struct arena {
  uint32_t first_map;
  uint32_t second_map[FIRST_LEVEL];
  chunk *lists[FIRST_LEVEL][SECOND_LEVEL];
  chunk *cached[CACHED_SIZES];                // freed chunks of one size each, not yet merged
  uint16_t cached_count[CACHED_SIZES];
  char *end;                                  // where this arena's last piece of memory ends
  _Atomic(chunk *) remote;                    // blocks other threads freed, not yet taken back
  struct arena *next_idle;                    // the idle arenas' list (its thread exited)
} arena;

static _Atomic(arena *) *_Atomic owner_leaves[OWNER_LEAVES];
static atomic_flag grow_lock = ATOMIC_FLAG_INIT;  // the break's alignment, the owner map, idle arenas
static arena *idle_arenas;
static _Thread_local arena *own_arena;
static arena builtin_arena;                       // emscripten_builtin_*: no TLS there
static atomic_flag builtin_lock = ATOMIC_FLAG_INIT;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void lock(atomic_flag *flag) {
  while (atomic_flag_test_and_set_explicit(flag, memory_order_acquire)) {
  }
}
static void unlock(atomic_flag *flag) { atomic_flag_clear_explicit(flag, memory_order_release); }

static inline size_t chunk_size(const chunk *c) { return c->head & SIZE_MASK; }
static inline chunk *chunk_at(void *address) { return (chunk *)address; }
static inline chunk *after(chunk *c) { return chunk_at((char *)c + chunk_size(c)); }
static inline chunk *chunk_of(void *block) { return chunk_at((char *)block - HEADER); }
static inline unsigned highest_bit(size_t x) { return 31u - (unsigned)__builtin_clz((unsigned)x); }

static inline void list_of(size_t size, unsigned *first, unsigned *second) {
  if (size < SMALL_LIMIT) {
    *first = 0;
    *second = (unsigned)(size / ALIGNMENT);
    return;
  }
  unsigned bit = highest_bit(size);
  *second = (unsigned)(size >> (bit - SECOND_LEVEL_LOG2)) ^ SECOND_LEVEL;
  *first = bit - (SECOND_LEVEL_LOG2 + 4) + 1;
}

static void insert(arena *a, chunk *c, size_t size) {
  unsigned first, second;
  list_of(size, &first, &second);
  chunk *head = a->lists[first][second];
  c->next = head;
  c->prev = NULL;
  if (head != NULL) head->prev = c;
  a->lists[first][second] = c;
  a->first_map |= 1u << first;
  a->second_map[first] |= 1u << second;
}

static void unlink_chunk(arena *a, chunk *c, size_t size) {
  if (c->next != NULL) c->next->prev = c->prev;
  if (c->prev != NULL) {
    c->prev->next = c->next;
    return;
  }
  unsigned first, second;
  list_of(size, &first, &second);
  a->lists[first][second] = c->next;
  if (c->next == NULL) {
    a->second_map[first] &= ~(1u << second);
    if (a->second_map[first] == 0) a->first_map &= ~(1u << first);
  }
}

// A free chunk of at least `size`: the first of the first list whose every chunk fits.
static chunk *find_fit(arena *a, size_t size) {
  if (size >= SMALL_LIMIT) size += ((size_t)1 << (highest_bit(size) - SECOND_LEVEL_LOG2)) - 1;
  unsigned first, second;
  list_of(size, &first, &second);
  if (first >= FIRST_LEVEL) return NULL;
  uint32_t second_map = a->second_map[first] & (~0u << second);
  if (second_map == 0) {
    uint32_t first_map = first + 1 < 32 ? a->first_map & (~0u << (first + 1)) : 0;
    if (first_map == 0) return NULL;
    first = (unsigned)__builtin_ctz(first_map);
    second_map = a->second_map[first];
  }
  return a->lists[first][__builtin_ctz(second_map)];
}

// Marks c free, merged with its free neighbours, and lists it.
static void release_chunk(arena *a, chunk *c) {
  size_t size = chunk_size(c);
  chunk *next = after(c);
  if (next->head & IS_FREE) {
    size_t next_size = chunk_size(next);
    unlink_chunk(a, next, next_size);
    size += next_size;
  }
  if (c->head & PREVIOUS_FREE) {
    chunk *previous = chunk_at((char *)c - c->previous_size);
    size_t previous_size = chunk_size(previous);
    unlink_chunk(a, previous, previous_size);
    size += previous_size;
    c = previous;
  }
  c->head = size | IS_FREE | (c->head & PREVIOUS_FREE);
  chunk *following = chunk_at((char *)c + size);
  following->previous_size = size;
  following->head |= PREVIOUS_FREE;
  insert(a, c, size);
}

// Records `owner` for every grow step of [start, start + bytes); a missing leaf is carved from
// that memory at `usable`. Returns where the caller's memory starts. Under grow_lock.
static char *set_owner(arena *owner, char *start, size_t bytes, char *usable) {
  for (uintptr_t step = (uintptr_t)start >> GROW_SHIFT; step < ((uintptr_t)start + bytes) >> GROW_SHIFT; step++) {
    _Atomic(arena *) *leaf = owner_leaves[step >> OWNER_LEAF_SHIFT];
    if (leaf == NULL) {
      leaf = (_Atomic(arena *) *)usable;
      usable += sizeof(arena *) << OWNER_LEAF_SHIFT;
      memset((void *)leaf, 0, sizeof(arena *) << OWNER_LEAF_SHIFT);
      owner_leaves[step >> OWNER_LEAF_SHIFT] = leaf;
    }
    atomic_store_explicit(&leaf[step & ((1u << OWNER_LEAF_SHIFT) - 1)], owner, memory_order_release);
  }
  return usable;
}

static inline arena *owner_of(const void *p) {
  uintptr_t step = (uintptr_t)p >> GROW_SHIFT;
  return atomic_load_explicit(&owner_leaves[step >> OWNER_LEAF_SHIFT][step & ((1u << OWNER_LEAF_SHIFT) - 1)],
                              memory_order_relaxed);
}

// Takes memory from the break for `owner` (NULL: for a new arena, which it returns laid out
// at the front). Lists a free chunk of at least `need` bytes in the owner.
static arena *grow(arena *owner, size_t need) {
  // Room for the need rounded up to its list, the headers, a new arena and an owner-map leaf.
  size_t bytes = need + (need >> SECOND_LEVEL_LOG2) + 2 * HEADER + sizeof(arena) + 2 * ALIGNMENT +
                 (sizeof(arena *) << OWNER_LEAF_SHIFT);
  bytes = (bytes + GROW_STEP - 1) & ~(GROW_STEP - 1);
  lock(&grow_lock);
  // The first piece also takes the break up to a step's start, so that every piece ends on one.
  uintptr_t top = (uintptr_t)sbrk(0);
  bytes += (GROW_STEP - (top & (GROW_STEP - 1))) & (GROW_STEP - 1);
  char *start = sbrk((intptr_t)bytes);
  if (start == (char *)-1) {
    unlock(&grow_lock);
    return NULL;
  }
  char *usable = start;
  if (owner == NULL) {
    owner = (arena *)(((uintptr_t)start + 15) & ~(uintptr_t)15);
    memset(owner, 0, sizeof *owner);
    usable = (char *)owner + sizeof *owner;
  }
  usable = set_owner(owner, start, bytes, usable);
  unlock(&grow_lock);
  char *end = start + bytes;
  chunk *c;
  if (start == owner->end && usable == start) {
    c = chunk_at(start - HEADER);  // the old end header becomes the new chunk's
  } else {
    c = chunk_at((char *)((((uintptr_t)usable + HEADER + ALIGNMENT - 1) & ~(uintptr_t)(ALIGNMENT - 1)) - HEADER));
    c->head = 0;  // the first chunk of a piece has no previous one
  }
  size_t size = (size_t)(end - HEADER - (char *)c) & SIZE_MASK;
  c->head = size | (c->head & PREVIOUS_FREE);
  chunk *end_header = chunk_at((char *)c + size);
  end_header->head = 0;
  owner->end = end;
  release_chunk(owner, c);
  return owner;
}

// Cuts `need` bytes from the front of free chunk c (already unlinked) and lists the rest.
static void *take(arena *a, chunk *c, size_t need) {
  size_t size = chunk_size(c);
  size_t previous_flag = c->head & PREVIOUS_FREE;
  if (size - need >= MIN_CHUNK) {
    chunk *rest = chunk_at((char *)c + need);
    rest->head = (size - need) | IS_FREE;
    after(rest)->previous_size = size - need;
    insert(a, rest, size - need);
    c->head = need | previous_flag;
  } else {
    c->head = size | previous_flag;
    after(c)->head &= ~PREVIOUS_FREE;
  }
  return (char *)c + HEADER;
}

static inline size_t chunk_for(size_t request) {
  size_t need = (request + WORD + ALIGNMENT - 1) & SIZE_MASK;
  return need < MIN_CHUNK ? MIN_CHUNK : need;
}

static void take_back_remote(arena *a) {
  chunk *c = atomic_exchange_explicit(&a->remote, NULL, memory_order_acquire);
  while (c != NULL) {
    chunk *next = c->next;
    release_chunk(a, c);
    c = next;
  }
}

// Merges every cached chunk; true if there was one.
static bool merge_cached(arena *a) {
  bool merged = false;
  for (size_t i = 0; i < CACHED_SIZES; i++) {
    for (chunk *c = a->cached[i], *next; c != NULL; c = next) {
      next = c->next;
      release_chunk(a, c);
      merged = true;
    }
    a->cached[i] = NULL;
    a->cached_count[i] = 0;
  }
  return merged;
}

static void *allocate_in(arena *a, size_t request) {
  if (request > MAX_REQUEST) {
    errno = ENOMEM;
    return NULL;
  }
  if (atomic_load_explicit(&a->remote, memory_order_relaxed) != NULL) take_back_remote(a);
  size_t need = chunk_for(request);
  if (CACHE_MAX > 0 && need <= CACHED_MAX_SIZE) {
    chunk *cached = a->cached[need / ALIGNMENT];
    if (cached != NULL) {
      a->cached[need / ALIGNMENT] = cached->next;
      a->cached_count[need / ALIGNMENT]--;
      return (char *)cached + HEADER;
    }
  }
  chunk *c = find_fit(a, need);
  if (c == NULL && CACHE_MAX > 0 && merge_cached(a)) c = find_fit(a, need);
  if (c == NULL) {
    if (grow(a, need) == NULL) {
      errno = ENOMEM;
      return NULL;
    }
    c = find_fit(a, need);
    if (c == NULL) {
      errno = ENOMEM;
      return NULL;
    }
  }
  unlink_chunk(a, c, chunk_size(c));
  return take(a, c, need);
}

static void give_to(arena *owner, chunk *c) {
  chunk *head = atomic_load_explicit(&owner->remote, memory_order_relaxed);
  do {
    c->next = head;
  } while (!atomic_compare_exchange_weak_explicit(&owner->remote, &head, c, memory_order_release,
                                                  memory_order_relaxed));
}

static void thread_exits(void *value) {
  arena *a = value;
  lock(&grow_lock);
  a->next_idle = idle_arenas;
  idle_arenas = a;
  unlock(&grow_lock);
  own_arena = NULL;
}

static void make_exit_key(void) { pthread_key_create(&exit_key, thread_exits); }

static arena *thread_arena(void) {
  arena *a = own_arena;
  if (a != NULL) return a;
  pthread_once(&exit_key_once, make_exit_key);
  lock(&grow_lock);
  a = idle_arenas;
  if (a != NULL) idle_arenas = a->next_idle;
  unlock(&grow_lock);
  if (a == NULL) a = grow(NULL, MIN_CHUNK);
  if (a == NULL) return NULL;
  own_arena = a;
  pthread_setspecific(exit_key, a);
  return a;
}

void *malloc(size_t request) {
  arena *a = thread_arena();
  if (a == NULL) {
    errno = ENOMEM;
    return NULL;
  }
  return allocate_in(a, request);
}

void free(void *p) {
  if (p == NULL) return;
  chunk *c = chunk_of(p);
  arena *owner = owner_of(p);
  if (owner == own_arena) {
    size_t size = chunk_size(c);
    if (CACHE_MAX > 0 && size <= CACHED_MAX_SIZE && owner->cached_count[size / ALIGNMENT] < CACHE_MAX) {
      c->next = owner->cached[size / ALIGNMENT];
      owner->cached[size / ALIGNMENT] = c;
      owner->cached_count[size / ALIGNMENT]++;
      return;
    }
    release_chunk(owner, c);
  } else {
    give_to(owner, c);
  }
}

void *calloc(size_t count, size_t size) {
  if (size != 0 && count > MAX_REQUEST / size) {
    errno = ENOMEM;
    return NULL;
  }
  void *p = malloc(count * size);
  if (p != NULL) memset(p, 0, count * size);
  return p;
}

size_t malloc_usable_size(void *p) { return p == NULL ? 0 : chunk_size(chunk_of(p)) - WORD; }

void *realloc(void *p, size_t size) {
  if (p == NULL) return malloc(size);
  size_t usable = malloc_usable_size(p);
  if (size <= usable) return p;
  void *moved = malloc(size);
  if (moved == NULL) return NULL;
  memcpy(moved, p, usable);
  free(p);
  return moved;
}

// A block whose payload is a multiple of `alignment` (a power of two): a larger one, with the
// chunk before the aligned payload given back.
static void *aligned_in(arena *a, size_t alignment, size_t request) {
  if (alignment <= ALIGNMENT) return allocate_in(a, request);
  if (request > MAX_REQUEST || alignment > MAX_REQUEST) {
    errno = ENOMEM;
    return NULL;
  }
  char *p = allocate_in(a, request + alignment + MIN_CHUNK);
  if (p == NULL) return NULL;
  chunk *c = chunk_of(p);
  char *aligned = (char *)(((uintptr_t)p + alignment - 1) & ~(uintptr_t)(alignment - 1));
  if (aligned == p) return p;
  if ((size_t)(aligned - p) < MIN_CHUNK) aligned += alignment;
  size_t front = (size_t)(aligned - p), size = chunk_size(c);
  chunk *moved = chunk_of(aligned);
  moved->head = size - front;  // in use; its previous (the front) is freed next
  c->head = front | (c->head & PREVIOUS_FREE);
  release_chunk(a, c);  // sets moved's previous size and flag
  return aligned;
}

void *memalign(size_t alignment, size_t size) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    errno = EINVAL;
    return NULL;
  }
  arena *a = thread_arena();
  return a == NULL ? NULL : aligned_in(a, alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void *p = memalign(alignment, size);
  if (p == NULL) return ENOMEM;
  *result = p;
  return 0;
}

void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

void *emscripten_builtin_malloc(size_t size) {
  lock(&builtin_lock);
  void *p = allocate_in(&builtin_arena, size);
  unlock(&builtin_lock);
  return p;
}

void *emscripten_builtin_memalign(size_t alignment, size_t size) {
  lock(&builtin_lock);
  void *p = aligned_in(&builtin_arena, alignment, size);
  unlock(&builtin_lock);
  return p;
}

void emscripten_builtin_free(void *p) {
  if (p == NULL) return;
  arena *owner = owner_of(p);
  if (owner != &builtin_arena) {
    give_to(owner, chunk_of(p));
    return;
  }
  lock(&builtin_lock);
  release_chunk(&builtin_arena, chunk_of(p));
  unlock(&builtin_lock);
}

void *__libc_malloc(size_t size) { return malloc(size); }
void *__libc_calloc(size_t count, size_t size) { return calloc(count, size); }
void *__libc_realloc(void *p, size_t size) { return realloc(p, size); }
void __libc_free(void *p) { free(p); }
void *__libc_memalign(size_t alignment, size_t size) { return memalign(alignment, size); }
