// What the two fault sweeps share (out_of_memory.c: allocations; host_failures.c: host calls):
// a countdown that makes the k-th call from now fail once, and the round's check that a call
// answered 0 or a negative errno. A program defines SWEEP_NAME, the word its lines start with.
#ifndef WASMSCALE_TESTS_FS_FAIL_IN_TURN_H
#define WASMSCALE_TESTS_FS_FAIL_IN_TURN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

static _Atomic long countdown = -1;  // calls left before one fails; -1: none will
static _Atomic bool fired;           // the armed failure happened
static _Atomic long attempts;        // calls that could have failed, failed or not

// Whether the call being made fails (counted in `attempts` either way).
static bool fail_now(void) {
  atomic_fetch_add(&attempts, 1);
  if (atomic_load(&countdown) < 0) return false;
  if (atomic_fetch_sub(&countdown, 1) != 0) return false;
  atomic_store(&fired, true);
  return true;
}

static int failures;
static long round_number;

// A call's result must be 0 or a negative errno.
static void status(const char *call, long result) {
  if (result > 0) {
    printf(SWEEP_NAME ": round %ld: %s returned %ld, neither 0 nor a negative errno\n", round_number, call, result);
    failures++;
  }
}

#endif
