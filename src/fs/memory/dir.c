// Memory-backend directories. Names are found in O(1) through an open-addressing hash index
// over a slot array; a slot's index doubles as the readdir cookie, so a listing in progress
// sees every entry that lives throughout it exactly once, whatever else is added or removed.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "memory.h"

#define TOMBSTONE UINT32_MAX

static uint32_t hash_name(const char *name, size_t length) {
  uint32_t hash = 2166136261u;  // FNV-1a
  for (size_t i = 0; i < length; i++) hash = (hash ^ (uint8_t)name[i]) * 16777619u;
  return hash;
}

#if WS_DEBUG >= 2
// The debug build's validator, after every change: each live slot's entry has its name's hash
// and a node, and the index finds it at its slot; freed slots are empty; the index holds as many
// entries as there are live slots, and counts its tombstones in index_used.
static int64_t find_position(const mem_dir *dir, const char *name, size_t length, uint32_t hash);

static void validate(const mem_dir *dir) {
  uint32_t live = 0;
  for (uint32_t slot = 0; slot < dir->slot_count; slot++) {
    const mem_entry *entry = dir->slots[slot];
    if (entry == NULL) continue;
    live++;
    ws_assert(entry->node != NULL && entry->length > 0 && memchr(entry->name, '/', entry->length) == NULL);
    ws_assert(entry->hash == hash_name(entry->name, entry->length));
    int64_t at = find_position(dir, entry->name, entry->length, entry->hash);
    ws_assert(at >= 0 && dir->index[at] == slot + 1);
  }
  ws_assert(live == dir->live && dir->free_count + live == dir->slot_count);
  for (uint32_t i = 0; i < dir->free_count; i++) {
    ws_assert(dir->free_slots[i] < dir->slot_count && dir->slots[dir->free_slots[i]] == NULL);
  }
  uint32_t indexed = 0, used = 0;
  for (uint32_t at = 0; dir->index != NULL && at <= dir->index_mask; at++) {
    used += dir->index[at] != 0;
    indexed += dir->index[at] != 0 && dir->index[at] != TOMBSTONE;
  }
  ws_assert(indexed == live && used == dir->index_used);
}
#else
static void validate(const mem_dir *dir) { (void)dir; }
#endif

mem_dir *_ws_mem_dir_new(void) { return calloc(1, sizeof(mem_dir)); }

void _ws_mem_dir_free(mem_dir *dir) {
  if (dir == NULL) return;
  for (uint32_t i = 0; i < dir->slot_count; i++) {
    if (dir->slots[i] != NULL) {
      _ws_node_unref(dir->slots[i]->node);
      free(dir->slots[i]);
    }
  }
  free(dir->slots);
  free(dir->free_slots);
  free(dir->index);
  free(dir);
}

// Index position holding `name`, or -1.
static int64_t find_position(const mem_dir *dir, const char *name, size_t length, uint32_t hash) {
  if (dir->index == NULL) return -1;
  for (uint32_t at = hash & dir->index_mask;; at = (at + 1) & dir->index_mask) {
    uint32_t value = dir->index[at];
    if (value == 0) return -1;
    if (value == TOMBSTONE) continue;
    const mem_entry *entry = dir->slots[value - 1];
    if (entry->hash == hash && entry->length == length && memcmp(entry->name, name, length) == 0) return at;
  }
}

ws_node *_ws_mem_dir_find(const mem_dir *dir, const char *name, size_t length) {
  int64_t at = find_position(dir, name, length, hash_name(name, length));
  return at < 0 ? NULL : dir->slots[dir->index[at] - 1]->node;
}

mem_entry *_ws_mem_entry_new(const char *name, size_t length, ws_node *node) {
  mem_entry *entry = malloc(sizeof *entry + length);
  if (entry == NULL) return NULL;
  entry->node = node;
  entry->hash = hash_name(name, length);
  entry->length = (uint16_t)length;
  memcpy(entry->name, name, length);
  return entry;
}

static void index_insert(uint32_t *index, uint32_t mask, uint32_t hash, uint32_t value) {
  uint32_t at = hash & mask;
  while (index[at] != 0 && index[at] != TOMBSTONE) at = (at + 1) & mask;
  index[at] = value;
}

// Rebuilds the index at `capacity` positions, dropping tombstones.
static int rebuild_index(mem_dir *dir, uint32_t capacity) {
  uint32_t *index = calloc(capacity, sizeof *index);
  if (index == NULL) return -ENOSPC;
  for (uint32_t i = 0; i < dir->slot_count; i++) {
    if (dir->slots[i] != NULL) index_insert(index, capacity - 1, dir->slots[i]->hash, i + 1);
  }
  free(dir->index);
  dir->index = index;
  dir->index_mask = capacity - 1;
  dir->index_used = dir->live;
  validate(dir);
  return 0;
}

int _ws_mem_dir_reserve(mem_dir *dir) {
  if (dir->free_count == 0 && dir->slot_count == dir->slot_capacity) {
    uint32_t capacity = dir->slot_capacity ? dir->slot_capacity * 2 : 8;
    mem_entry **slots = realloc(dir->slots, capacity * sizeof *slots);
    if (slots == NULL) return -ENOSPC;
    dir->slots = slots;
    uint32_t *free_slots = realloc(dir->free_slots, capacity * sizeof *free_slots);
    if (free_slots == NULL) return -ENOSPC;  // slots stays larger: harmless
    dir->free_slots = free_slots;
    dir->slot_capacity = capacity;
  }
  uint32_t capacity = dir->index_mask + 1;
  if (dir->index == NULL || (dir->index_used + 1) * 4 > capacity * 3) {
    uint32_t wanted = 16;
    while (wanted * 3 < (dir->live + 1) * 8) wanted *= 2;  // live entries at most 3/8 full after
    return rebuild_index(dir, wanted);
  }
  return 0;
}

void _ws_mem_dir_put(mem_dir *dir, mem_entry *entry) {
  uint32_t slot = dir->free_count > 0 ? dir->free_slots[--dir->free_count] : dir->slot_count++;
  dir->slots[slot] = entry;
  uint32_t at = entry->hash & dir->index_mask;
  while (dir->index[at] != 0 && dir->index[at] != TOMBSTONE) at = (at + 1) & dir->index_mask;
  if (dir->index[at] == 0) dir->index_used++;
  dir->index[at] = slot + 1;
  dir->live++;
  validate(dir);
}

ws_node *_ws_mem_dir_take(mem_dir *dir, const char *name, size_t length) {
  int64_t at = find_position(dir, name, length, hash_name(name, length));
  if (at < 0) return NULL;
  uint32_t slot = dir->index[at] - 1;
  ws_node *node = dir->slots[slot]->node;
  free(dir->slots[slot]);
  dir->slots[slot] = NULL;
  dir->free_slots[dir->free_count++] = slot;
  dir->index[at] = TOMBSTONE;
  dir->live--;
  validate(dir);
  return node;
}

int _ws_mem_dir_entry(const mem_dir *dir, uint64_t cookie, ws_dirent *entry, uint64_t *next) {
  for (uint64_t slot = cookie; slot < dir->slot_count; slot++) {
    const mem_entry *found = dir->slots[slot];
    if (found == NULL) continue;
    entry->ino = found->node->ino;
    entry->type = found->node->type;
    entry->length = found->length;
    memcpy(entry->name, found->name, found->length);
    entry->name[found->length] = '\0';
    *next = slot + 1;
    return 1;
  }
  return 0;
}
