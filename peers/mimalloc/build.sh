#!/usr/bin/env bash
# Builds real mimalloc v2 (from crates.io's libmimalloc-sys) as a drop-in malloc for
# Emscripten 3.1.6 -sMALLOC=none programs, with the glue it needs. Called by bin/wasmscale-cc
# under a lock; prints progress on stderr.
# Usage: build.sh OUT_LIBRARY THREADING   (THREADING: mt | st)
set -euo pipefail
out=$1 threading=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
emcc=${EMCC:-emcc}
work=$(dirname "$out")/obj-$threading
src=$("$here/fetch.sh" "$(dirname "$(dirname "$out")")")
# emcc resolves (through Debian's wrapper link, or directly in emsdk) into Emscripten's root.
emscripten_lib=$(dirname "$(readlink -f "$(command -v "$emcc")")")/system/lib
[ -f "$emscripten_lib/emmalloc.c" ] || { echo "wasmscale: cannot find emmalloc.c in $emscripten_lib" >&2; exit 2; }

flags=(-O2 -DNDEBUG)
[ "$threading" = mt ] && flags+=(-pthread)
mkdir -p "$work"
echo "wasmscale: building mimalloc peer ($threading) from $src" >&2

# mimalloc itself, unmodified, overriding the standard malloc names.
"$emcc" "${flags[@]}" -DMI_MALLOC_OVERRIDE -I"$src/include" -c "$src/src/static.c" -o "$work/mimalloc.o"

# emmalloc serves the emscripten_builtin_* entry points (see glue.c); its standard names are
# renamed so they do not clash with mimalloc's.
renames=()
for name in malloc free calloc realloc memalign aligned_alloc posix_memalign malloc_usable_size \
            mallinfo malloc_trim aligned_realloc emscripten_builtin_malloc emscripten_builtin_memalign \
            emscripten_builtin_free __libc_malloc __libc_free __libc_calloc __libc_realloc; do
  renames+=("-D$name=peer_emmalloc_hidden_$name")
done
"$emcc" "${flags[@]}" "${renames[@]}" -c "$emscripten_lib/emmalloc.c" -o "$work/emmalloc.o"

"$emcc" "${flags[@]}" -c "$here/glue.c" -o "$work/glue.o"
"$emcc" "${flags[@]}" -c "$root/src/platform/emscripten/sbrk.c" -o "$work/sbrk.o"

rm -f "$out.tmp"
"${EMAR:-emar}" rcs "$out.tmp" "$work/mimalloc.o" "$work/emmalloc.o" "$work/glue.o" "$work/sbrk.o"
mv "$out.tmp" "$out"
