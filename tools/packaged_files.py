"""emcc's --preload-file and --embed-file for programs built with --fs=wasmscale: the driver
runs the Emscripten release's own file packager (tools/file_packager.py beside its emcc), as
emcc does, and links what it makes, which reaches wasmscale's file system instead of the JS one:

- preloaded files: OUTPUT.data beside the program, and a --pre-js that loads it and writes
  the files through Module.FS_createPath and Module.FS_createDataFile (emscripten_fs.js queues
  what comes before the runtime has started);
- embedded files: an object holding the data and Emscripten's table of it,
  __emscripten_embedded_file_data, which src/fs/embedded.c reads.

emcc would do the same but also link its JS file system, which `--preload-file` forces on.
"""

import hashlib
import json
import os
import subprocess
import sys


class PackagingError(Exception):
    """A packaging problem, named in one line."""


def file_packager(emcc):
    """The release's file_packager.py (emcc resolves, through Debian's wrapper link or directly
    in an emsdk, into Emscripten's root)."""
    path = os.path.join(os.path.dirname(os.path.realpath(emcc)), "tools", "file_packager.py")
    if not os.path.isfile(path):
        raise PackagingError(f"no tools/file_packager.py beside {os.path.realpath(emcc)}")
    return path


def data_file_name(output):
    """emcc's name for the preload package: the output's name with .data for its extension."""
    stem, extension = os.path.splitext(output)
    return (stem if extension in (".js", ".mjs", ".html") else output) + ".data"


def run_packager(emcc, target, arguments):
    command = [os.environ.get("EMSDK_PYTHON", sys.executable), file_packager(emcc), target] + arguments
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        said = [line for line in (result.stderr or result.stdout).splitlines() if line.strip()]
        raise PackagingError(f"the file packager failed: {said[-1] if said else f'exit {result.returncode}'}")


def scratch_name(build_dir, output, suffix):
    """A file of the packager's, one per program (parallel builds of different programs never
    share one), in the build folder's packaged/."""
    folder = os.path.join(build_dir, "packaged")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, hashlib.sha256(os.path.abspath(output).encode()).hexdigest()[:16] + suffix)


# Appended to the packager's loader. On Node, where it reads the package the way emcc's does
# (through Module.locateFile, else relative to the working directory), the loader only logs a
# missing package and main then waits for it forever: this stops the program instead, naming it.
MISSING_PACKAGE_CHECK = """
// wasmscale-cc --preload-file: a missing package stops the program, named.
(function() {
  if (typeof process != 'object' || Module['ENVIRONMENT_IS_PTHREAD'] || !require('worker_threads').isMainThread) return;
  var name = Module['locateFile'] ? Module['locateFile'](%(package)s, '') : %(package)s;
  if (!require('fs').existsSync(name)) {
    throw new Error('wasmscale: --preload-file package ' + name + ' not found (from ' + process.cwd() + '): ' +
                    'run the program where it can be read, or give Module.locateFile');
  }
})();
"""


def preload(emcc, specs, options, output, build_dir):
    """Packages SRC[@DST] specs into OUTPUT.data; returns the --pre-js that loads them."""
    data = data_file_name(output)
    os.makedirs(os.path.dirname(os.path.abspath(data)), exist_ok=True)
    pre_js = scratch_name(build_dir, output, "-preload.js")
    run_packager(emcc, data, ["--preload", *specs, *options, f"--js-output={pre_js}"])
    with open(pre_js, "a") as loader:
        loader.write(MISSING_PACKAGE_CHECK % {"package": json.dumps(os.path.basename(data))})
    return pre_js


def embed(emcc, specs, options, output, build_dir):
    """Packages SRC[@DST] specs into an object file to link; returns its path."""
    obj = scratch_name(build_dir, output, "-embedded.o")
    # The packager's JS (to stdout, not kept) would copy the files into the JS file system.
    run_packager(emcc, scratch_name(build_dir, output, "-embedded.data"),
                 ["--embed", *specs, *options, f"--obj-output={obj}"])
    return obj


def initial_memory_for(embedded_size):
    """Linear memory that holds the embedded data (static, in the module) and the files made
    from it, with emcc's default 16 MiB for the rest, in whole 64 KiB pages."""
    wanted = 16 * 1024 * 1024 + 2 * embedded_size
    return -(-wanted // 65536) * 65536
