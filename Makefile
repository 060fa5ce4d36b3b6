# wasmscale build. Every output goes under build/ (git-ignored). See docs/build.md for why Make.
#
#   make bench        set up, build every benchmark program, run the suite, write the report
#   make bench QUICK=1   the same with little work per run (what the tests use); THREADS=1,2,4,8,16 for more threads
#   make bench-scaling   the Node-only scaling subset up to 16 threads, as a kit to carry (build/scaling-kit)
#   make test         set up and run every test (and again in the debug build: make test-debug)
#   make programs     only build the benchmark programs
#   make libs         only build the wasmscale libraries (Wasm and native)
#   make install PREFIX=DIR   install the drivers, headers, libraries, pkg-config and CMake files
#   make mutation     mutation-test the suite (MUTATION_ARGS="--per-file N --seed S"; docs/testing.md)

BUILD   := build
WSCC    := bin/wasmscale-cc
EMCC    ?= emcc
CC      := gcc
export NODE_PATH ?= /usr/share/nodejs
export EMCC
NODE    := node
# WS_DEBUG=1 or 2 (from the environment or the command line): the debug build, with the checks of
# src/platform/debug.h compiled in. Its Wasm outputs get a folder of their own (tools/toolchain.py
# adds -debugN), its native libraries build/debugN/lib/native.
DEBUG_CFLAGS := $(if $(filter 1 2,$(WS_DEBUG)),-DWS_DEBUG=$(WS_DEBUG))
export WS_DEBUG
NATIVE_BUILD := $(BUILD)$(if $(DEBUG_CFLAGS),/debug$(WS_DEBUG))
# Wasm outputs go to a folder of their toolchain's own (tools/toolchain.py: build/emscripten-VERSION),
# so builds with two Emscripten releases never mix; native ones stay in build/. Before set-up has
# installed emcc the folder is unknown; `test` and `bench` set up first and ask again.
ifndef WASM_BUILD
WASM_BUILD := $(BUILD)/$(or $(shell WS_DEBUG="$(WS_DEBUG)" python3 tools/toolchain.py --emcc "$(EMCC)" folder 2>/dev/null),emscripten-unknown)
endif
EMAR    ?= $(patsubst %emcc,%emar,$(EMCC))

# Every benchmark program shares these emcc flags; "-pthread" programs also proxy main().
BENCH_CFLAGS := -O2 -pthread -sEXIT_RUNTIME=1 -sPTHREAD_POOL_SIZE=6 -sALLOW_MEMORY_GROWTH=1 \
                -Wno-pthreads-mem-growth
# The harness every benchmark program is built with, and the headers beside it (a change to
# either rebuilds them all).
BENCH_HARNESS := bench/src/harness.c bench/src/harness.h bench/src/malloc_shape.h

.PHONY: all setup libs wasm-libs programs scaling-programs bench bench-scaling test test-debug install mutation clean
.DELETE_ON_ERROR:

all: libs programs

# ----- the allocator library ------------------------------------------------------------------
# One core, several builds: Wasm with and without pthreads, Wasm checked mode, and native
# (static and shared) for sanitizer tests and native comparisons.
ALLOC_SOURCES   := $(wildcard src/alloc/*.c) src/platform/common.c
ALLOC_HEADERS   := $(wildcard src/alloc/*.h src/platform/*.h include/wasmscale/*.h)
WASM_PLATFORM   := src/platform/emscripten/prim.c src/platform/emscripten/sbrk.c
NATIVE_PLATFORM := src/platform/posix/prim.c
ALLOC_WARNINGS  := -std=c11 -Wall -Wextra -Werror -Iinclude

# $(call c_library,LIBRARY,VARIANT,OBJECT_DIR,COMPILER,ARCHIVER,FLAGS,HEADERS,SOURCES,ROOT): compiles
# SOURCES into ROOT/obj/OBJECT_DIR/ and archives them as ROOT/lib/VARIANT/libwasmscale-LIBRARY.a.
# OBJECT_FLAGS, set for some objects as a target-specific variable, come after FLAGS.
define c_library
$(9)/obj/$(3)/%.o: %.c $(7)
	@mkdir -p $$(@D)
	@$(4) $(6) $$(OBJECT_FLAGS) -c $$< -o $$@
$(9)/lib/$(2)/libwasmscale-$(1).a: $$(patsubst %.c,$(9)/obj/$(3)/%.o,$(8))
	@mkdir -p $$(@D)
	@echo "build: $$@"
	@rm -f $$@ && $(5) rcs $$@ $$^
endef

# $(call alloc_library,VARIANT,COMPILER,ARCHIVER,FLAGS,PLATFORM_SOURCES,ROOT)
alloc_library = $(call c_library,alloc,$(1),$(1),$(2),$(3),$(ALLOC_WARNINGS) $(DEBUG_CFLAGS) $(4),$(ALLOC_HEADERS),$(ALLOC_SOURCES) $(5),$(6))
$(eval $(call alloc_library,wasm-mt,$(EMCC),$(EMAR),-O2 -pthread,$(WASM_PLATFORM),$(WASM_BUILD)))
$(eval $(call alloc_library,wasm-st,$(EMCC),$(EMAR),-O2,$(WASM_PLATFORM),$(WASM_BUILD)))
$(eval $(call alloc_library,wasm-mt-checked,$(EMCC),$(EMAR),-O2 -pthread -DWS_CHECKED=1,$(WASM_PLATFORM),$(WASM_BUILD)))
$(eval $(call alloc_library,wasm-st-checked,$(EMCC),$(EMAR),-O2 -DWS_CHECKED=1,$(WASM_PLATFORM),$(WASM_BUILD)))
$(eval $(call alloc_library,native,$(CC),ar,-O2 -g -pthread -fPIC,$(NATIVE_PLATFORM),$(NATIVE_BUILD)))

$(NATIVE_BUILD)/lib/native/libwasmscale-alloc.so: $(patsubst %.c,$(NATIVE_BUILD)/obj/native/%.o,$(ALLOC_SOURCES) $(NATIVE_PLATFORM))
	@mkdir -p $(@D)
	@echo "build: $@"
	@$(CC) -shared -pthread $^ -o $@

WASM_LIBS := $(foreach v,wasm-mt wasm-st wasm-mt-checked wasm-st-checked,$(WASM_BUILD)/lib/$(v)/libwasmscale-alloc.a)

# ----- the file-system library ----------------------------------------------------------------
# The core and the memory backend build for Wasm (with the syscall layer and the console) and
# natively (the core alone, which native tests call directly).
FS_CORE     := $(wildcard src/fs/*.c src/fs/memory/*.c src/fs/host/*.c) src/platform/common.c
FS_HEADERS  := $(wildcard src/fs/*.h src/fs/*/*.h src/platform/*.h include/wasmscale/*.h)
FS_WASM     := $(FS_CORE) $(wildcard src/fs/syscalls/*.c src/fs/js/*.c src/fs/opfs/*.c) \
               $(addprefix src/platform/emscripten/,console.c futex.c host.c fetch.c opfs.c)
FS_NATIVE   := $(FS_CORE) src/platform/posix/prim.c src/platform/posix/host.c src/platform/posix/fetch.c
FS_WARNINGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude

# $(call fs_library,VARIANT,COMPILER,ARCHIVER,FLAGS,SOURCES,ROOT)
fs_library = $(call c_library,fs,$(1),fs-$(1),$(2),$(3),$(FS_WARNINGS) $(DEBUG_CFLAGS) $(4),$(FS_HEADERS),$(5),$(6))
# In Wasm the file system is built for size (-Oz): most of a call's time is its work on paths,
# nodes and the host. FS_SPEED, on the path of every read, write and seek (the descriptor table,
# a memory file's data, the WASI calls), is built for speed (-O2): there the instructions are
# the time. All of io.c at -O2 would cost more bytes than the size target leaves; its transfer()
# inlines its helpers by itself (the trades measured: docs/decisions.md, "-O2 where every call
# runs"). Each object gets one level: emcc given -Oz and then -O2 keeps -Oz's shrink level.
FS_SPEED := src/fs/fdtable.c src/fs/memory/file.c src/fs/syscalls/wasi.c
$(eval $(call fs_library,wasm-mt,$(EMCC),$(EMAR),-pthread,$(FS_WASM),$(WASM_BUILD)))
$(eval $(call fs_library,wasm-st,$(EMCC),$(EMAR),,$(FS_WASM),$(WASM_BUILD)))
$(WASM_BUILD)/obj/fs-wasm-mt/%.o $(WASM_BUILD)/obj/fs-wasm-st/%.o: OBJECT_FLAGS = -Oz
$(foreach v,wasm-mt wasm-st,$(patsubst %.c,$(WASM_BUILD)/obj/fs-$(v)/%.o,$(FS_SPEED))): OBJECT_FLAGS = -O2
$(eval $(call fs_library,native,$(CC),ar,-O2 -g -pthread,$(FS_NATIVE),$(NATIVE_BUILD)))
WASM_FS_LIBS := $(foreach v,wasm-mt wasm-st,$(WASM_BUILD)/lib/$(v)/libwasmscale-fs.a)

libs: $(WASM_LIBS) $(WASM_FS_LIBS) $(NATIVE_BUILD)/lib/native/libwasmscale-fs.a $(NATIVE_BUILD)/lib/native/libwasmscale-alloc.a \
      $(NATIVE_BUILD)/lib/native/libwasmscale-alloc.so
wasm-libs: $(WASM_LIBS) $(WASM_FS_LIBS)

# ----- install ----------------------------------------------------------------------------------
# The drivers, headers, every Wasm variant of the libraries for the release EMCC names, and the
# pkg-config and CMake files (tools/install.py says where each goes). Run again with another
# EMCC to add that release's libraries. Needs only Emscripten: set-up installs nothing else here.
PREFIX ?= /usr/local
install:
	@scripts/setup.sh toolchain
	@$(MAKE) --no-print-directory wasm-libs
	@python3 tools/install.py --prefix "$(PREFIX)" --destdir "$(DESTDIR)" --build "$(BUILD)"

# ----- benchmark programs -----------------------------------------------------------------------
# Libraries are built by the driver on demand; a change to them must relink the programs too.
PEER_SOURCES  := $(wildcard peers/mimalloc/*) $(ALLOC_SOURCES) $(ALLOC_HEADERS) $(WASM_PLATFORM) $(FS_WASM) $(FS_HEADERS) \
                 $(wildcard src/platform/emscripten/*.js)

setup:
	@scripts/setup.sh

# The runner's matrix names the programs: <workload>-<malloc>-<fs>-<where>. Node is asked only
# when a goal builds them: the driver's make of one library must not wait for it. (Empty before
# set-up has installed emcc: the recursive make that builds them asks again.)
wants_goal = $(if $(MAKECMDGOALS),$(filter $(1),$(MAKECMDGOALS)),$(filter $(1),all))
BENCH_PROGRAMS := $(if $(call wants_goal,all programs),$(shell $(NODE) bench/runner/matrix.mjs --programs 2>/dev/null))
programs: $(BENCH_PROGRAMS:%=$(WASM_BUILD)/bench/%.js) $(BUILD)/bench/native-malloc $(NATIVE_BUILD)/lib/native/libwasmscale-alloc.so \
          $(WASM_BUILD)/bench/size-baseline.wasm $(BUILD)/bench/contention-malloc

# The malloc benchmark with a bump allocator: the report's zero for "code an allocator adds".
$(WASM_BUILD)/bench/size-baseline.wasm: bench/src/malloc.c $(BENCH_HARNESS) peers/size-baseline/bump.c src/platform/emscripten/sbrk.c | setup
	@mkdir -p $(@D)
	@echo "build: $@"
	@$(EMCC) $(BENCH_CFLAGS) -sPROXY_TO_PTHREAD -sMALLOC=none bench/src/malloc.c bench/src/harness.c \
	  peers/size-baseline/bump.c src/platform/emscripten/sbrk.c -o $(@:.wasm=.js)

# The malloc benchmark with the coalescing-heap prototype (bench/micro/coalescing_heap.c; the
# "-merging" build merges every free at once). Measurements only: `programs` does not build them.
COALESCING_HEAP_SOURCES := bench/src/malloc.c bench/src/harness.c bench/micro/coalescing_heap.c src/platform/emscripten/sbrk.c
$(WASM_BUILD)/bench/malloc-coalescing-heap.js: CACHE_FLAGS :=
$(WASM_BUILD)/bench/malloc-coalescing-heap-merging.js: CACHE_FLAGS := -DCACHE_MAX=0
$(WASM_BUILD)/bench/malloc-coalescing-heap.js $(WASM_BUILD)/bench/malloc-coalescing-heap-merging.js: \
    $(COALESCING_HEAP_SOURCES) $(BENCH_HARNESS) | setup
	@mkdir -p $(@D)
	@echo "build: $@"
	@$(EMCC) $(BENCH_CFLAGS) -sPROXY_TO_PTHREAD -sMALLOC=none $(CACHE_FLAGS) $(COALESCING_HEAP_SOURCES) -o $@

# The near-native reference: the same malloc workload, gcc -O2; allocators come by LD_PRELOAD.
$(BUILD)/bench/native-malloc: bench/src/malloc.c $(BENCH_HARNESS)
	@mkdir -p $(@D)
	@echo "build: $@"
	@$(CC) -O2 -pthread bench/src/malloc.c bench/src/harness.c -o $@

# The contention probe: the same workload with the allocator compiled for the probe's hooks
# (bench/contention/probe.c; -fsanitize=thread at compile time only, so the hooks are the probe's
# and not ThreadSanitizer's runtime). bench/runner/contention.mjs runs it.
PROBE_CC := clang-14
$(BUILD)/bench/contention-malloc: bench/src/malloc.c $(BENCH_HARNESS) bench/contention/probe.c $(ALLOC_SOURCES) \
                                  $(NATIVE_PLATFORM) $(ALLOC_HEADERS)
	@mkdir -p $(@D) $(BUILD)/obj/contention
	@echo "build: $@"
	@rm -f $(BUILD)/obj/contention/*.o
	@cd $(BUILD)/obj/contention && $(PROBE_CC) -O2 -pthread $(ALLOC_WARNINGS:-Iinclude=-I$(CURDIR)/include) -fsanitize=thread \
	  -DWS_CONTENTION_PROBE -c $(addprefix $(CURDIR)/,$(ALLOC_SOURCES) $(NATIVE_PLATFORM))
	@$(PROBE_CC) -O2 -pthread -Iinclude bench/src/malloc.c bench/src/harness.c bench/contention/probe.c \
	  $(BUILD)/obj/contention/*.o -o $@

field = $(word $(1),$(subst -, ,$(2)))
# The fs names of the benchmark's persistent-storage configurations (bench/runner/matrix.mjs):
# /tmp mounted on a host directory (Node) or on the origin's storage (Chromium).
STORAGE_PRE_JS := bench/src/host_dir.pre.js bench/src/browser_storage.pre.js
STORAGE_FS_FLAGS_host       := --fs=wasmscale --backend=host --pre-js bench/src/host_dir.pre.js
STORAGE_FS_FLAGS_nodefs     := --fs=js -lnodefs.js --pre-js bench/src/host_dir.pre.js
STORAGE_FS_FLAGS_wasmfsnode := --fs=wasmfs -lnodefs.js -sFORCE_FILESYSTEM --pre-js bench/src/host_dir.pre.js
STORAGE_FS_FLAGS_rawfs      := --fs=wasmscale -sNODERAWFS
STORAGE_FS_FLAGS_noderawfs  := --fs=js -sNODERAWFS
STORAGE_FS_FLAGS_opfs       := --fs=wasmscale --backend=opfs --pre-js bench/src/browser_storage.pre.js
STORAGE_FS_FLAGS_idbfs      := --fs=js -lidbfs.js --pre-js bench/src/browser_storage.pre.js
STORAGE_FS_FLAGS_wasmfsopfs := --fs=wasmfs -lopfs.js -sFORCE_FILESYSTEM --pre-js bench/src/browser_storage.pre.js
bench_fs_flags = $(or $(STORAGE_FS_FLAGS_$(1)),--fs=$(1))
# The pgzip workload links the example's file compression and zlib-ng, built as the example
# builds it (with emcmake and the installed toolchain file, once per release).
PGZIP_ZLIB := $(WASM_BUILD)/pgzip/zlib-ng
PGZIP_SOURCES := examples/pgzip/gzip_file.c examples/pgzip/gzip_file.h $(PGZIP_ZLIB)/libz.a
bench_extra_sources = $(if $(filter pgzip,$(1)),$(PGZIP_SOURCES))
bench_extra_flags = $(if $(filter pgzip,$(1)),-I$(PGZIP_ZLIB) examples/pgzip/gzip_file.c $(PGZIP_ZLIB)/libz.a)
$(PGZIP_ZLIB)/libz.a: | setup
	@echo "build: $@"
	@EMCC=$(EMCC) $(NODE) examples/pgzip/gzip-host-dir.mjs --build-zlib
.SECONDEXPANSION:
$(WASM_BUILD)/bench/%.js: bench/src/$$(call field,1,$$*).c $(BENCH_HARNESS) $(PEER_SOURCES) $(STORAGE_PRE_JS) $(WSCC) \
                          $$(call bench_extra_sources,$$(call field,1,$$*)) | setup
	@mkdir -p $(@D)
	@echo "build: $@"
	@$(WSCC) --malloc=$(call field,2,$*) $(call bench_fs_flags,$(call field,3,$*)) $(BENCH_CFLAGS) \
	  $(if $(filter pthread,$(call field,4,$*)),-sPROXY_TO_PTHREAD) \
	  $< bench/src/harness.c $(call bench_extra_flags,$(call field,1,$*)) -o $@

# Set-up runs first, alone: on a fresh machine nothing can compile before it has installed emcc.
# (Not a prerequisite of the libraries: the driver builds those on a user's machine too.)
bench:
	@scripts/setup.sh
	@$(MAKE) --no-print-directory libs programs
	$(NODE) bench/runner/run.mjs $(if $(QUICK),--quick) $(if $(THREADS),--threads=$(THREADS))

# The scaling subset (bench/runner/scaling.mjs) up to 16 threads, made into a kit in
# build/scaling-kit that runs here or, carried over, on a machine with more cores; its report
# goes to bench/results/scaling/.
SCALING_PROGRAMS := $(if $(call wants_goal,scaling-programs),$(shell $(NODE) bench/runner/scaling.mjs --programs 2>/dev/null))
SCALING_THREADS := 1,2,4,8,16
bench-scaling:
	@scripts/setup.sh
	@$(MAKE) --no-print-directory scaling-programs
	$(NODE) bench/runner/scaling.mjs --threads=$(or $(THREADS),$(SCALING_THREADS)) $(if $(QUICK),--quick)
	$(NODE) $(BUILD)/scaling-kit/run.mjs --out=bench/results/scaling
	$(NODE) bench/runner/report.mjs $$(ls -t bench/results/scaling/scaling-*.json | head -1)
scaling-programs: $(SCALING_PROGRAMS:%=$(WASM_BUILD)/bench/%.js) $(BUILD)/bench/contention-malloc

# Every test, then the browser tests again in Firefox (their titles end "in Firefox"), then the
# suite once more in the debug build (WS_DEBUG=2: the checks and validators of
# src/platform/debug.h), but for the two files that never reach its libraries: the benchmark's
# (it measures the release build) and the mutation test's (it compiles its mutants itself).
# TEST_DEBUG=0 leaves the debug pass out. TEST_MUTATION=0 leaves the mutation sample out (its test
# says so): the sample measures the tests, which are the same whichever release builds them, so
# .ci/run draws it in the default release's pass only.
BROWSER_TESTS := tests/fs.test.mjs tests/packaging.test.mjs tests/opfs.test.mjs tests/examples.test.mjs
NODE_TEST := $(NODE) --test --test-concurrency=1 --test-timeout=1200000
DEBUG_TESTS := $(filter-out tests/bench.test.mjs tests/mutation.test.mjs,$(wildcard tests/*.test.mjs))
TEST_DEBUG ?= 1
TEST_MUTATION ?= 1
export TEST_MUTATION
test:
	@scripts/setup.sh
	@$(MAKE) --no-print-directory libs programs
	$(NODE_TEST) tests/
	WASMSCALE_BROWSER=firefox $(NODE_TEST) --test-name-pattern="in Firefox" $(BROWSER_TESTS)
ifeq ($(TEST_DEBUG),1)
	@$(MAKE) --no-print-directory test-debug
endif

test-debug:
	@scripts/setup.sh
	@echo "test: the suite in the debug build (WS_DEBUG=2), but for tests/bench.test.mjs and tests/mutation.test.mjs"
	@WS_DEBUG=2 $(MAKE) --no-print-directory libs
	WS_DEBUG=2 $(NODE_TEST) $(DEBUG_TESTS)

# Mutants of the files where bugs cost most, each run against the tests that cover its file
# (tools/mutation.py); the report goes to build/mutation/report.md.
MUTATION_ARGS ?= --per-file 40 --seed 1
mutation:
	@scripts/setup.sh
	$(BUILD)/venv/bin/python tools/mutation.py $(MUTATION_ARGS)

clean:
	rm -rf $(BUILD)
