#!/usr/bin/env bash
# Installs what wasmscale's build, benchmarks and tests need, idempotently: each step checks
# first and says what it does. Run by `make bench` and `make test` (as root on Debian).
#   apt:   emscripten (emcc, clang-14, lld, binaryen), chromium, firefox-esr, clang-14 +
#          libclang-rt-14-dev, libmimalloc2.0 (the native reference allocator)
#   npm:   playwright-core (Chromium) and puppeteer-core (Firefox), pinned in package-lock.json
#   cargo: mimalloc's C sources are fetched later, on first use, by bin/wasmscale-cc
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*"; }

missing=()
command -v emcc >/dev/null || missing+=(emscripten)
command -v chromium >/dev/null || missing+=(chromium)
command -v firefox-esr >/dev/null || missing+=(firefox-esr)
command -v clang-14 >/dev/null || missing+=(clang-14)
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.a" >/dev/null || missing+=(libclang-rt-14-dev)
command -v cargo >/dev/null || missing+=(cargo)
[ -e /usr/lib/x86_64-linux-gnu/libmimalloc.so.2 ] || missing+=(libmimalloc2.0)  # native reference

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    say "missing Debian packages: ${missing[*]}; run as root or install them: apt-get install ${missing[*]}" >&2
    exit 2
  fi
  say "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  say "Debian packages present (emscripten, chromium, firefox-esr, clang-14, libclang-rt-14-dev, cargo, libmimalloc2.0)"
fi

# Each pinned package at its locked version, else npm ci installs them all.
installed() { node -p "try { require('./node_modules/$1/package.json').version } catch (e) { '' }"; }
locked() { node -p "require('./package-lock.json').packages['node_modules/$1'].version"; }
stale=()
for package in playwright-core puppeteer-core; do
  [ "$(installed $package)" = "$(locked $package)" ] || stale+=("$package")
done
if [ ${#stale[@]} -gt 0 ]; then
  say "installing npm packages from package-lock.json (npm ci): ${stale[*]} missing or not the locked version"
  npm ci --no-audit --no-fund --loglevel=error
else
  say "npm packages present (playwright-core $(installed playwright-core), puppeteer-core $(installed puppeteer-core))"
fi
