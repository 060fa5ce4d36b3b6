// fs: small-file-system-call workloads. Built twice by the runner: once where main() runs on
// the browser/Node main thread, once with -sPROXY_TO_PTHREAD where it runs on a pthread, so
// the same calls are timed from both places.
//
// Variants:
//   records    one file of 100-byte records: write them all, then 40 passes that seek to each
//              record in a scattered order, overwrite it, seek back and read it back;
//   smallfile  cycles of create, write, close, reopen, read, close, unlink;
//   files      the records work split over N threads, each on a file of its own, at once;
//   records-work
//              the records variant's own work (its records made, compared and summed) without a
//              file call: the part of every file system's records time that is not the file
//              system's. Same checksum as records; its ops are records' calls, so µs per op compare.
//
// Every read is compared with what was written. A call the file system does not implement
// (ENOSYS) ends the run as unsupported, naming the call; any other failure is an error.
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { RECORD_BYTES = 100, CHUNK_RECORDS = 64 };
#define DEFAULT_RECORDS 1000.0
#define PASSES 40
#define DEFAULT_SMALLFILE_CYCLES 6000.0

typedef struct fs_run {
  const bench_args *args;
  uint64_t records;  // records per file (records, files)
  uint64_t cycles;   // smallfile cycles
  int rep;           // makes each repetition's file names fresh
  _Atomic uint64_t checksum;
} fs_run;

static void check(long result, const char *call, const char *path) {
  if (result >= 0) return;
  if (errno == ENOSYS) bench_unsupported("%s is not implemented by this file system", call);
  bench_fail("fs: %s(%s) failed: %s", call, path, strerror(errno));
}

static void check_size(long result, long expected, const char *call, const char *path) {
  check(result, call, path);
  if (result != expected) bench_fail("fs: %s(%s) moved %ld bytes, expected %ld", call, path, result, expected);
}

static void fill_record(unsigned char *record, uint64_t index, uint64_t version) {
  uint64_t seed = bench_mix64(index * 131 + version);
  for (int i = 0; i < RECORD_BYTES; i++) record[i] = (unsigned char)((seed >> (8 * (i % 8))) ^ (uint64_t)i);
}

static uint64_t record_sum(const unsigned char *record) {
  uint64_t sum = 0;
  for (int i = 0; i < RECORD_BYTES; i++) sum = sum * 31 + record[i];
  return sum;
}

// Overwrites then reads back records [begin, end) of one pass, in a scattered order.
static uint64_t record_pass(int fd, const char *path, uint64_t records, uint64_t pass, uint64_t begin, uint64_t end) {
  unsigned char expected[RECORD_BYTES], actual[RECORD_BYTES];
  uint64_t sum = 0;
  for (uint64_t i = begin; i < end; i++) {
    uint64_t index = (i * 7919 + pass * 104729) % records;  // 7919 is prime, so a permutation
    off_t offset = (off_t)(index * RECORD_BYTES);
    fill_record(expected, index, pass + 1);
    check_size((long)lseek(fd, offset, SEEK_SET), (long)offset, "lseek", path);
    check_size((long)write(fd, expected, RECORD_BYTES), RECORD_BYTES, "write", path);
    check_size((long)lseek(fd, offset, SEEK_SET), (long)offset, "lseek", path);
    check_size((long)read(fd, actual, RECORD_BYTES), RECORD_BYTES, "read", path);
    if (memcmp(expected, actual, RECORD_BYTES) != 0) {
      bench_fail("fs: record %llu of %s read back wrong", (unsigned long long)index, path);
    }
    sum += record_sum(actual);
  }
  return sum;
}

static uint64_t (*volatile record_pass_fn)(int, const char *, uint64_t, uint64_t, uint64_t, uint64_t) = record_pass;

// Hands back the record it is given, opaquely: the records variant's read stands for this, so
// the comparison and the sum still run on a record the compiler cannot see through.
static const unsigned char *record_itself(const unsigned char *record) { return record; }
static const unsigned char *(*volatile read_back)(const unsigned char *) = record_itself;

// record_pass without the file calls: the same records made, compared and summed.
static uint64_t record_pass_work(uint64_t records, uint64_t pass, uint64_t begin, uint64_t end) {
  unsigned char expected[RECORD_BYTES];
  uint64_t sum = 0;
  for (uint64_t i = begin; i < end; i++) {
    uint64_t index = (i * 7919 + pass * 104729) % records;
    fill_record(expected, index, pass + 1);
    const unsigned char *actual = read_back(expected);
    if (memcmp(expected, actual, RECORD_BYTES) != 0) bench_fail("fs: record %llu made wrong", (unsigned long long)index);
    sum += record_sum(actual);
  }
  return sum;
}

static uint64_t (*volatile record_pass_work_fn)(uint64_t, uint64_t, uint64_t, uint64_t) = record_pass_work;

static uint64_t records_work(uint64_t records) {
  unsigned char record[RECORD_BYTES];
  for (uint64_t i = 0; i < records; i++) {  // the file's first records, as records_on_file makes them
    fill_record(record, i, 0);
    (void)read_back(record);
  }
  uint64_t sum = 0;
  for (uint64_t pass = 0; pass < PASSES; pass++) {
    for (uint64_t at = 0; at < records; at += CHUNK_RECORDS) {
      sum += record_pass_work_fn(records, pass, at, records - at < CHUNK_RECORDS ? records : at + CHUNK_RECORDS);
    }
  }
  return sum;
}

static uint64_t records_on_file(const char *path, uint64_t records) {
  unsigned char record[RECORD_BYTES];
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  check(fd, "open", path);
  for (uint64_t i = 0; i < records; i++) {
    fill_record(record, i, 0);
    check_size((long)write(fd, record, RECORD_BYTES), RECORD_BYTES, "write", path);
  }
  uint64_t sum = 0;
  for (uint64_t pass = 0; pass < PASSES; pass++) {
    for (uint64_t at = 0; at < records; at += CHUNK_RECORDS) {
      sum += record_pass_fn(fd, path, records, pass, at, records - at < CHUNK_RECORDS ? records : at + CHUNK_RECORDS);
    }
  }
  struct stat info;
  check(fstat(fd, &info), "fstat", path);
  if ((uint64_t)info.st_size != records * RECORD_BYTES) {
    bench_fail("fs: %s has %lld bytes, expected %llu", path, (long long)info.st_size,
               (unsigned long long)(records * RECORD_BYTES));
  }
  check(close(fd), "close", path);
  check(unlink(path), "unlink", path);  // repetitions must not pile files up in memory
  return sum;
}

static uint64_t smallfile_cycles(const char *path, uint64_t begin, uint64_t end) {
  // One byte more than the file holds: the read must stop at the end of the file.
  unsigned char expected[RECORD_BYTES], actual[RECORD_BYTES + 1];
  uint64_t sum = 0;
  for (uint64_t i = begin; i < end; i++) {
    fill_record(expected, i, 7);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    check(fd, "open", path);
    check_size((long)write(fd, expected, RECORD_BYTES), RECORD_BYTES, "write", path);
    check(close(fd), "close", path);
    fd = open(path, O_RDONLY);
    check(fd, "open", path);
    check_size((long)read(fd, actual, RECORD_BYTES + 1), RECORD_BYTES, "read", path);
    check(close(fd), "close", path);
    check(unlink(path), "unlink", path);
    if (memcmp(expected, actual, RECORD_BYTES) != 0) bench_fail("fs: %s read back wrong", path);
    sum += record_sum(actual);
  }
  return sum;
}

static uint64_t (*volatile smallfile_fn)(const char *, uint64_t, uint64_t) = smallfile_cycles;

enum { PATH_BYTES = 512 };

static void file_path(char *path, size_t size, const char *kind, const fs_run *run, int thread) {
  if (snprintf(path, size, "%s/wsb-%s-%d-%d", run->args->dir, kind, run->rep, thread) >= (int)size) {
    bench_fail("fs: --dir=%s is too long", run->args->dir);
  }
}

static void files_thread(int index, void *context) {
  fs_run *run = context;
  char path[PATH_BYTES];
  uint64_t begin, end;
  file_path(path, sizeof path, "files", run, index);
  bench_split(run->records, run->args->threads, index, &begin, &end);
  atomic_fetch_add(&run->checksum, records_on_file(path, end - begin));
}

static uint64_t fs_rep(const bench_args *args, void *context) {
  fs_run *run = context;
  char path[PATH_BYTES];
  run->rep++;
  atomic_store(&run->checksum, 0);
  if (strcmp(args->variant, "records") == 0) {
    file_path(path, sizeof path, "records", run, 0);
    return records_on_file(path, run->records);
  }
  if (strcmp(args->variant, "records-work") == 0) return records_work(run->records);
  if (strcmp(args->variant, "smallfile") == 0) {
    file_path(path, sizeof path, "small", run, 0);
    uint64_t sum = 0;
    for (uint64_t at = 0; at < run->cycles; at += CHUNK_RECORDS) {
      sum += smallfile_fn(path, at, run->cycles - at < CHUNK_RECORDS ? run->cycles : at + CHUNK_RECORDS);
    }
    return sum;
  }
  bench_run_threads(args->threads, files_thread, run);
  return atomic_load(&run->checksum);
}

// File-system calls one repetition makes (open, lseek, read, write, fstat, close, unlink).
static uint64_t count_calls(const fs_run *run) {
  const uint64_t per_record = 1 + 4 * PASSES, per_file = 4, per_cycle = 7;
  if (strcmp(run->args->variant, "smallfile") == 0) return run->cycles * per_cycle;
  int records = strcmp(run->args->variant, "records") == 0 || strcmp(run->args->variant, "records-work") == 0;
  if (records) return run->records * per_record + per_file;
  return run->records * per_record + per_file * (uint64_t)run->args->threads;
}

int main(int argc, char **argv) {
  bench_args args = bench_parse_args(argc, argv, "records");
  int known = strcmp(args.variant, "records") == 0 || strcmp(args.variant, "smallfile") == 0 ||
              strcmp(args.variant, "files") == 0 || strcmp(args.variant, "records-work") == 0;
  if (!known) bench_fail("fs: unknown variant '%s' (records, smallfile, files, records-work)", args.variant);
  if (strcmp(args.variant, "files") != 0 && args.threads != 1) {
    bench_fail("fs: variant '%s' runs on one thread; only 'files' takes --threads", args.variant);
  }
  if (mkdir(args.dir, 0777) != 0 && errno != EEXIST) check(-1, "mkdir", args.dir);
  fs_run run = {.args = &args,
                .records = (uint64_t)(DEFAULT_RECORDS * args.scale) + 1,
                .cycles = (uint64_t)(DEFAULT_SMALLFILE_CYCLES * args.scale) + 1};
  bench_set_ops(count_calls(&run));
  bench_main_loop(&args, fs_rep, NULL, &run);
  return 0;
}
