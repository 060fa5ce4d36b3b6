// Crash consistency on a host mount: appends numbered records to /data/log.bin, fsyncs every
// fourth, and prints "synced N" once record N is fsynced, until killed. The test kills it at a
// random moment (SIGKILL) and checks the host file: every record up to the last one reported
// synced is there and whole, and any torn bytes are after it, at the end.
//   crash HOST_DIR
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"
#include "wasmscale/fs.h"

enum { RECORD = 64 };

// Record n: its number, a checksum of the rest, and bytes that depend on n.
static void fill(unsigned char *record, uint32_t n) {
  uint32_t sum = 0;
  for (int i = 8; i < RECORD; i++) {
    record[i] = (unsigned char)(n * 31 + (uint32_t)i * 7);
    sum = sum * 131 + record[i];
  }
  memcpy(record, &n, 4);
  memcpy(record + 4, &sum, 4);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: crash HOST_DIR\n");
    return 2;
  }
  if (t_mkdir("/data", 0755) != 0 || ws_fs_mount("/data", ws_fs_host_backend(), argv[1]) != 0) {
    printf("crash: cannot mount %s\n", argv[1]);
    return 1;
  }
  int fd = (int)t_open("/data/log.bin", O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) {
    printf("crash: cannot open the log\n");
    return 1;
  }
  unsigned char record[RECORD];
  for (uint32_t n = 0;; n++) {
    fill(record, n);
    if (t_write(fd, record, RECORD) != RECORD) {
      printf("crash: write %u failed\n", n);
      return 1;
    }
    if (n % 4 == 3) {
      if (t_fsync(fd) != 0) {
        printf("crash: fsync after %u failed\n", n);
        return 1;
      }
      printf("synced %u\n", n);
      fflush(stdout);
    }
  }
}
