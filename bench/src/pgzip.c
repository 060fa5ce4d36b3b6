// pgzip: a real application as a workload. The parallel gzip of examples/pgzip, linked with
// zlib-ng (a third-party CMake project built through wasmscale's toolchain file), compresses a
// directory of files on N threads: each thread takes the next file, reads it whole, deflates it
// and writes NAME.gz. Allocator traffic (zlib's window and hash tables, the file buffers) and
// file traffic (whole reads, whole writes) come from the same program.
//
// The input is made once, before the first repetition: FILES files of text-like data (words
// drawn by a seeded generator) under --dir. Each repetition writes every .gz again. The
// checksum is the total compressed size, the same for every allocator and file system; after
// each repetition (untimed) every output is inflated and compared with its input.
#include "harness.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "../../examples/pgzip/gzip_file.h"

enum { FILES = 32, PATH_BYTES = 512 };
#define DEFAULT_FILE_BYTES (256.0 * 1024)

typedef struct pgzip_run {
  const bench_args *args;
  size_t file_bytes;
  char input[PATH_BYTES], output[PATH_BYTES];
  _Atomic int next_file;
  _Atomic uint64_t bytes_out;
} pgzip_run;

static const char *const WORDS[] = {"the", "file", "system", "thread", "memory", "block", "run", "page", "span",
                                    "heap", "worker", "wasm", "node", "browser", "compress", "stream", "window",
                                    "lock", "free", "alloc", "host", "mount", "directory", "record"};

// File `index`'s contents: words and numbers, compressible about as well as source text.
static void make_text(unsigned char *data, size_t size, int index) {
  uint64_t state = (uint64_t)index * 7919;
  for (size_t at = 0; at < size;) {
    state = bench_mix64(state);
    const char *word = WORDS[state % (sizeof WORDS / sizeof *WORDS)];
    char piece[32];
    int length = (state >> 8) % 5 == 0 ? snprintf(piece, sizeof piece, "%s %u\n", word, (unsigned)(state >> 40) % 1000)
                                       : snprintf(piece, sizeof piece, "%s ", word);
    for (int i = 0; i < length && at < size; i++) data[at++] = (unsigned char)piece[i];
  }
}

static void file_path(char *out, const char *dir, int index, const char *suffix) {
  if (snprintf(out, PATH_BYTES, "%s/f%02d.txt%s", dir, index, suffix) >= PATH_BYTES) bench_fail("pgzip: --dir is too long");
}

static void make_inputs(pgzip_run *run) {
  if (mkdir(run->input, 0777) != 0 && errno != EEXIST) bench_fail("pgzip: mkdir %s: %s", run->input, strerror(errno));
  if (mkdir(run->output, 0777) != 0 && errno != EEXIST) bench_fail("pgzip: mkdir %s: %s", run->output, strerror(errno));
  unsigned char *data = malloc(run->file_bytes);
  if (data == NULL) bench_fail("pgzip: out of memory");
  for (int i = 0; i < FILES; i++) {
    char path[PATH_BYTES];
    file_path(path, run->input, i, "");
    make_text(data, run->file_bytes, i);
    FILE *out = fopen(path, "wb");
    if (out == NULL || fwrite(data, 1, run->file_bytes, out) != run->file_bytes || fclose(out) != 0) {
      bench_fail("pgzip: cannot write %s: %s", path, strerror(errno));
    }
  }
  free(data);
}

static void pgzip_thread(int index, void *context) {
  (void)index;
  pgzip_run *run = context;
  for (int i; (i = atomic_fetch_add(&run->next_file, 1)) < FILES;) {
    char input[PATH_BYTES], output[PATH_BYTES];
    file_path(input, run->input, i, "");
    file_path(output, run->output, i, ".gz");
    size_t size_in = 0, size_out = 0;
    if (gzip_file(input, output, &size_in, &size_out) != 0) bench_fail("pgzip: file %d failed: %s", i, strerror(errno));
    if (size_in != run->file_bytes) bench_fail("pgzip: read %zu bytes of %s, wrote %zu", size_in, input, run->file_bytes);
    atomic_fetch_add(&run->bytes_out, size_out);
    bench_sample_heap();
  }
}

static uint64_t pgzip_rep(const bench_args *args, void *context) {
  pgzip_run *run = context;
  atomic_store(&run->next_file, 0);
  atomic_store(&run->bytes_out, 0);
  bench_run_threads(args->threads, pgzip_thread, run);
  return atomic_load(&run->bytes_out);
}

// Every .gz inflates to its input (the inputs are made again here, not read back).
static void pgzip_verify(const bench_args *args, uint64_t checksum, void *context) {
  (void)args, (void)checksum;
  pgzip_run *run = context;
  unsigned char *expected = malloc(run->file_bytes), *actual = malloc(run->file_bytes + 1);
  unsigned char *packed = malloc(2 * run->file_bytes + 1024);
  if (expected == NULL || actual == NULL || packed == NULL) bench_fail("pgzip: out of memory");
  for (int i = 0; i < FILES; i++) {
    char path[PATH_BYTES];
    file_path(path, run->output, i, ".gz");
    FILE *in = fopen(path, "rb");
    size_t packed_size = in != NULL ? fread(packed, 1, 2 * run->file_bytes + 1024, in) : 0;
    if (in != NULL) fclose(in);
    z_stream stream = {.next_in = packed, .avail_in = (uInt)packed_size, .next_out = actual,
                       .avail_out = (uInt)run->file_bytes + 1};
    int status = inflateInit2(&stream, 15 + 16) == Z_OK ? inflate(&stream, Z_FINISH) : Z_DATA_ERROR;
    size_t size = stream.total_out;
    inflateEnd(&stream);
    make_text(expected, run->file_bytes, i);
    if (status != Z_STREAM_END || size != run->file_bytes || memcmp(actual, expected, size) != 0) {
      bench_fail("pgzip: %s does not inflate to its input", path);
    }
  }
  free(expected);
  free(actual);
  free(packed);
}

int main(int argc, char **argv) {
  bench_args args = bench_parse_args(argc, argv, "files");
  if (strcmp(args.variant, "files") != 0) bench_fail("pgzip: unknown variant %s", args.variant);
  static pgzip_run run;
  run.args = &args;
  run.file_bytes = (size_t)(DEFAULT_FILE_BYTES * args.scale);
  if (run.file_bytes < 1024) run.file_bytes = 1024;
  if (snprintf(run.input, PATH_BYTES, "%s/pgzip-in", args.dir) >= PATH_BYTES ||
      snprintf(run.output, PATH_BYTES, "%s/pgzip-out", args.dir) >= PATH_BYTES) {
    bench_fail("pgzip: --dir=%s is too long", args.dir);
  }
  make_inputs(&run);
  bench_set_ops(FILES);
  bench_main_loop(&args, pgzip_rep, pgzip_verify, &run);
  return 0;
}
