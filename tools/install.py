#!/usr/bin/env python3
"""Installs wasmscale for one Emscripten release into a prefix (`make install`):

    PREFIX/bin/wasmscale-cc, wasmscale-c++         the drivers (links into share/wasmscale/bin)
    PREFIX/share/wasmscale/                        the drivers' support files (tools/, JS libraries)
    PREFIX/include/wasmscale/                      the public headers
    PREFIX/lib/wasmscale/emscripten-VERSION/wasm-VARIANT/libwasmscale-{alloc,fs}.a
    PREFIX/lib/pkgconfig/wasmscale*.pc             one module per library and variant
    PREFIX/lib/cmake/wasmscale/                    find_package(wasmscale) and a toolchain file

Installing with a second release adds its libraries beside the first's; the pkg-config modules
then name the release installed last (`--define-variable=emscripten=VERSION` picks another),
while the CMake package picks the release the project is configured with. Every installed file
names the others by relative paths, so the tree can be moved (and DESTDIR staging works).

Usage: install.py --prefix PREFIX [--destdir DESTDIR] [--build BUILD]
(BUILD: the build folder holding emscripten-VERSION/lib, default build/; the release is the one
$EMCC, else emcc on PATH, names.)
"""

import argparse
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import libraries  # noqa: E402
import toolchain as toolchains  # noqa: E402

DRIVER_TOOLS = ["tools/libraries.py", "tools/packaged_files.py", "tools/toolchain.py"]
SHARE = "share/wasmscale"
LIBRARIES = "lib/wasmscale"


def copy(source, target):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy2(source, target)


def link(target, path):
    """A symbolic link at PATH to TARGET (relative), replacing what was there."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.remove(path)
    os.symlink(target, path)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        out.write(text)


def install_driver(dest):
    share = os.path.join(dest, SHARE)
    copy(os.path.join(ROOT, "bin", "wasmscale-cc"), os.path.join(share, "bin", "wasmscale-cc"))
    link("wasmscale-cc", os.path.join(share, "bin", "wasmscale-c++"))
    for name in DRIVER_TOOLS + libraries.SUPPORT_FILES:
        copy(os.path.join(ROOT, name), os.path.join(share, name))
    # What tells the driver it is installed, and where the rest is (relative to share/wasmscale).
    write(os.path.join(share, "installed.json"),
          json.dumps({"include": "../../include", "libraries": "../../" + LIBRARIES}, indent=2) + "\n")
    for program in ("wasmscale-cc", "wasmscale-c++"):
        link(f"../{SHARE}/bin/{program}", os.path.join(dest, "bin", program))
    for header in sorted(os.listdir(os.path.join(ROOT, "include", "wasmscale"))):
        copy(os.path.join(ROOT, "include", "wasmscale", header), os.path.join(dest, "include", "wasmscale", header))


def install_libraries(dest, built, release):
    """Every variant's libraries, all of which must have been built: a partial install would
    let a consumer find a variant and then fail to link it."""
    wanted = libraries.all_library_files()
    missing = [name for name in wanted if not os.path.isfile(os.path.join(built, name))]
    if missing:
        raise SystemExit(f"install: {', '.join(missing)} not built in {built}: run `make libs` first")
    for name in wanted:
        copy(os.path.join(built, name), os.path.join(dest, LIBRARIES, release, name))


# ----- pkg-config -------------------------------------------------------------------------------
# Module names: wasmscale (both libraries), wasmscale-alloc, wasmscale-fs; each multithreaded,
# with "-st" for single-threaded, and "-checked" for the checked allocator.

def module_suffix(threading, checked):
    return ("-st" if threading == "st" else "") + ("-checked" if checked else "")


def pkgconfig_module(name, description, version, release, requires="", cflags="", libs=""):
    return (f"prefix=${{pcfiledir}}/../..\n"
            f"includedir=${{prefix}}/include\n"
            f"share=${{prefix}}/{SHARE}\n"
            f"emscripten={release}\n"
            f"libdir=${{prefix}}/{LIBRARIES}/emscripten-${{emscripten}}\n\n"
            f"Name: {name}\nDescription: {description}\nVersion: {version}\n"
            + (f"Requires: {requires}\n" if requires else "")
            + f"Cflags: -I${{includedir}}{cflags}\n"
            + (f"Libs: {libs}\n" if libs else ""))


def install_pkgconfig(dest, version, release):
    folder = os.path.join(dest, "lib", "pkgconfig")
    for threading, checked in libraries.VARIANTS.values():
        suffix = module_suffix(threading, checked)
        pthread = " -pthread" if threading == "mt" else ""
        kind = ("multithreaded" if threading == "mt" else "single-threaded") + (", checked" if checked else "")
        alloc = f"wasmscale-alloc{suffix}"
        write(os.path.join(folder, alloc + ".pc"), pkgconfig_module(
            alloc, f"wasmscale's allocator for Emscripten ({kind})", version, release, cflags=pthread,
            libs=f"${{libdir}}/{libraries.library_file('alloc', threading, checked)}{pthread} "
                 + " ".join(libraries.ALLOC_ARGUMENTS)))
        fs = f"wasmscale-fs{module_suffix(threading, False)}"
        if not checked:
            write(os.path.join(folder, fs + ".pc"), pkgconfig_module(
                fs, f"wasmscale's file system for Emscripten ({kind})", version, release, cflags=pthread,
                libs=f"${{libdir}}/{libraries.library_file('fs', threading)}{pthread} "
                     + " ".join(libraries.fs_arguments("${share}"))))
        both = f"wasmscale{suffix}"
        write(os.path.join(folder, both + ".pc"), pkgconfig_module(
            both, f"wasmscale's allocator and file system for Emscripten ({kind})", version, release,
            requires=f"{alloc} {fs}"))


# ----- CMake ------------------------------------------------------------------------------------

def cmake_list(words):
    return ";".join(words)


CMAKE_CONFIG = """\
# wasmscale's CMake package: find_package(wasmscale) in a project configured for Emscripten
# (emcmake cmake ...). It picks the libraries of the release the project is configured with.
#
# Targets:  wasmscale::alloc  the allocator (replaces malloc and friends)
#           wasmscale::fs     the file system (replaces Emscripten's JS FS)
#           wasmscale::host, wasmscale::opfs   the file system plus that backend, for programs
#                             that mount it at run time (ws_fs_mount, Module.wasmscaleFS.mount)
# Variant:  set WASMSCALE_VARIANT before find_package: {variants} (default mt;
#           mt ones add -pthread to their users' compile and link).
get_filename_component(_wasmscale_prefix "${{CMAKE_CURRENT_LIST_DIR}}/../../.." ABSOLUTE)
set(_wasmscale_share "${{_wasmscale_prefix}}/{share}")
set(_wasmscale_variants {variants})
if(NOT DEFINED WASMSCALE_VARIANT)
  set(WASMSCALE_VARIANT mt)
endif()

if(NOT WASMSCALE_VARIANT IN_LIST _wasmscale_variants)
  set(wasmscale_FOUND FALSE)
  set(wasmscale_NOT_FOUND_MESSAGE
      "unknown WASMSCALE_VARIANT '${{WASMSCALE_VARIANT}}': expected one of {variants_text}")
  return()
endif()
if(NOT EMSCRIPTEN_VERSION)
  set(wasmscale_FOUND FALSE)
  set(wasmscale_NOT_FOUND_MESSAGE
      "the project is not configured for Emscripten (no EMSCRIPTEN_VERSION): configure it with emcmake cmake")
  return()
endif()

set(_wasmscale_release "${{_wasmscale_prefix}}/{libraries}/emscripten-${{EMSCRIPTEN_VERSION}}")
set(_wasmscale_alloc "${{_wasmscale_release}}/wasm-${{WASMSCALE_VARIANT}}/libwasmscale-alloc.a")
string(REPLACE "-checked" "" _wasmscale_threading "${{WASMSCALE_VARIANT}}")
set(_wasmscale_fs "${{_wasmscale_release}}/wasm-${{_wasmscale_threading}}/libwasmscale-fs.a")
if(NOT EXISTS "${{_wasmscale_alloc}}" OR NOT EXISTS "${{_wasmscale_fs}}")
  file(GLOB _wasmscale_installed RELATIVE "${{_wasmscale_prefix}}/{libraries}"
       "${{_wasmscale_prefix}}/{libraries}/emscripten-*/wasm-*")
  string(REPLACE ";" ", " _wasmscale_installed "${{_wasmscale_installed}}")
  set(wasmscale_FOUND FALSE)
  set(wasmscale_NOT_FOUND_MESSAGE
      "variant '${{WASMSCALE_VARIANT}}' for Emscripten ${{EMSCRIPTEN_VERSION}} is not installed in \\
${{_wasmscale_prefix}} (installed: ${{_wasmscale_installed}}): run `make install EMCC=...` with that release")
  return()
endif()

set(_wasmscale_pthread "")
if(_wasmscale_threading STREQUAL "mt")
  set(_wasmscale_pthread "-pthread")
endif()

if(NOT TARGET wasmscale::alloc)
  add_library(wasmscale::alloc STATIC IMPORTED)
  set_target_properties(wasmscale::alloc PROPERTIES
    IMPORTED_LOCATION "${{_wasmscale_alloc}}"
    INTERFACE_INCLUDE_DIRECTORIES "${{_wasmscale_prefix}}/include"
    INTERFACE_COMPILE_OPTIONS "${{_wasmscale_pthread}}"
    INTERFACE_LINK_OPTIONS "${{_wasmscale_pthread}};{alloc_arguments}")
  add_library(wasmscale::fs STATIC IMPORTED)
  set_target_properties(wasmscale::fs PROPERTIES
    IMPORTED_LOCATION "${{_wasmscale_fs}}"
    INTERFACE_INCLUDE_DIRECTORIES "${{_wasmscale_prefix}}/include"
    INTERFACE_COMPILE_OPTIONS "${{_wasmscale_pthread}}"
    INTERFACE_LINK_OPTIONS "${{_wasmscale_pthread}};{fs_arguments}")
{backends}endif()
set(wasmscale_FOUND TRUE)
"""

CMAKE_BACKEND = """\
  add_library(wasmscale::{name} INTERFACE IMPORTED)
  set_target_properties(wasmscale::{name} PROPERTIES
    INTERFACE_LINK_LIBRARIES wasmscale::fs
    INTERFACE_LINK_OPTIONS "{argument}")
"""

CMAKE_VERSION = """\
# find_package(wasmscale VERSION): this install is {version}; it serves requests for the same
# major version that are not newer (CMake's SameMajorVersion rule).
set(PACKAGE_VERSION "{version}")
set(PACKAGE_VERSION_COMPATIBLE FALSE)
if(PACKAGE_FIND_VERSION_MAJOR EQUAL {major} AND NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
"""

CMAKE_TOOLCHAIN = """\
# Builds every C and C++ target through wasmscale's drivers, so programs get wasmscale's
# allocator and file system with no other change (a target picks others with link options:
# --malloc=NAME or -sMALLOC=NAME, --fs=NAME). Use in place of Emscripten's toolchain file:
#   emcmake cmake -DCMAKE_TOOLCHAIN_FILE=${{PREFIX}}/lib/cmake/wasmscale/wasmscale-toolchain.cmake ...
# It loads Emscripten's own toolchain file from the release the drivers will run: $EMCC, else
# emcc on PATH, the same at build time as now.
if(DEFINED ENV{{EMCC}} AND NOT "$ENV{{EMCC}}" STREQUAL "")
  find_program(_wasmscale_emcc NAMES "$ENV{{EMCC}}" NO_CACHE)
else()
  find_program(_wasmscale_emcc NAMES emcc NO_CACHE)
endif()
if(NOT _wasmscale_emcc)
  message(FATAL_ERROR "wasmscale: emcc not found: put Emscripten's emcc on PATH or name it in EMCC")
endif()
# The release's own archiver, beside emcc as it was found (Emscripten.cmake of some releases
# would take emar from PATH): a packaged emcc is a link into a tree whose tools are named
# differently (Debian's: emar.py behind a wrapper), so the links' folder comes first.
get_filename_component(_wasmscale_tools "${{_wasmscale_emcc}}" DIRECTORY)
get_filename_component(_wasmscale_emcc "${{_wasmscale_emcc}}" REALPATH)
get_filename_component(EMSCRIPTEN_ROOT_PATH "${{_wasmscale_emcc}}" DIRECTORY)
if(NOT EXISTS "${{EMSCRIPTEN_ROOT_PATH}}/cmake/Modules/Platform/Emscripten.cmake")
  message(FATAL_ERROR "wasmscale: no cmake/Modules/Platform/Emscripten.cmake beside ${{_wasmscale_emcc}}")
endif()
if(NOT EXISTS "${{_wasmscale_tools}}/emar")
  set(_wasmscale_tools "${{EMSCRIPTEN_ROOT_PATH}}")
endif()
set(CMAKE_AR "${{_wasmscale_tools}}/emar" CACHE FILEPATH "Emscripten ar")
set(CMAKE_RANLIB "${{_wasmscale_tools}}/emranlib" CACHE FILEPATH "Emscripten ranlib")
# CMake loads Platform/Emscripten.cmake again as the platform's file, and later releases' copy
# sets emcc and em++ whatever was set before: ours, found first, loads it and then sets the drivers.
if(NOT "${{CMAKE_CURRENT_LIST_DIR}}/toolchain" IN_LIST CMAKE_MODULE_PATH)
  list(INSERT CMAKE_MODULE_PATH 0 "${{CMAKE_CURRENT_LIST_DIR}}/toolchain")
endif()
include("${{CMAKE_CURRENT_LIST_DIR}}/toolchain/Platform/Emscripten.cmake")
"""

CMAKE_PLATFORM = """\
# Emscripten's platform file, then wasmscale's drivers as the compilers (wasmscale-toolchain.cmake).
include("${{EMSCRIPTEN_ROOT_PATH}}/cmake/Modules/Platform/Emscripten.cmake")
get_filename_component(_wasmscale_prefix "${{CMAKE_CURRENT_LIST_DIR}}/../../../../.." ABSOLUTE)
set(CMAKE_C_COMPILER "${{_wasmscale_prefix}}/bin/wasmscale-cc")
set(CMAKE_CXX_COMPILER "${{_wasmscale_prefix}}/bin/wasmscale-c++")
"""


def install_cmake(dest, version):
    folder = os.path.join(dest, "lib", "cmake", "wasmscale")
    variants = " ".join(libraries.VARIANTS)
    backends = "".join(CMAKE_BACKEND.format(name=name, argument=libraries.backend_argument(name))
                       for name in libraries.BACKENDS)
    write(os.path.join(folder, "wasmscale-config.cmake"), CMAKE_CONFIG.format(
        variants=variants, variants_text=", ".join(libraries.VARIANTS), share=SHARE, libraries=LIBRARIES, backends=backends,
        alloc_arguments=cmake_list(libraries.ALLOC_ARGUMENTS),
        fs_arguments=cmake_list(libraries.fs_arguments("${_wasmscale_share}"))))
    write(os.path.join(folder, "wasmscale-config-version.cmake"),
          CMAKE_VERSION.format(version=version, major=version.split(".")[0]))
    write(os.path.join(folder, "wasmscale-toolchain.cmake"), CMAKE_TOOLCHAIN.format())
    write(os.path.join(folder, "toolchain", "Platform", "Emscripten.cmake"), CMAKE_PLATFORM.format())


def main(argv):
    parser = argparse.ArgumentParser(prog="install.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--destdir", default="")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args(argv)
    if not os.path.isabs(args.prefix):
        raise SystemExit(f"install: PREFIX must be an absolute path (got '{args.prefix}')")
    try:
        toolchain = toolchains.identify()
    except toolchains.ToolchainError as problem:
        raise SystemExit(f"install: {problem}")
    with open(os.path.join(ROOT, "package.json")) as package:
        version = json.load(package)["version"]
    dest = (args.destdir.rstrip("/") + args.prefix) if args.destdir else args.prefix
    install_libraries(dest, os.path.join(args.build, toolchain["folder"], "lib"), toolchain["release"])
    install_driver(dest)
    install_pkgconfig(dest, version, toolchain["version"])
    install_cmake(dest, version)
    print(f"install: wasmscale {version} for Emscripten {toolchain['version']} in {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
