// The checks of the backend test programs (host.c, rawfs.c, opfs.c): a failed CHECK prints
// "NAME: what (errno N text)", NAME being the program's CHECK_NAME, counts the failure and
// goes on, so one run reports every failure; main() exits non-zero when `failures` is not 0.
#ifndef WASMSCALE_TESTS_FS_CHECK_H
#define WASMSCALE_TESTS_FS_CHECK_H

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static _Atomic int failures;

#define CHECK(condition, ...)                                     \
  do {                                                            \
    if (!(condition)) {                                           \
      printf(CHECK_NAME ": " __VA_ARGS__);                        \
      printf(" (errno %d %s)\n", errno, strerror(errno));         \
      atomic_fetch_add(&failures, 1);                             \
    }                                                             \
  } while (0)

#endif
