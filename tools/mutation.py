#!/usr/bin/env python3
"""Mutation testing of the files where a bug costs most: each mutant (one small change made by
universalmutator, e.g. `<` to `<=`, a statement deleted, a constant changed) must make at least
one of the tests that cover its file fail. A mutant no test notices is a hole in the tests, or
a change that cannot alter behaviour (an equivalent mutant, listed in docs/testing.md with the
reason).

    mutation.py [--per-file N] [--seed S] [--jobs J] [--files F ...] [--work DIR]
                [--report FILE] [--require-all-killed]

For each file of TARGETS it asks universalmutator for every mutant, shuffles them with the seed
and takes the first N that compile (natively, with gcc) to different code from the original:
a mutant that compiles to the same bytes cannot be told apart by any test (trivial compiler
equivalence), and one that does not compile is not a bug a test could miss; both are counted
and skipped. Each mutant then runs its file's checks (TARGETS) in a copy of the checkout's
tracked files, one copy per job, until one fails. The report lists, per file, killed, timed
out (counted as killed: the tests stopped the mutant), survived, listed equivalent, skipped
(not compiling, same code), and every survivor with its diff.

Exit status: 0 when every file reaches TARGET_SCORE (with --require-all-killed: when no mutant
survives that is not listed as equivalent), 1 otherwise, 2 when the checks fail on the
unmutated code (a mutant result would then mean nothing).
"""

import argparse
import concurrent.futures
import difflib
import hashlib
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EQUIVALENTS_DOC = os.path.join(ROOT, "docs", "testing.md")
TARGET_SCORE = 0.85

ALLOC_CHECKS = ["alloc_api", "alloc_accounting", "alloc_span_policy", "alloc_shared_break", "alloc_full_runs", "bad_free",
                "alloc_stress", "alloc_churn", "alloc_reuse", "alloc_random_frees", "alloc_larger_class", "alloc_handoff",
                "alloc_kept", "alloc_spares", "alloc_large_hole", "alloc_large_reuse", "alloc_passed_surplus",
                "alloc_span_fit", "alloc_lock_counts", "checked_mode"]
MEMORY_CHECKS = ["conformance", "fsx", "memory_use", "core_calls", "difffuzz", "threads", "sharing", "out_of_memory",
                 "lazy"]
# The files mutated, each with the checks that reach its code (run in this order, the likeliest
# to kill first): a check that never calls into a file only costs time there.
TARGETS = {
    "src/fs/locks.c": ["conformance", "locking", "out_of_memory"],
    "src/fs/io.c": ["conformance", "fsx", "core_calls", "memory_use", "rawfs", "difffuzz", "sharing", "fifo",
                    "threads", "console"],
    "src/fs/path.c": ["conformance", "core_calls", "host_failures", "difffuzz", "escape", "host", "threads"],
    "src/fs/namespace.c": ["conformance", "core_calls", "difffuzz", "threads", "escape", "host", "out_of_memory", "lazy",
                           "rawfs"],
    "src/fs/memory/file.c": MEMORY_CHECKS,
    "src/fs/memory/dir.c": MEMORY_CHECKS,
    "src/fs/memory/backend.c": MEMORY_CHECKS,
    "src/fs/memory/lazy.c": ["lazy", "out_of_memory"],
    "src/fs/host/backend.c": ["host", "core_calls", "host_failures", "difffuzz", "escape", "out_of_memory"],
    "src/alloc/api.c": ALLOC_CHECKS + ["alloc_api_wasm"],
    "src/alloc/free.c": ALLOC_CHECKS,
    "src/alloc/span.c": ALLOC_CHECKS,
    "src/alloc/slow_path.c": ALLOC_CHECKS,
    "src/alloc/kept.c": ALLOC_CHECKS,
    "src/alloc/orphan.c": ALLOC_CHECKS,
}

FS_CORE_DIRS = ["src/fs", "src/fs/memory", "src/fs/host"]
FS_PLATFORM = ["src/platform/common.c", "src/platform/posix/prim.c", "src/platform/posix/host.c",
               "src/platform/posix/fetch.c"]
ALLOC_PLATFORM = ["src/platform/common.c", "src/platform/posix/prim.c"]
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
NATIVE_FLAGS = ["-O1", "-g", "-pthread", "-D_GNU_SOURCE", "-Wno-unused-function"]
WASM_FLAGS = ["--fs=wasmscale", "-O1", "-pthread", "-sPROXY_TO_PTHREAD", "-sEXIT_RUNTIME=1", "-sPTHREAD_POOL_SIZE=6",
              "-sALLOW_MEMORY_GROWTH=1", "-Wno-pthreads-mem-growth", "-Wno-unused-function"]
WASM_ALLOC_FLAGS = ["--malloc=wasmscale", "-O1", "-fno-builtin", "-sALLOW_MEMORY_GROWTH=1"]
DIFFFUZZ_SEEDS = [3, 11, 29]
DIFFFUZZ_STEPS = "400"


def sources_in(tree, folders):
    return [os.path.join(folder, name) for folder in folders
            for name in sorted(os.listdir(os.path.join(tree, folder))) if name.endswith(".c")]


# ----- the mutants ----------------------------------------------------------------------------

class Mutant:
    def __init__(self, file, number, text, original):
        self.file, self.number, self.text = file, number, text
        old, new = original.splitlines(), text.splitlines()
        # universalmutator changes, inserts or deletes one line
        change = next((op for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
                       if op[0] != "equal"), ("equal", 0, 0, 0, 0))
        _, i1, i2, j1, j2 = change
        if i1 == i2 and i1 > 0:  # an inserted line is named with the line it follows
            i1, j1 = i1 - 1, j1 - 1
        self.line = i1 + 1
        self.function = enclosing_function(old, i1)
        self.before = " ".join(line.strip() for line in old[i1:i2])
        self.after = " ".join(line.strip() for line in new[j1:j2])
        self.diff = "".join(difflib.unified_diff(original.splitlines(True), text.splitlines(True),
                                                 f"a/{file}", f"b/{file}", n=2))
        self.outcome, self.detail = None, ""

    @property
    def name(self):
        return f"{self.file}#{self.number}"


def enclosing_function(lines, index):
    """The name of the C function whose body holds lines[index] (None outside any)."""
    for line in reversed(lines[:index + 1]):
        match = re.match(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\([^;]*$", line)
        if match:
            return match.group(1)
        if line.startswith("}"):
            return None
    return None


def generate(file, mutate, work):
    """Every mutant universalmutator makes of `file`, in its order (its files go under `work`)."""
    out = os.path.join(work, "mutants", file.replace("/", "_"))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    result = subprocess.run([mutate, os.path.join(ROOT, file), "c", "--noCheck", "--mutantDir", out],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"mutation: universalmutator failed on {file}: {result.stderr.strip()[-500:]}")
    numbered = []
    for name in os.listdir(out):
        match = re.search(r"\.mutant\.(\d+)\.c$", name)
        if match:
            numbered.append((int(match.group(1)), os.path.join(out, name)))
    original = read(os.path.join(ROOT, file))
    return [Mutant(file, number, read(path), original) for number, path in sorted(numbered)]


def native_object(file, text):
    """The bytes gcc -O2 makes of `text` compiled as `file` (no debug info, so that only code
    and data differ), or None when it does not compile with the warnings the build refuses."""
    flags = ["-std=c11", "-D_GNU_SOURCE", "-O2", "-pthread", "-Wall", "-Wextra", "-Werror",
             "-I" + os.path.join(ROOT, "include"),
             "-I" + os.path.dirname(os.path.join(ROOT, file))]
    with tempfile.TemporaryDirectory() as scratch:
        output = os.path.join(scratch, "out.o")
        result = subprocess.run(["gcc", *flags, "-x", "c", "-c", "-", "-o", output], input=text,
                                capture_output=True, text=True)
        if result.returncode != 0:
            return None
        stripped = subprocess.run(["objcopy", "--strip-debug", output], capture_output=True)
        if stripped.returncode != 0:
            return None
        with open(output, "rb") as handle:
            return handle.read()


def sample(file, mutants, count, seed, skipped):
    """The first `count` mutants, in the seed's order, that compile to code other than the
    original's; the others passed over are counted in skipped[file]."""
    original = native_object(file, read(os.path.join(ROOT, file)))
    if original is None:
        raise SystemExit(f"mutation: {file} does not compile natively")
    order = list(mutants)
    random.Random(f"{seed}:{file}").shuffle(order)
    chosen = []
    for mutant in order:
        if len(chosen) == count:
            break
        code = native_object(file, mutant.text)
        if code is None:
            skipped[file]["did not compile"] += 1
        elif code == original:
            skipped[file]["same code"] += 1
        else:
            chosen.append(mutant)
    return chosen


def listed_equivalents():
    """(file, function or None, original line, mutated line) -> reason, from docs/testing.md's
    list. An entry names the function (`- FILE in FUNCTION: ...`) where its line occurs in
    several and the reason holds in one."""
    entries = {}
    pattern = re.compile(r"^- (\S+?)(?: in (\w+))?: `(.+?)` → `(.*?)`: (.+)$")
    for line in read(EQUIVALENTS_DOC).splitlines():
        match = pattern.match(line)
        if match:
            entries[(match.group(1), match.group(2), match.group(3).strip(), match.group(4).strip())] = match.group(5)
    return entries


def equivalence_of(mutant, equivalents):
    """The listed reason why `mutant` is equivalent, or None."""
    for function in (mutant.function, None):
        reason = equivalents.get((mutant.file, function, mutant.before, mutant.after))
        if reason is not None:
            return reason
    return None


# ----- a worker: one copy of the checkout, its builds and its checks ----------------------------

class Worker:
    def __init__(self, work, index):
        self.dir = os.path.join(work, f"worker{index}")
        self.tree = os.path.join(self.dir, "tree")
        self.bin = os.path.join(self.dir, "bin")
        self.objects = os.path.join(self.dir, "obj")
        self.baseline = {}
        self.linux_difffuzz = {}
        self.run_seconds = 0.0

    def prepare(self):
        """Copies the checkout's tracked files (keeping their times, so that the libraries the
        copy's driver builds are rebuilt only where a mutant changed a file)."""
        listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True, check=True).stdout
        shutil.rmtree(self.tree, ignore_errors=True)
        for relative in filter(None, listed.decode().split("\0")):
            source = os.path.join(ROOT, relative)
            if not os.path.isfile(source):
                continue
            target = os.path.join(self.tree, relative)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
        shutil.rmtree(self.objects, ignore_errors=True)  # objects of an older checkout's sources
        os.makedirs(self.bin, exist_ok=True)
        os.makedirs(self.objects, exist_ok=True)

    # Native builds: each source compiled once per content (a mutant, then the original again,
    # are two objects kept side by side).
    def compile(self, source, flags):
        tag = hashlib.sha1(" ".join(flags).encode()).hexdigest()[:8]  # one set of objects per set of flags
        path = os.path.join(self.tree, source)
        digest = hashlib.sha1(read(path).encode()).hexdigest()[:16]
        output = os.path.join(self.objects, tag, f"{source.replace('/', '_')[:-2]}-{digest}.o")
        if not os.path.exists(output):
            os.makedirs(os.path.dirname(output), exist_ok=True)
            subprocess.run(["clang-14", *flags, "-c", path, "-o", output + ".part"], check=True, capture_output=True)
            os.replace(output + ".part", output)
        return output

    def link(self, name, sources, flags, objects=()):
        output = os.path.join(self.bin, name)
        subprocess.run(["clang-14", *flags, *[os.path.join(self.tree, s) for s in sources], *objects, "-o", output],
                       check=True, capture_output=True)
        return output

    def fs_core(self, sanitize=SANITIZE):
        flags = [*NATIVE_FLAGS, *sanitize, "-I" + os.path.join(self.tree, "include")]
        return [self.compile(s, flags) for s in sources_in(self.tree, FS_CORE_DIRS) + FS_PLATFORM]

    def alloc_core(self):
        flags = [*NATIVE_FLAGS, *SANITIZE, "-DWS_PREFIX_NAMES", "-fno-builtin", "-I" + os.path.join(self.tree, "include")]
        return [self.compile(s, flags) for s in sources_in(self.tree, ["src/alloc"]) + ALLOC_PLATFORM]

    def core_test(self, name, sanitize=SANITIZE):
        flags = [*NATIVE_FLAGS, *sanitize, "-DWS_TEST_CORE", "-I" + os.path.join(self.tree, "include")]
        return self.link(f"{name}-core", [f"tests/fs/{name}.c"], flags, self.fs_core(sanitize))

    # Link flags a test needs beyond the others' (test_shared_break wraps the platform's grow).
    ALLOC_LINK_FLAGS = {"test_shared_break": ["-Wl,--wrap=ws_prim_grow"]}

    def alloc_test(self, name):
        flags = [*NATIVE_FLAGS, *SANITIZE, "-DWS_PREFIX_NAMES", "-fno-builtin", "-Wno-free-nonheap-object",
                 *self.ALLOC_LINK_FLAGS.get(name, []), "-I" + os.path.join(self.tree, "include")]
        return self.link(name, [f"tests/alloc/{name}.c"], flags, self.alloc_core())

    def wasm_test(self, name, folder="fs", flags=WASM_FLAGS):
        output = os.path.join(self.bin, f"{name}.js")
        result = subprocess.run([os.path.join(self.tree, "bin", "wasmscale-cc"), *flags,
                                 os.path.join(self.tree, "tests", folder, f"{name}.c"), "-o", output],
                                capture_output=True, text=True, env=self.env())
        if result.returncode != 0:
            raise subprocess.CalledProcessError(result.returncode, "wasmscale-cc", result.stdout, result.stderr)
        return output

    def env(self):
        env = dict(os.environ)
        env.pop("WASMSCALE_BUILD_DIR", None)
        env.setdefault("NODE_PATH", "/usr/share/nodejs")
        return env

    def scratch(self, name):
        folder = os.path.join(self.dir, "scratch", name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        return folder

    # ----- the checks: each returns None when it passes, else a line saying what failed ------
    def check(self, name, timeout):
        if hasattr(self, "check_" + name):
            return getattr(self, "check_" + name)(timeout)
        return self.check_alloc(name, timeout)  # alloc_X: tests/alloc/test_X.c, natively

    def run(self, command, timeout, pattern, cwd=None, env=None):
        """Runs `command`; None when it exits 0 printing `pattern`, else what went wrong."""
        returncode, output = self.execute(command, timeout, cwd, env)
        if returncode != 0:
            last = output.strip().splitlines()[-1:] or [""]
            return f"exit {returncode}: {last[0][:200]}"
        if not re.search(pattern, output):
            return f"no line matching {pattern!r}"
        return None

    def check_conformance(self, timeout):
        program = self.wasm_test("conformance")
        return self.run(["node", "--no-experimental-fetch", program], timeout, r"conformance: \d+ cases, 0 failed")

    def check_console(self, timeout):
        program = self.wasm_test("console")
        return self.run(["node", "--no-experimental-fetch", program], timeout,
                        r"(?m)^fsync sends this line on\nsync sends this line on$")

    def check_fsx(self, timeout):
        return self.run([self.core_test("fsx"), "6000", "20261126"], timeout, r"fsx: seed \d+: \d+ operations .* matched")

    def check_threads(self, timeout):
        return self.run([self.core_test("threads"), "4", "40"], timeout, r"final state verified")

    def check_sharing(self, timeout):
        return self.run([self.core_test("sharing"), "4", "200"], timeout, r"all consistent")

    def check_locking(self, timeout):
        return self.run([self.core_test("locking"), "4", "200"], timeout, r"no update lost")

    def check_memory_use(self, timeout):
        return self.run([self.core_test("memory_use")], timeout, r"chunks held as designed")

    def check_core_calls(self, timeout):
        return self.run([self.core_test("core_calls"), self.scratch("core_calls")], timeout, r"core_calls: whole writes")

    def check_out_of_memory(self, timeout):
        # UBSan only: the program wraps malloc, which ASan would replace.
        program = self.core_test("out_of_memory", ["-fsanitize=undefined", "-fno-sanitize-recover=all"])
        return self.run([program, self.scratch("out_of_memory")], timeout, r"every call answered 0 or an errno")

    def check_lazy(self, timeout):
        return self.run([self.core_test("lazy"), self.scratch("lazy")], timeout, r"lazy: fetched on first read")

    def check_host_failures(self, timeout):
        return self.run([self.core_test("host_failures"), self.scratch("host_failures")], timeout, r"the mount intact")

    def check_fifo(self, timeout):
        return self.run([self.core_test("fifo"), "500"], timeout, r"every round read")

    def host_dir(self, name, inner, text):
        """A fresh host directory as tests/fs/host.c and rawfs.c expect it: input.txt, the file
        `inner` (in a folder) holding `text`, and a symlink `escape` to a secret beside it."""
        base = self.scratch(name)
        folder = os.path.join(base, "dir")
        os.makedirs(os.path.dirname(os.path.join(folder, inner)))
        write(os.path.join(folder, "input.txt"), "hello from the host\n")
        write(os.path.join(folder, inner), text)
        write(os.path.join(base, "secret.txt"), "secret\n")
        os.symlink("../secret.txt", os.path.join(folder, "escape"))
        return base, folder

    def check_host(self, timeout):
        base, folder = self.host_dir("host", "sub/nested.txt", "nested\n")
        os.symlink(os.path.join(base, "secret.txt"), os.path.join(folder, "absolute"))
        failed = self.run([self.core_test("host"), folder, "mount", "4", "60"], timeout, r"host files verified")
        if failed is None and read(os.path.join(base, "secret.txt")) != "secret\n":
            failed = "the file outside the mount was changed"
        return failed

    def check_rawfs(self, timeout):
        """A host directory as the root (WASMSCALE_MOUNTS="/=."), /dev and /tmp the program's own."""
        _, folder = self.host_dir("rawfs", "dev/keep.txt", "keep\n")
        write(os.path.join(folder, "later.txt"), "later\n")  # made after dev/, which /dev hides
        env = dict(self.env(), WASMSCALE_MOUNTS="/=.")
        return self.run([self.core_test("rawfs"), "/", "2", "memory"], timeout, r"host root verified", cwd=folder, env=env)

    def check_escape(self, timeout):
        base = self.scratch("escape")
        folder, outside = os.path.join(base, "dir"), os.path.join(base, "outside")
        for sub in ["", "sub", "race", "rootswap"]:
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
            write(os.path.join(folder, sub, "inside.txt"), "inside\n")
        os.makedirs(outside)
        write(os.path.join(outside, "inside.txt"), "SECRET\n")
        failed = self.run([self.core_test("escape"), folder, outside, "600", "swap"], timeout, r"escape: .*: held")
        if failed is None and sorted(os.listdir(outside)) != ["inside.txt"]:
            failed = "a file was made outside the mount"
        return failed

    def check_difffuzz(self, timeout):
        """The core (memory, and a host mount) against Linux, for a few seeds: every step's
        result must be Linux's."""
        program = self.core_test("difffuzz")
        for seed in DIFFFUZZ_SEEDS:
            expected = self.linux_steps(seed)
            for root in ["-", "mount:" + self.scratch(f"difffuzz-{seed}")]:
                steps = self.steps([program, root, str(seed), DIFFFUZZ_STEPS], timeout)
                if isinstance(steps, str):
                    return steps
                for index, (want, got) in enumerate(zip(expected + [None] * len(steps), steps + [None] * len(expected))):
                    if want != got:
                        return f"seed {seed} ({root.split(':')[0]}) differs from Linux at step {index}: {got!r}, Linux {want!r}"
        return None

    def linux_steps(self, seed):
        if seed not in self.linux_difffuzz:
            program = self.link("difffuzz-linux", ["tests/fs/difffuzz.c"], [*NATIVE_FLAGS])
            self.linux_difffuzz[seed] = self.steps([program, self.scratch("linux"), str(seed), DIFFFUZZ_STEPS], 120)
        return self.linux_difffuzz[seed]

    def steps(self, command, timeout):
        returncode, output = self.execute(command, timeout)
        if returncode != 0:
            return f"difffuzz exit {returncode}: {output.strip()[-200:]}"
        return [line for line in output.splitlines() if re.match(r"^\d+: ", line)]

    def execute(self, command, timeout, cwd=None, env=None):
        """(exit status, output) of `command`, killed with its children past `timeout` seconds.
        Only these runs count towards a check's time: builds are not timed out."""
        start = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                                   cwd=cwd, env=env or self.env(), start_new_session=True)
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise TimeoutError(f"{os.path.basename(command[0])} ran past {timeout:.0f} s")
        finally:
            self.run_seconds += time.monotonic() - start
        return process.returncode, output

    # Each misuse test_checked makes, and the words its one line must hold (tests/alloc.test.mjs).
    CHECKED_MISUSES = {"double-free": "double free", "large-double-free": "double free",
                       "invalid-pointer": "never returned", "interior-pointer": "never returned",
                       "overflow": "write past the end", "large-overflow": "write past the end",
                       "underflow": "write before the start", "use-after-free": "write to a freed block"}

    def check_checked_mode(self, timeout):
        """The allocator built with WS_CHECKED (no sanitizer: it is the program's malloc): valid
        use is clean, and each misuse stops the program with its line."""
        flags = [*NATIVE_FLAGS, "-DWS_CHECKED=1", "-fno-builtin", "-I" + os.path.join(self.tree, "include")]
        objects = [self.compile(s, flags) for s in sources_in(self.tree, ["src/alloc"]) + ALLOC_PLATFORM]
        program = self.link("test_checked", ["tests/alloc/test_checked.c"], flags, objects)
        return self.stops_each_misuse(program, r"checked: [1-9]\d* passed, 0 failed", self.CHECKED_MISUSES, timeout)

    def check_alloc_api_wasm(self, timeout):
        """test_api in Wasm, where the page size (64 KiB) is not the native one."""
        program = self.wasm_test("test_api", "alloc", WASM_ALLOC_FLAGS)
        return self.run(["node", "--no-experimental-fetch", program], timeout, r"api: [1-9]\d* passed, 0 failed")

    def check_bad_free(self, timeout):
        """Without checked mode, each free the allocator can tell is wrong stops the program
        with its line (tests/alloc.test.mjs)."""
        program = self.alloc_test("test_bad_free")
        misuses = {misuse: "never returned" for misuse in ["invalid-pointer", "large-double-free", "large-interior-pointer"]}
        return self.stops_each_misuse(program, r"bad free: [1-9]\d* passed, 0 failed", misuses, timeout)

    def stops_each_misuse(self, program, clean, misuses, timeout):
        """`program none` passes (its output matching `clean`), and `program MISUSE` stops with a
        line holding the words `misuses` gives for it, for each misuse."""
        failed = self.run([program, "none"], timeout, clean)
        for misuse, words in misuses.items():
            if failed:
                break
            status, output = self.execute([program, misuse], timeout)
            if status == 0 or words not in output:
                failed = f"{misuse}: not stopped with a line saying '{words}'"
        return failed

    ALLOC_ARGS = {"test_stress": ["4", "4", "60"]}

    def check_alloc(self, name, timeout):
        test = "test_" + name[len("alloc_"):]
        program = self.alloc_test(test)
        return self.run([program, *self.ALLOC_ARGS.get(test, [])], timeout, r": [1-9]\d* passed, 0 failed")

    # ----- one mutant ----------------------------------------------------------------------
    def attempt(self, checks, mutant=None):
        """Runs `checks` on the tree (with `mutant` in place); returns (outcome, detail, timings)."""
        path = os.path.join(self.tree, mutant.file) if mutant else None
        original = read(path) if mutant else None
        timings = {}
        try:
            if mutant:
                write(path, mutant.text)
            for name in checks:
                self.run_seconds = 0.0
                # A mutant that makes a program wait forever is stopped at 10 times its usual time.
                timeout = max(10.0, 10 * self.baseline[name]) if name in self.baseline else 300
                try:
                    failed = self.check(name, timeout)
                except TimeoutError as error:
                    return "timed out", f"{name}: {error}", timings
                except subprocess.CalledProcessError as error:
                    return "build failed", f"{name}: {(error.stderr or b'')[-300:]!r}", timings
                timings[name] = self.run_seconds
                if failed:
                    return "killed", f"{name}: {failed}", timings
            return "survived", "", timings
        finally:
            if mutant:
                write(path, original)


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


# ----- the report -------------------------------------------------------------------------------

def report(files, results, skipped, equivalents, seed, per_file, elapsed):
    lines = [f"# Mutation testing: {per_file} mutants per file, seed {seed}", "",
             f"{sum(len(results[f]) for f in files)} mutants in {elapsed / 60:.1f} min "
             f"(`python3 tools/mutation.py --per-file {per_file} --seed {seed}`).", "",
             "| file | killed | timed out | survived | equivalent | score | did not compile | same code |",
             "|---|---|---|---|---|---|---|---|"]
    scores = {}
    for file in files:
        counts = {k: sum(1 for m in results[file] if m.outcome == k)
                  for k in ("killed", "timed out", "survived", "equivalent", "build failed")}
        counted = counts["killed"] + counts["timed out"] + counts["survived"]
        scores[file] = (counts["killed"] + counts["timed out"]) / counted if counted else 1.0
        lines.append(f"| {file} | {counts['killed']} | {counts['timed out']} | {counts['survived']} | "
                     f"{counts['equivalent']} | {scores[file]:.0%} | "
                     f"{skipped[file]['did not compile'] + counts['build failed']} | {skipped[file]['same code']} |")
    lines += ["", "Score: (killed + timed out) / (killed + timed out + survived); equivalent mutants "
              "(docs/testing.md) are left out.", ""]
    for file in files:
        for mutant in results[file]:
            if mutant.outcome in ("survived", "equivalent"):
                title = "survived" if mutant.outcome == "survived" else f"equivalent: {mutant.detail}"
                where = f" (in {mutant.function})" if mutant.function else ""
                lines += [f"## {mutant.name}, line {mutant.line}{where}: {title}", "", "```diff", mutant.diff.rstrip(), "```", ""]
    return "\n".join(lines) + "\n", scores


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-file", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--files", nargs="*", default=list(TARGETS))
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "mutation"),
                        help="where the mutants, the copies of the checkout and the report go")
    parser.add_argument("--report", help="the report's file (default: WORK/report.md)")
    parser.add_argument("--require-all-killed", action="store_true")
    beside = os.path.join(os.path.dirname(sys.executable), "mutate")  # in the venv set-up makes
    parser.add_argument("--mutate", default=beside if os.path.exists(beside) else shutil.which("mutate") or "mutate",
                        help="universalmutator's mutate command")
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    args.report = args.report or os.path.join(work, "report.md")
    unknown = [f for f in args.files if f not in TARGETS]
    if unknown:
        raise SystemExit(f"mutation: not a target: {', '.join(unknown)} (targets: {', '.join(TARGETS)})")
    os.makedirs(work, exist_ok=True)
    started = time.monotonic()

    equivalents = listed_equivalents()
    skipped = {f: {"did not compile": 0, "same code": 0} for f in args.files}
    chosen = {}
    for file in args.files:
        chosen[file] = sample(file, generate(file, args.mutate, work), args.per_file, args.seed, skipped)
        print(f"mutation: {file}: {len(chosen[file])} mutants", flush=True)

    workers = [Worker(work, i) for i in range(args.jobs)]
    checks = list(dict.fromkeys(c for f in args.files for c in TARGETS[f]))

    def baseline(worker):
        worker.prepare()
        outcome, detail, timings = worker.attempt(checks)
        if outcome != "survived":
            raise SystemExit(f"mutation: the checks fail without a mutant ({detail}); fix that first")
        worker.baseline = timings

    with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
        list(pool.map(baseline, workers))
    print("mutation: unmutated code passes every check (" +
          ", ".join(f"{k} {v:.1f} s" for k, v in workers[0].baseline.items()) + ")", flush=True)

    pending = queue.Queue()
    for file in args.files:
        for mutant in chosen[file]:
            reason = equivalence_of(mutant, equivalents)
            if reason is not None:
                mutant.outcome, mutant.detail = "equivalent", reason
            else:
                pending.put(mutant)
    total, done, lock = pending.qsize(), [0], threading.Lock()

    def work(worker):
        while True:
            try:
                mutant = pending.get_nowait()
            except queue.Empty:
                return
            mutant.outcome, mutant.detail, _ = worker.attempt(TARGETS[mutant.file], mutant)
            with lock:
                done[0] += 1
                print(f"mutation: [{done[0]}/{total}] {mutant.name} line {mutant.line}: {mutant.outcome}"
                      f"{' (' + mutant.detail[:150] + ')' if mutant.detail else ''}", flush=True)

    with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
        list(pool.map(work, workers))

    text, scores = report(args.files, chosen, skipped, equivalents, args.seed, args.per_file,
                          time.monotonic() - started)
    os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
    write(args.report, text)
    print(f"mutation: report written to {args.report}")
    survivors = [m for f in args.files for m in chosen[f] if m.outcome == "survived"]
    for mutant in survivors:
        where = f" in {mutant.function}" if mutant.function else ""
        print(f"mutation: survived: {mutant.name} line {mutant.line}{where}: `{mutant.before}` → `{mutant.after}`")
    failing = [f for f in args.files if scores[f] < TARGET_SCORE]
    if args.require_all_killed and survivors:
        print(f"mutation: {len(survivors)} mutants survived; each needs a test that kills it, or an entry "
              f"in {os.path.relpath(EQUIVALENTS_DOC, ROOT)} saying why it is equivalent")
        return 1
    if failing:
        print(f"mutation: below {TARGET_SCORE:.0%}: " + ", ".join(f"{f} {scores[f]:.0%}" for f in failing))
        return 1
    print(f"mutation: every file at or above {TARGET_SCORE:.0%} (" +
          ", ".join(f"{f.removeprefix('src/')} {scores[f]:.0%}" for f in args.files) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
