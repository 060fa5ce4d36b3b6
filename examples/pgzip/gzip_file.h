// One file to one gzip file, with zlib: what each pgzip thread does per file (pgzip.c), and
// what the benchmark's pgzip workload times (bench/src/pgzip.c).
#ifndef PGZIP_GZIP_FILE_H
#define PGZIP_GZIP_FILE_H

#include <stddef.h>

// Reads `input` whole, deflates it (level 6) into a gzip stream and writes that to `output`.
// Returns 0 and the two sizes, or -1 with errno set (EIO when zlib refused) and a line on stdout
// naming the file.
int gzip_file(const char *input, const char *output, size_t *size_in, size_t *size_out);

#endif
