#!/usr/bin/env bash
# Fetch real mimalloc C sources from the crates.io package libmimalloc-sys, with cargo,
# into a folder under build/. Prints the path of the mimalloc v2 source tree.
# Usage: fetch.sh BUILD_DIR
set -euo pipefail
version=0.1.49   # bundles mimalloc v2.3 under c_src/mimalloc/v2
exec "$(dirname "$0")/../../scripts/fetch-crate.sh" "$1" libmimalloc-sys "$version" c_src/mimalloc/v2
