#!/usr/bin/env bash
# Fetches a crates.io package's sources with cargo (once; later calls find them) into
# BUILD_DIR/cargo-home and prints the path of INSIDE within the package: how wasmscale gets the
# C sources it builds but does not ship (mimalloc for the benchmark, zlib-ng for the pgzip
# example).
# Usage: fetch-crate.sh BUILD_DIR CRATE VERSION INSIDE
set -euo pipefail
build_dir=$1 crate=$2 version=$3 inside=$4
cargo_home="$build_dir/cargo-home"
project="$build_dir/cargo-fetch-$crate"
find_src() { ls -d "$cargo_home"/registry/src/*/"$crate-$version/$inside" 2>/dev/null | head -n 1; }

src=$(find_src || true)
if [ -z "$src" ]; then
  command -v "${CARGO:-cargo}" >/dev/null || { echo "wasmscale: cargo not found (${CARGO:-cargo}) (install rustup or apt-get install cargo)" >&2; exit 2; }
  echo "wasmscale: fetching $crate $version with cargo into $cargo_home" >&2
  mkdir -p "$project/src"
  cat > "$project/Cargo.toml" <<TOML
[package]
name = "wasmscale-fetch-$crate"
version = "0.0.0"
edition = "2021"

[dependencies]
$crate = { version = "=$version", default-features = false }
TOML
  : > "$project/src/lib.rs"
  CARGO_HOME="$cargo_home" "${CARGO:-cargo}" fetch --quiet --manifest-path "$project/Cargo.toml" >&2
  src=$(find_src || true)
  [ -n "$src" ] || { echo "wasmscale: $crate $version has no $inside" >&2; exit 2; }
fi
echo "$src"
