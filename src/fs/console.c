// Console output (stdout, stderr): each thread assembles its own lines, and each whole line
// goes to the host in one call (src/platform/*/console) from the thread that wrote it. So any
// thread prints without the main thread, and a line written in several pieces arrives whole
// even while other threads print. _ws_console_flush (at exit, on fsync) and a thread's exit
// hand over unfinished lines, and so does an abort (_ws_console_flush_at_abort): a line cut
// short is better than one lost.
#include <stdlib.h>
#include <string.h>

#include "../platform/platform.h"
#include "internal.h"

#define LINE_BYTES 1024  // per thread and stream; a longer line goes out in pieces

typedef struct console_lines {
  struct console_lines *next;  // every thread's, for _ws_console_flush (all_lock)
  pthread_mutex_t lock;        // its thread, or a flush from another one
  size_t used[2];
  char text[2][LINE_BYTES];
} console_lines;

static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static console_lines *all_lines;
static pthread_key_t lines_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static bool key_ok;

// Hands over what `lines` holds for `stream` (its lock held).
static void emit(console_lines *lines, int stream) {
  if (lines->used[stream - 1] > 0) ws_prim_console_write(stream, lines->text[stream - 1], lines->used[stream - 1]);
  lines->used[stream - 1] = 0;
}

static void release_lines(void *value) {  // the thread exits
  console_lines *lines = value;
  pthread_mutex_lock(&all_lock);
  for (console_lines **link = &all_lines; *link != NULL; link = &(*link)->next) {
    if (*link == lines) {
      *link = lines->next;
      break;
    }
  }
  pthread_mutex_unlock(&all_lock);
  emit(lines, 1);
  emit(lines, 2);
  pthread_mutex_destroy(&lines->lock);
  free(lines);
}

static void create_key(void) { key_ok = pthread_key_create(&lines_key, release_lines) == 0; }

// The calling thread's line buffers, or NULL when there is no memory for them.
static console_lines *own_lines(void) {
  pthread_once(&key_once, create_key);
  if (!key_ok) return NULL;
  console_lines *lines = pthread_getspecific(lines_key);
  if (lines != NULL) return lines;
  if ((lines = calloc(1, sizeof *lines)) == NULL) return NULL;
  pthread_mutex_init(&lines->lock, NULL);
  if (pthread_setspecific(lines_key, lines) != 0) {
    free(lines);
    return NULL;
  }
  pthread_mutex_lock(&all_lock);
  lines->next = all_lines;
  all_lines = lines;
  pthread_mutex_unlock(&all_lock);
  return lines;
}

void _ws_console_write(int stream, const char *data, size_t length) {
  console_lines *lines = own_lines();
  if (lines == NULL) {  // no buffer: pass the bytes on as they are rather than lose them
    ws_prim_console_write(stream, data, length);
    return;
  }
  pthread_mutex_lock(&lines->lock);
  size_t *used = &lines->used[stream - 1];
  char *text = lines->text[stream - 1];
  while (length > 0) {
    const char *newline = memchr(data, '\n', length);
    size_t piece = newline != NULL ? (size_t)(newline - data) + 1 : length;
    if (*used == 0 && newline != NULL) {
      ws_prim_console_write(stream, data, piece);  // a whole line: no copy
    } else {
      size_t room = LINE_BYTES - *used;
      if (piece > room) piece = room;
      memcpy(text + *used, data, piece);
      *used += piece;
      if (*used == LINE_BYTES || text[*used - 1] == '\n') emit(lines, stream);
    }
    data += piece;
    length -= piece;
  }
  pthread_mutex_unlock(&lines->lock);
}

void _ws_console_flush(void) {
  pthread_mutex_lock(&all_lock);
  for (console_lines *lines = all_lines; lines != NULL; lines = lines->next) {
    pthread_mutex_lock(&lines->lock);
    emit(lines, 1);
    emit(lines, 2);
    pthread_mutex_unlock(&lines->lock);
  }
  pthread_mutex_unlock(&all_lock);
}

// The same when the program stops in the middle (abort, out of memory), on whatever thread,
// each unfinished line ended with a newline, so that the runtime's message about the abort
// starts on a line of its own rather than in the middle of the program's. It waits for no
// lock: the aborting thread may hold one (it may be in the middle of a write), and another
// thread may be stopped holding one; buffers it cannot take are left.
void _ws_console_flush_at_abort(void) {
  if (pthread_mutex_trylock(&all_lock) != 0) return;
  for (console_lines *lines = all_lines; lines != NULL; lines = lines->next) {
    if (pthread_mutex_trylock(&lines->lock) != 0) continue;
    for (int stream = 1; stream <= 2; stream++) {
      if (lines->used[stream - 1] == 0) continue;
      emit(lines, stream);
      ws_prim_console_write(stream, "\n", 1);
    }
    pthread_mutex_unlock(&lines->lock);
  }
  pthread_mutex_unlock(&all_lock);
}
