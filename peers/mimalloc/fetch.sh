#!/usr/bin/env bash
# Fetch real mimalloc C sources from the crates.io package libmimalloc-sys, with cargo,
# into a folder under build/. Prints the path of the mimalloc v2 source tree.
# Usage: fetch.sh BUILD_DIR
set -euo pipefail
version=0.1.49   # bundles mimalloc v2.3 under c_src/mimalloc/v2
build_dir=$1
cargo_home="$build_dir/cargo-home"
project="$build_dir/cargo-fetch"
find_src() { ls -d "$cargo_home"/registry/src/*/libmimalloc-sys-"$version"/c_src/mimalloc/v2 2>/dev/null | head -n 1; }

src=$(find_src || true)
if [ -z "$src" ]; then
  command -v "${CARGO:-cargo}" >/dev/null || { echo "wasmscale: cargo not found (${CARGO:-cargo}) (install rustup or apt-get install cargo)" >&2; exit 2; }
  echo "wasmscale: fetching libmimalloc-sys $version (mimalloc C sources) with cargo into $cargo_home" >&2
  mkdir -p "$project/src"
  cat > "$project/Cargo.toml" <<TOML
[package]
name = "wasmscale-mimalloc-fetch"
version = "0.0.0"
edition = "2021"

[dependencies]
libmimalloc-sys = { version = "=$version", features = [] }
TOML
  : > "$project/src/lib.rs"
  CARGO_HOME="$cargo_home" "${CARGO:-cargo}" fetch --quiet --manifest-path "$project/Cargo.toml" >&2
  src=$(find_src || true)
  [ -n "$src" ] || { echo "wasmscale: libmimalloc-sys $version has no c_src/mimalloc/v2" >&2; exit 2; }
fi
echo "$src"
