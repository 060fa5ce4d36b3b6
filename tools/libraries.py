"""What linking wasmscale's libraries into a program takes: the library variants and the emcc
arguments that come with each library. One table, read by the driver (bin/wasmscale-cc) and by
the install step (tools/install.py), which writes the same arguments into pkg-config and CMake
files, so the three ways into a build link the same things.

Paths are built from SHARE, the folder that holds the driver's support files: the checkout's
root, or PREFIX/share/wasmscale once installed (a string, so the install step can pass
"${prefix}/share/wasmscale" and the like). Every argument is one word (emcc reads
--js-library=PATH as --js-library PATH), because pkg-config and CMake drop repeated words.
"""

import os
import re

# Variants of the Wasm libraries: (threading, checked). A multithreaded variant is built with
# -pthread and a program that links it must be too; the checked allocator stops on misuse
# (docs/allocator.md, "checked mode"). The file system has no checked variant.
VARIANTS = {
    "mt": ("mt", False),
    "st": ("st", False),
    "mt-checked": ("mt", True),
    "st-checked": ("st", True),
}


def variant_folder(threading, checked=False):
    """The folder, under a release's lib/, of one variant of the libraries."""
    return f"wasm-{threading}" + ("-checked" if checked else "")


def library_file(kind, threading, checked=False):
    """The path, under a release's lib/, of libwasmscale-KIND.a (alloc or fs) of a variant."""
    return f"{variant_folder(threading, checked and kind == 'alloc')}/libwasmscale-{kind}.a"


def all_library_files():
    """Every library file of a release, each once (the variants share their file system)."""
    return list(dict.fromkeys(library_file(kind, threading, checked) for threading, checked in VARIANTS.values()
                              for kind in ("alloc", "fs")))


# emcc arguments that link wasmscale's allocator: emcc's own malloc out of the way.
ALLOC_ARGUMENTS = ["-sMALLOC=none"]


def fs_arguments(share):
    """emcc arguments that link wasmscale's file system (besides libwasmscale-fs.a itself)."""
    emscripten = f"{share}/src/platform/emscripten"
    return [
        # runtime.js first: the others name the runtime helpers through it.
        f"--js-library={emscripten}/runtime.js",
        f"--js-library={emscripten}/console.js",
        f"--js-library={emscripten}/host.js",
        f"--js-library={emscripten}/fetch.js",
        # The OPFS worker's JS is emitted only into programs that link the OPFS client.
        f"--js-library={emscripten}/opfs.js",
        f"--js-library={emscripten}/opfs_worker.js",
        # Node workers that do not close descriptors other threads share.
        f"--pre-js={emscripten}/node_workers.pre.js",
        # The JS API (Module.wasmscaleFS; its C half is pulled from the library), and
        # Emscripten's FS API on top of it.
        f"--post-js={share}/src/fs/js/api.js", part_argument("js_api"),
        f"--post-js={share}/src/fs/js/emscripten_fs.js",
        # flock reaches the file system's locks instead of libc's stub (src/fs/syscalls/libc.c).
        "-Wl,--wrap=flock",
    ]


# The parts of the file system a program links only on request, and the symbol that asks for
# each: src/fs/linked.h is the one list, read here and by the C code (which refers to them weakly).
LINKED_MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "fs", "linked.h")


def linked_entries():
    """({name: symbol} of the manifest's WS_BACKEND lines, the same of its WS_PART lines), in order."""
    with open(LINKED_MANIFEST, encoding="utf-8") as manifest:
        text = manifest.read()
    return tuple(dict(re.findall(rf"^\s*{kind}\((\w+), (\w+)\)", text, re.M)) for kind in ("WS_BACKEND", "WS_PART"))


# Backends a program can mount at run time (ws_fs_mount, Module.wasmscaleFS.mount) beyond the
# memory backend, which is always there; and the parts the driver links for its own options.
BACKENDS, PARTS = linked_entries()


def backend_argument(name):
    return f"-Wl,--undefined={BACKENDS[name]}"


def part_argument(name):
    return f"-Wl,--undefined={PARTS[name]}"


# The files, relative to SHARE, that programs built by the driver need at link time: the
# install step copies these (with the driver and tools/) into PREFIX/share/wasmscale.
SUPPORT_FILES = [
    "src/platform/emscripten/runtime.js", "src/platform/emscripten/console.js",
    "src/platform/emscripten/host.js", "src/platform/emscripten/fetch.js", "src/platform/emscripten/opfs.js",
    "src/platform/emscripten/opfs_worker.js", "src/platform/emscripten/node_workers.pre.js",
    "src/fs/js/api.js", "src/fs/js/emscripten_fs.js", "src/fs/linked.h",
    # --malloc=mimalloc with releases that lack their own: built on first use (peers/mimalloc).
    "peers/mimalloc/build.sh", "peers/mimalloc/fetch.sh", "peers/mimalloc/glue.c",
    "src/platform/emscripten/sbrk.c",
]
