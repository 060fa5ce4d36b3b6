#!/usr/bin/env python3
"""The syscall and WASI imports an Emscripten release's libc leaves undefined, their Wasm
signatures, and who answers each in a program built with wasmscale's file system.

    syscall_imports.py [--emcc EMCC] list     print the release's list (as docs/abi/ holds it)
    syscall_imports.py [--emcc EMCC] write    write docs/abi/emscripten-VERSION.txt
    syscall_imports.py [--emcc EMCC] check    check the library against the release (the
                                              toolchain test runs this)

The names come from the release's libc (libc-mt.a: what it uses and does not define, among
__syscall_*, __wasi_*, _*_js and __map_file), the signatures from the C declarations libc's own
calls are compiled against (DECLARING_FILES, in the release's tree). Each import is answered by one of:
    wasmscale  the file system's syscall layer (src/fs/syscalls/) defines it in Wasm
    stubs      the release's libstubs.a defines it in C, without a file system
    js         the release's JS library answers it without a file system
    sockets    Emscripten's SOCKFS, which brings its JS file system along: a program that uses
               sockets gets that file system with them
An import this script cannot place stops the check, naming it: a new release's new import must
be decided on (defined in src/fs/syscalls/ or placed in NOT_OURS) before wasmscale builds with it.

check: (1) every import is placed; (2) a probe program calling every import wasmscale answers,
declared with the release's signature, links with libwasmscale-fs (wasm-ld's "signature
mismatch" warning made an error) and imports none of them; (3) the same probe, calling every
import placed with Emscripten too, has no JS file system in its glue.
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import toolchain as toolchains  # noqa: E402

ABI_DIR = os.path.join(ROOT, "docs", "abi")
IMPORT_NAME = re.compile(r"^(__syscall_\w+|__wasi_\w+|_\w+_js|__map_file)$")

# The imports Emscripten answers without its JS file system, beside libstubs' (found in the
# archive): every other import must be defined by the syscall layer. By name, across releases
# (a name a release's libc lacks is not looked for).
NOT_OURS = {
    "js": {
        # Environment, clocks, randomness and exit: no files.
        "__wasi_environ_get", "__wasi_environ_sizes_get", "__wasi_clock_res_get", "__wasi_clock_time_get",
        "__wasi_random_get", "__wasi_proc_exit",
        # The runtime: threads, aborts, time zones, dynamic linking.
        "__pthread_create_js", "__emscripten_init_main_thread_js", "_emscripten_init_main_thread_js",
        "_emscripten_receive_on_main_thread_js", "_abort_js", "_gmtime_js", "_localtime_js", "_mktime_js",
        "_timegm_js", "_tzset_js", "_setitimer_js", "_dlopen_js", "_dlsym_js", "_emscripten_dlopen_js",
        # Reads a whole file for musl's locale code; Emscripten's answers EPERM without a file system.
        "__map_file",
        # poll's JS half: libc's weak __syscall_poll calls it, and wasmscale defines that.
        "_poll_js",
    },
    "sockets": {"__syscall_accept4", "__syscall_recvmmsg", "__syscall_sendmmsg"},
}


def import_field(name):
    """The name a .wasm imports a C symbol by: WASI's without its __wasi_ prefix."""
    return name[len("__wasi_"):] if name.startswith("__wasi_") else name


def tool(toolchain, name):
    """A tool beside the release's emcc (emnm, em-config)."""
    return os.path.join(os.path.dirname(toolchain["emcc"]), name)


def emscripten_root(toolchain):
    return os.path.dirname(os.path.realpath(toolchain["emcc"]))


def system_library(toolchain, name):
    cache = subprocess.run([tool(toolchain, "em-config"), "CACHE"], capture_output=True, text=True).stdout.strip()
    return os.path.join(cache, "sysroot", "lib", "wasm32-emscripten", name)


def symbols(toolchain, archive, defined):
    flag = "--defined-only" if defined else "--undefined-only"
    result = subprocess.run([tool(toolchain, "emnm"), flag, archive], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"wasmscale: {tool(toolchain, 'emnm')} {archive} failed: {result.stderr.strip()[:200]}")
    return {line.split()[-1] for line in result.stdout.splitlines() if line.strip() and not line.endswith(":")}


def libc_imports(toolchain):
    """{name: who answers it} for every import the release's libc leaves undefined."""
    # A first link fills a new release's cache (libc) and builds the file system's library.
    build_probe(toolchain, "int main(void) { return 0; }\n", ["--fs=wasmscale"])
    libc = system_library(toolchain, "libc-mt.a")
    undefined = symbols(toolchain, libc, False) - symbols(toolchain, libc, True)
    names = {name for name in undefined if IMPORT_NAME.match(name)}
    library = os.path.join(toolchains.build_dir(toolchain), "lib", "wasm-mt", "libwasmscale-fs.a")
    ours = symbols(toolchain, library, True)
    stubs = symbols(toolchain, system_library(toolchain, "libstubs.a"), True)
    places = {}
    for name in sorted(names):
        places[name] = ("wasmscale" if name in ours else "stubs" if name in stubs else
                        next((place for place, group in NOT_OURS.items() if name in group), None))
    unplaced = sorted(name for name, place in places.items() if place is None)
    if unplaced:
        raise SystemExit(f"wasmscale: Emscripten {toolchain['version']}'s libc imports {', '.join(unplaced)}, which "
                         "neither the file system nor Emscripten without its JS file system answers: define it "
                         "in src/fs/syscalls/, or place it in tools/syscall_imports.py's NOT_OURS")
    return places


# Where a release declares its imports for libc's own calls: syscalls, WASI, the JS halves of
# mmap (3.1.6 in emscripten_mmap.c, later releases in emscripten_internal.h), and __map_file.
DECLARING_FILES = ("system/lib/libc/musl/arch/emscripten/syscall_arch.h", "system/include/wasi/api.h",
                   "system/lib/libc/emscripten_internal.h", "system/lib/libc/emscripten_mmap.c",
                   "system/lib/libc/musl/src/include/sys/mman.h")
WIDE_TYPES = re.compile(r"\b(off_t|u?int64_t|long long|__wasi_filesize_t|__wasi_filedelta_t|__wasi_timestamp_t)\b")


def signatures(toolchain, names):
    """{name: Wasm signature} from the C declarations libc's calls are compiled against."""
    text = ""
    for relative in DECLARING_FILES:
        path = os.path.join(emscripten_root(toolchain), relative)
        if os.path.exists(path):
            text += re.sub(r"/\*.*?\*/|//[^\n]*", " ", open(path).read(), flags=re.S) + "\n"
    sigs = {}
    for name in names:
        match = re.search(r"([\w\s\*]+?)\b" + re.escape(name) + r"\s*\(([^)]*)\)", text)
        if match is None:
            sigs[name] = "-"
            continue
        result, params = match.group(1).split()[-1:] or ["int"], match.group(2)
        sig = "v" if result == ["void"] else "i"
        for param in (p.strip() for p in params.split(",") if p.strip() not in ("", "void")):
            sig += "p" if param == "..." or "*" in param else "j" if WIDE_TYPES.search(param) else "i"
        sigs[name] = sig
    return sigs


def list_path(toolchain):
    return os.path.join(ABI_DIR, f"emscripten-{toolchain['version']}.txt")


def read_list(toolchain):
    """{name: (signature, place)} from docs/abi/, or {} when there is none."""
    path = list_path(toolchain)
    if not os.path.exists(path):
        return {}
    rows = [line.split() for line in open(path) if line.strip() and not line.startswith("#")]
    return {row[0]: (row[1], row[2]) for row in rows}


def render(toolchain, places, sigs):
    header = f"""# Emscripten {toolchain['version']}: the syscall and WASI imports its libc (libc-mt.a) leaves
# undefined, their Wasm signatures (result first; i i32, j i64, p pointer, v none; - not known),
# and who answers each in a program built with wasmscale's file system: wasmscale
# (src/fs/syscalls/), stubs (libstubs.a, no file system), js (Emscripten's JS, no file system)
# or sockets (Emscripten's SOCKFS, which brings its JS file system). Written by
# tools/syscall_imports.py; the toolchain test checks the library against it.
"""
    return header + "".join(f"{name} {sigs[name]} {places[name]}\n" for name in sorted(places))


C_TYPES = {"i": "int", "p": "void *", "j": "long long", "d": "double", "f": "float", "v": "void"}


def probe_source(calls, sigs):
    """A program that calls each of `calls` (declared with its signature) unless argc is 0."""
    lines = ["// Generated by tools/syscall_imports.py: one call per import, never run.", "#include <stddef.h>"]
    body = []
    for name in calls:
        sig = sigs[name]
        params = ", ".join(C_TYPES[c] for c in sig[1:]) or "void"
        # WASI's are imported from their own module, as <wasi/api.h> declares them.
        wasi = (f'__attribute__((import_module("wasi_snapshot_preview1"), import_name("{import_field(name)}"))) '
                if name.startswith("__wasi_") else "")
        lines.append(f"{wasi}{C_TYPES[sig[0]]} {name}({params});")
        body.append(f"    {name}({', '.join('0' for _ in sig[1:])});")
    return "\n".join(lines + ["int main(int argc, char **argv) {", "  (void)argv;", "  if (argc == 0) {"] + body +
                     ["  }", "  return 0;", "}", ""])


def build_probe(toolchain, source, extra):
    """Links `source` with the driver for this release; returns (.js text, .wasm imports)."""
    with tempfile.TemporaryDirectory() as scratch:
        c_file, out = os.path.join(scratch, "probe.c"), os.path.join(scratch, "probe.js")
        with open(c_file, "w") as f:
            f.write(source)
        env = dict(os.environ, EMCC=toolchain["emcc"])
        result = subprocess.run([os.path.join(ROOT, "bin", "wasmscale-cc"), "-O1", "-pthread", "-Wl,--fatal-warnings",
                                 *extra, c_file, "-o", out], capture_output=True, text=True, env=env)
        if result.returncode != 0:
            raise SystemExit(f"wasmscale: the import probe did not link with Emscripten {toolchain['version']}:\n"
                             + (result.stdout + result.stderr)[-3000:])
        return open(out).read(), wasm_imports(os.path.join(scratch, "probe.wasm"))


def wasm_imports(path):
    """The names a .wasm file imports (its import section, read directly)."""
    data = open(path, "rb").read()

    def leb(at):
        value = shift = 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, at

    def name(at):
        length, at = leb(at)
        return data[at:at + length].decode(), at + length

    at, names = 8, []
    while at < len(data):
        section, at = data[at], at + 1
        size, at = leb(at)
        if section != 2:
            at += size
            continue
        count, at = leb(at)
        for _ in range(count):
            _, at = name(at)
            field, at = name(at)
            kind, at = data[at], at + 1
            if kind == 0:  # function: a type index
                _, at = leb(at)
            elif kind == 1:  # table: element type, limits
                flags, at = leb(at + 1)
                _, at = leb(at)
                if flags & 1:
                    _, at = leb(at)
            elif kind == 2:  # memory: limits
                flags, at = leb(at)
                _, at = leb(at)
                if flags & 1:
                    _, at = leb(at)
            else:  # global: value type, mutability
                at += 2
            names.append(field)
        break
    return names


# The JS file system's own internals (wasmscale's FS API has Emscripten's public names: FS.mkdir, MEMFS).
JS_FILE_SYSTEM = re.compile(r"\bMEMFS\.(ops_table|createNode)\b|\bFS\.(lookupPath|createNode|mknod)\b|"
                            r"\bSYSCALLS\.getStreamFromFD")


def check(toolchain):
    places = libc_imports(toolchain)
    sigs = signatures(toolchain, places)
    listed = read_list(toolchain)
    if {name: (sigs.get(name, "-"), place) for name, place in places.items()} != listed:
        raise SystemExit(f"wasmscale: {os.path.relpath(list_path(toolchain), ROOT)} does not match Emscripten "
                         f"{toolchain['version']}'s libc and wasmscale's library: run tools/syscall_imports.py write "
                         "and review the change")
    # The runtime's own JS imports (threads, time zones) are not called: only system calls are.
    ours = [name for name, place in places.items() if place == "wasmscale"]
    theirs = [name for name, place in places.items() if place in ("stubs", "js") and not name.endswith("_js")]
    unsigned = sorted(name for name in ours + theirs if sigs.get(name, "-") == "-")
    if unsigned:
        raise SystemExit(f"wasmscale: no signature known for {', '.join(unsigned)} (Emscripten {toolchain['version']})")
    glue, imported = build_probe(toolchain, probe_source(ours + theirs, sigs), ["--fs=wasmscale"])
    left = sorted(name for name in ours if import_field(name) in set(imported))
    if left:
        raise SystemExit(f"wasmscale: with the file system linked, the program still imports {', '.join(left)}")
    if JS_FILE_SYSTEM.search(glue):
        raise SystemExit("wasmscale: a call answered by Emscripten brought its JS file system into the probe")
    counts = {place: sum(1 for p in places.values() if p == place) for place in ("wasmscale", "stubs", "js", "sockets")}
    print(f"syscall imports of Emscripten {toolchain['version']}: {len(places)} "
          f"({', '.join(f'{n} {p}' for p, n in counts.items())}); every wasmscale one defined with libc's signature, "
          "none left to the JS file system")


def main(argv):
    args = list(argv)
    emcc = None
    if args[:1] == ["--emcc"] and len(args) >= 2:
        emcc, args = args[1], args[2:]
    if args not in (["list"], ["write"], ["check"]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        toolchain = toolchains.identify(emcc)
    except toolchains.ToolchainError as problem:
        print(f"wasmscale: {problem}", file=sys.stderr)
        return 2
    if args == ["check"]:
        check(toolchain)
        return 0
    places = libc_imports(toolchain)
    text = render(toolchain, places, signatures(toolchain, places))
    if args == ["list"]:
        print(text, end="")
    else:
        os.makedirs(ABI_DIR, exist_ok=True)
        with open(list_path(toolchain), "w") as out:
            out.write(text)
        print(f"wrote {os.path.relpath(list_path(toolchain), ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
