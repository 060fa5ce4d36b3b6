// A parallel word indexer: the kind of program wasmscale is for. Threads take the files under
// a directory one at a time, count the words of each in a hash table of their own, and the
// tables are merged into one index written as a text file: "COUNT FILES WORD" per line, most
// frequent first.
//
//   usage: indexer INPUT_DIR OUTPUT_FILE [THREADS]
//
// Every file call is plain POSIX, so where the files live is the build's choice: a host
// directory on Node (index-host-dir.mjs, wasmscale-cc --mount), preloaded files, or memory.
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_THREADS 16
#define MAX_WORD 64

typedef struct entry {
  char *word;  // NULL: an empty slot
  uint64_t count;
  uint32_t files, last_file;  // last_file: the file (plus one) that last counted this word
} entry;

typedef struct table {
  entry *slots;
  size_t mask, used;
} table;

static char **paths;
static size_t path_count, path_capacity;
static _Atomic size_t next_path;
static _Atomic uint64_t bytes_read;
static table tables[MAX_THREADS];

static void *checked(void *pointer) {
  if (pointer == NULL) {
    fprintf(stderr, "indexer: out of memory\n");
    exit(1);
  }
  return pointer;
}

static uint64_t hash_word(const char *word, size_t length) {
  uint64_t hash = 1469598103934665603u;
  for (size_t i = 0; i < length; i++) hash = (hash ^ (unsigned char)word[i]) * 1099511628211u;
  return hash;
}

static void table_init(table *t) {
  t->mask = 1023;
  t->used = 0;
  t->slots = checked(calloc(t->mask + 1, sizeof *t->slots));
}

static entry *table_slot(table *t, const char *word, size_t length) {
  for (size_t at = hash_word(word, length) & t->mask;; at = (at + 1) & t->mask) {
    entry *e = &t->slots[at];
    if (e->word == NULL || (strncmp(e->word, word, length) == 0 && e->word[length] == '\0')) return e;
  }
}

static void table_grow(table *t) {
  table larger = {checked(calloc((t->mask + 1) * 2, sizeof(entry))), t->mask * 2 + 1, t->used};
  for (size_t i = 0; i <= t->mask; i++) {
    if (t->slots[i].word != NULL) *table_slot(&larger, t->slots[i].word, strlen(t->slots[i].word)) = t->slots[i];
  }
  free(t->slots);
  *t = larger;
}

// Counts `count` occurrences of a word in file number `file` (1-based).
static void table_add(table *t, const char *word, size_t length, uint64_t count, uint32_t files, uint32_t file) {
  if ((t->used + 1) * 4 > (t->mask + 1) * 3) table_grow(t);
  entry *e = table_slot(t, word, length);
  if (e->word == NULL) {
    e->word = checked(strndup(word, length));
    t->used++;
  }
  e->count += count;
  if (file == 0) {
    e->files += files;  // merging: the thread tables saw disjoint files
  } else if (e->last_file != file) {
    e->files++;
    e->last_file = file;
  }
}

static void add_path(const char *path) {
  if (path_count == path_capacity) {
    path_capacity = path_capacity ? path_capacity * 2 : 64;
    paths = checked(realloc(paths, path_capacity * sizeof *paths));
  }
  paths[path_count++] = checked(strdup(path));
}

// Collects the regular files under `dir`, skipping the index being written.
static int collect(const char *dir, const char *skip) {
  DIR *listing = opendir(dir);
  if (listing == NULL) {
    fprintf(stderr, "indexer: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  for (struct dirent *item; (item = readdir(listing)) != NULL;) {
    if (item->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, item->d_name);
    struct stat info;
    if (stat(path, &info) != 0 || strcmp(path, skip) == 0) continue;
    if (S_ISDIR(info.st_mode)) collect(path, skip);
    else if (S_ISREG(info.st_mode)) add_path(path);
  }
  closedir(listing);
  return 0;
}

static void index_file(table *t, const char *path, uint32_t file) {
  FILE *in = fopen(path, "rb");
  if (in == NULL) {
    fprintf(stderr, "indexer: %s: %s\n", path, strerror(errno));
    return;
  }
  char word[MAX_WORD];
  size_t length = 0;
  uint64_t bytes = 0;
  for (int c; (c = getc(in)) != EOF; bytes++) {
    if (isalnum(c)) {
      if (length < MAX_WORD) word[length++] = (char)tolower(c);
    } else if (length > 0) {
      table_add(t, word, length, 1, 0, file);
      length = 0;
    }
  }
  if (length > 0) table_add(t, word, length, 1, 0, file);
  fclose(in);
  atomic_fetch_add(&bytes_read, bytes);
}

static void *worker(void *arg) {
  table *t = arg;
  table_init(t);
  for (size_t i; (i = atomic_fetch_add(&next_path, 1)) < path_count;) index_file(t, paths[i], (uint32_t)i + 1);
  return NULL;
}

static int by_count(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->count != y->count) return x->count < y->count ? 1 : -1;
  return strcmp(x->word, y->word);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: indexer INPUT_DIR OUTPUT_FILE [THREADS]\n");
    return 2;
  }
  int threads = argc > 3 ? atoi(argv[3]) : 4;
  if (threads < 1 || threads > MAX_THREADS) {
    fprintf(stderr, "indexer: THREADS must be 1-%d\n", MAX_THREADS);
    return 2;
  }
  if (collect(argv[1], argv[2]) != 0) return 1;
  pthread_t ids[MAX_THREADS];
  for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, worker, &tables[i]);
  for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);

  table merged;
  table_init(&merged);
  for (int i = 0; i < threads; i++) {
    for (size_t s = 0; s <= tables[i].mask; s++) {
      entry *e = &tables[i].slots[s];
      if (e->word != NULL) table_add(&merged, e->word, strlen(e->word), e->count, e->files, 0);
    }
  }
  entry *sorted = checked(malloc((merged.used + 1) * sizeof *sorted));
  size_t words = 0;
  for (size_t s = 0; s <= merged.mask; s++) {
    if (merged.slots[s].word != NULL) sorted[words++] = merged.slots[s];
  }
  qsort(sorted, words, sizeof *sorted, by_count);

  FILE *out = fopen(argv[2], "w");
  if (out == NULL) {
    fprintf(stderr, "indexer: %s: %s\n", argv[2], strerror(errno));
    return 1;
  }
  for (size_t i = 0; i < words; i++) fprintf(out, "%llu %u %s\n", (unsigned long long)sorted[i].count, sorted[i].files, sorted[i].word);
  if (fclose(out) != 0) {
    fprintf(stderr, "indexer: writing %s: %s\n", argv[2], strerror(errno));
    return 1;
  }
  printf("indexer: %zu files, %llu bytes, %zu distinct words, %d threads -> %s\n", path_count,
         (unsigned long long)atomic_load(&bytes_read), words, threads, argv[2]);
  for (size_t i = 0; i < words && i < 5; i++) printf("  %8llu  %s\n", (unsigned long long)sorted[i].count, sorted[i].word);
  return 0;
}
