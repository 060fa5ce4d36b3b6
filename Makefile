# wasmscale build. Every output goes under build/ (git-ignored). See docs/build.md for why Make.
#
#   make bench        set up, build every benchmark program, run the suite, write the report
#   make bench QUICK=1   the same with little work per run (what the tests use)
#   make test         set up and run every test
#   make programs     only build the benchmark programs

BUILD   := build
WSCC    := bin/wasmscale-cc
export NODE_PATH ?= /usr/share/nodejs
NODE    := node

# Every benchmark program shares these emcc flags; "-pthread" programs also proxy main().
BENCH_CFLAGS := -O2 -pthread -sEXIT_RUNTIME=1 -sPTHREAD_POOL_SIZE=6 -sALLOW_MEMORY_GROWTH=1 \
                -Wno-pthreads-mem-growth
BENCH_HARNESS := bench/src/harness.c bench/src/harness.h
# Peer glue is built by the driver; a change to it must relink the programs too.
PEER_SOURCES  := $(wildcard peers/mimalloc/*) src/platform/emscripten/sbrk.c

.PHONY: all setup programs bench test test-unit clean
.DELETE_ON_ERROR:

all: programs

setup:
	@scripts/setup.sh

# The runner's matrix names the programs: <workload>-<malloc>-<fs>-<where>.
BENCH_PROGRAMS := $(shell $(NODE) bench/runner/matrix.mjs --programs)
programs: $(BENCH_PROGRAMS:%=$(BUILD)/bench/%.js)

field = $(word $(1),$(subst -, ,$(2)))
.SECONDEXPANSION:
$(BUILD)/bench/%.js: bench/src/$$(call field,1,$$*).c $(BENCH_HARNESS) $(PEER_SOURCES) $(WSCC) | setup
	@mkdir -p $(@D)
	@echo "build: $@"
	@$(WSCC) --malloc=$(call field,2,$*) --fs=$(call field,3,$*) $(BENCH_CFLAGS) \
	  $(if $(filter pthread,$(call field,4,$*)),-sPROXY_TO_PTHREAD) \
	  $< bench/src/harness.c -o $@

bench: programs
	$(NODE) bench/runner/run.mjs $(if $(QUICK),--quick)

test: programs
	$(NODE) --test --test-concurrency=1 tests/

clean:
	rm -rf $(BUILD)
