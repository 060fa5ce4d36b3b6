#!/usr/bin/env python3
"""The Emscripten releases wasmscale builds with: which emcc a build means, its version, and
what differs between releases, in one table (RELEASES).

A release the table does not name is refused at build time, with one line saying so: the
syscall layer (src/fs/syscalls/abi.h) defines libc's imports with that release's signatures,
and a wrong signature would link and then trap or misread arguments at run time. Supporting a
new release means checking its imports (tools/syscall_imports.py prints them; the toolchain
test compares them with what the library defines) and adding its row here.

As a program, for the Makefile and the Node scripts:
    toolchain.py [--emcc EMCC] folder    the folder, under build/, for that emcc's outputs
                                         (with WS_DEBUG=1 or 2 set: its debug build's own)
    toolchain.py [--emcc EMCC] json      what the table says of it, as JSON
EMCC defaults to $EMCC, then emcc on PATH. Exit status 2 with one line on stderr when that emcc
cannot be used.
"""

import json
import os
import re
import shutil
import subprocess
import sys

OLDEST = (3, 1, 6)

# Each release wasmscale has been built and tested with. Columns:
#   mimalloc   where --malloc=mimalloc comes from: "crates" (mimalloc v2 from crates.io, compiled
#              by peers/mimalloc/build.sh) or "emcc" (the release's own -sMALLOC=mimalloc)
#   worker_js  a -pthread build writes NAME.worker.js beside NAME.js (later releases run the
#              main file itself in workers)
#   wasmfs_backends  WasmFS's storage backends the benchmark runs as peers of wasmscale's
#              (bench/runner/matrix.mjs): "node" (wasmfs_create_node_backend, against the host
#              backend) and "opfs" (wasmfs_create_opfs_backend, against the OPFS backend)
# (What differs in the JS runtime, src/platform/emscripten/runtime.js finds out by itself; what
# differs in libc's syscall signatures, src/fs/syscalls/abi.h says by version.)
RELEASES = {
    "3.1.6": {"mimalloc": "crates", "worker_js": True, "wasmfs_backends": []},
    "4.0.23": {"mimalloc": "emcc", "worker_js": False, "wasmfs_backends": ["node", "opfs"]},
}


class ToolchainError(Exception):
    """An emcc that cannot be used, named in one line."""


def find_emcc(emcc=None):
    """The path of the emcc meant: `emcc`, else $EMCC, else emcc on PATH."""
    name = emcc or os.environ.get("EMCC") or "emcc"
    path = shutil.which(name)
    if path is None:
        raise ToolchainError(f"emcc not found ({name}): install Emscripten (apt-get install emscripten) "
                             "or point EMCC at an emsdk's emcc")
    return path


def version_of(emcc):
    """(major, minor, tiny) of the release `emcc` belongs to. In a release's own tree (emsdk, a
    source checkout: emcc beside emcc.py) that is emscripten-version.txt beside it, the file emcc
    reads to answer --version, so the driver need not start emcc's Python for it on every
    compile; elsewhere (a wrapper such as Debian's /usr/bin/emcc) it is what `emcc --version`
    reports."""
    tree = os.path.dirname(os.path.realpath(emcc))
    stamp = os.path.join(tree, "emscripten-version.txt")
    if os.path.isfile(os.path.join(tree, "emcc.py")) and os.path.isfile(stamp):
        with open(stamp, encoding="utf-8", errors="replace") as file:
            said = file.read().strip()
        match = re.match(r'"?(\d+)\.(\d+)\.(\d+)', said)
        if match is None:
            raise ToolchainError(f"{stamp} does not name an Emscripten release ({said[:120] or 'empty'})")
        return tuple(int(part) for part in match.groups())
    try:
        result = subprocess.run([emcc, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as problem:
        raise ToolchainError(f"{emcc} cannot be run: {problem}")
    lines = (result.stdout or "").splitlines() + (result.stderr or "").splitlines()
    match = re.search(r"\)\s+(\d+)\.(\d+)\.(\d+)", lines[0]) if result.stdout else None
    if result.returncode != 0 or match is None:
        said = lines[0][:120] if lines else "nothing"
        raise ToolchainError(f"{emcc} --version did not name an Emscripten release (exit {result.returncode}: {said})")
    return tuple(int(part) for part in match.groups())


def identify(emcc=None):
    """Everything the table says of the emcc meant, with its path, version and build folder."""
    path = find_emcc(emcc)
    version = version_of(path)
    name = ".".join(map(str, version))
    if version < OLDEST:
        raise ToolchainError(f"{path} is Emscripten {name}, older than {'.'.join(map(str, OLDEST))}, the oldest "
                             "release wasmscale supports")
    if name not in RELEASES:
        raise ToolchainError(f"{path} is Emscripten {name}, whose syscall ABI wasmscale has not been checked "
                             f"against (known: {', '.join(RELEASES)}); see tools/toolchain.py to add it")
    # release: an installed prefix's folder, per release (the debug build installs in place of
    # the release build); folder: the build tree's, per release and debug level.
    release = f"emscripten-{name}"
    return dict(RELEASES[name], emcc=path, version=name, folder=release + debug_suffix(), release=release)


def debug_suffix():
    """'-debugN' when WS_DEBUG=N (1 or 2) asks for the debug build (src/platform/debug.h), whose
    libraries and programs must never mix with the release build's; else ''."""
    level = os.environ.get("WS_DEBUG", "")
    return f"-debug{level}" if level in ("1", "2") else ""


def build_dir(toolchain):
    """Where this release's libraries, peers and generated files go: one folder per release."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    return os.environ.get("WASMSCALE_BUILD_DIR") or os.path.join(root, "build", toolchain["folder"])


def main(argv):
    args = list(argv)
    emcc = None
    if args[:1] == ["--emcc"] and len(args) >= 2:
        emcc, args = args[1], args[2:]
    if args not in (["folder"], ["json"]):
        print("usage: toolchain.py [--emcc EMCC] folder|json", file=sys.stderr)
        return 2
    try:
        toolchain = identify(emcc)
    except ToolchainError as problem:
        print(f"wasmscale: {problem}", file=sys.stderr)
        return 2
    print(toolchain["folder"] if args == ["folder"] else json.dumps(toolchain))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
