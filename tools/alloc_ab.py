#!/usr/bin/env python3
"""A/B of allocator versions: the malloc benchmark (bench/src/malloc.c) built with the
allocator of each version named, run in interleaved processes, so that the machine's drifts
fall on every version alike.

    alloc_ab.py [--emcc EMCC] [--rounds N] [--scale S] [--configs V:T,...] VERSION...

A VERSION is a git revision (its src/ and include/ are taken with `git archive`), `.`, the
working tree, or LABEL=PROGRAM.js, a malloc program built already (a peer's, as `make` builds
them, or a prototype's), run as it is. --configs lists variant:threads pairs (default cross:2).
Each round runs every version once per configuration, in an order reversed every other round;
each process runs a warm-up and two repetitions and gives its fastest time and highest peak.
The machine here sometimes runs everything about three times slower for a while: a version's
round slower than 1.6 times that version's fastest in its configuration is left out, and the
count left out is printed.

Prints, per configuration and version, the fastest and the median time (ms) and the median
peak (KiB) over the rounds kept. The decision log cites it as
`tools/alloc_ab.py --emcc ... --rounds ... --configs ... REV .`.
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SLOW_MODE = 1.6
# The benchmark's own flags for the allocator-only malloc program (Makefile, BENCH_CFLAGS), with
# the allocator's sources compiled in rather than linked from a library.
FLAGS = ["-O2", "-pthread", "-sEXIT_RUNTIME=1", "-sPTHREAD_POOL_SIZE=6", "-sALLOW_MEMORY_GROWTH=1",
         "-Wno-pthreads-mem-growth", "-sPROXY_TO_PTHREAD", "-sMALLOC=none", "-std=gnu11"]
SOURCES = ["src/alloc/*.c", "src/platform/common.c", "src/platform/emscripten/prim.c",
           "src/platform/emscripten/sbrk.c"]


def fail(message):
    print(f"alloc_ab: {message}", file=sys.stderr)
    sys.exit(2)


def checkout(version, into):
    """src/ and include/ of `version` (a revision, or `.` for the working tree) under `into`."""
    if version == ".":
        for part in ("src", "include"):
            shutil.copytree(os.path.join(ROOT, part), os.path.join(into, part))
        return
    archive = subprocess.run(["git", "-C", ROOT, "archive", version, "src", "include"], capture_output=True)
    if archive.returncode != 0:
        fail(f"{version}: not a revision of this repository ({archive.stderr.decode().strip()})")
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)


def build(emcc, tree):
    sources = [path for pattern in SOURCES for path in sorted(glob.glob(os.path.join(tree, pattern)))]
    program = os.path.join(tree, "malloc.js")
    env = dict(os.environ, NODE_PATH=os.environ.get("NODE_PATH", "/usr/share/nodejs"))
    command = [emcc, *FLAGS, f"-I{tree}/include", os.path.join(ROOT, "bench/src/malloc.c"),
               os.path.join(ROOT, "bench/src/harness.c"), *sources, "-o", program]
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        fail(f"building {tree} failed:\n{result.stderr[-2000:]}")
    return program


def run_once(program, variant, threads, scale):
    """(fastest ms, highest peak bytes) of one process's measured repetitions."""
    # --no-experimental-fetch: Emscripten 3.1.6 output would otherwise fetch() its .wasm.
    result = subprocess.run(["node", "--no-experimental-fetch", program, f"--variant={variant}",
                             f"--threads={threads}", "--reps=2", "--warmup=1", f"--scale={scale}"],
                            capture_output=True, text=True)
    records = [json.loads(line.split(" ", 1)[1]) for line in result.stdout.splitlines()
               if line.startswith("@@wsb ")]
    measured = [record for record in records if not record.get("warmup")]
    if result.returncode != 0 or not measured or not all(record.get("ok") for record in measured):
        fail(f"{program} --variant={variant} --threads={threads} failed (exit {result.returncode}):\n"
             f"{(result.stderr or result.stdout)[-1000:]}")
    return min(r["ms"] for r in measured), max(r["peak_bytes"] for r in measured)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--emcc", default=os.environ.get("EMCC", "emcc"))
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--scale", default="1")
    parser.add_argument("--configs", default="cross:2")
    parser.add_argument("versions", nargs="+")
    args = parser.parse_args()
    try:
        configs = [(part.split(":")[0], int(part.split(":")[1])) for part in args.configs.split(",")]
    except (IndexError, ValueError):
        fail(f"--configs {args.configs!r}: expected variant:threads[,variant:threads...]")
    work = tempfile.mkdtemp(prefix="alloc-ab-")
    try:
        programs = []
        for number, version in enumerate(args.versions):
            program = version.partition("=")[2]
            if program:
                if not os.path.isfile(program):
                    fail(f"{version}: {program} is not a file")
                programs.append(program)
                continue
            tree = os.path.join(work, str(number))
            os.makedirs(tree)
            checkout(version, tree)
            programs.append(build(args.emcc, tree))
        for variant, threads in configs:
            times = {version: [] for version in args.versions}
            peaks = {version: [] for version in args.versions}
            for round_number in range(args.rounds):
                order = list(zip(args.versions, programs))
                for version, program in (order if round_number % 2 == 0 else order[::-1]):
                    ms, peak = run_once(program, variant, threads, args.scale)
                    times[version].append(ms)
                    peaks[version].append(peak)
            for version in args.versions:
                fastest = min(times[version])
                kept = [i for i, ms in enumerate(times[version]) if ms < SLOW_MODE * fastest]
                kept_times = sorted(times[version][i] for i in kept)
                kept_peaks = [peaks[version][i] for i in kept]
                print(f"{variant} {threads} thread(s) {version.partition('=')[0]:>12}: fastest {kept_times[0]:7.1f} ms, "
                      f"median {statistics.median(kept_times):7.1f} ms, median peak "
                      f"{statistics.median(kept_peaks) / 1024:8.0f} KiB "
                      f"({len(kept)} rounds; {args.rounds - len(kept)} left out, machine slow)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
