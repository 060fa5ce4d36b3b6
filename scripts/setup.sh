#!/usr/bin/env bash
# Installs what wasmscale's build, benchmarks and tests need, idempotently: each step checks
# first and says what it does. Run by `make bench` and `make test` (as root on Debian).
#   apt:   emscripten (emcc, clang-14, lld, binaryen), chromium, firefox-esr, clang-14 +
#          libclang-rt-14-dev, libmimalloc2.0 (the native reference allocator)
#   npm:   playwright-core (Chromium) and puppeteer-core (Firefox), pinned in package-lock.json
#   cargo: mimalloc's C sources are fetched later, on first use, by bin/wasmscale-cc
#   pip:   universalmutator (tools/mutation.py), pinned, into build/venv
#
# `setup.sh toolchain` (run by `make install`) installs Debian's Emscripten only, and only when
# no emcc is found ($EMCC, else emcc on PATH): installing the library needs nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "setup: $*"; }

# Installs the Debian packages named in $missing, if any (as root).
install_missing() {
  [ ${#missing[@]} -gt 0 ] || return 0
  if [ "$(id -u)" != 0 ]; then
    say "missing Debian packages: ${missing[*]}; run as root or install them: apt-get install ${missing[*]}" >&2
    exit 2
  fi
  say "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

if [ "${1:-}" = toolchain ]; then
  if command -v "${EMCC:-emcc}" >/dev/null; then
    say "emcc present ($(command -v "${EMCC:-emcc}"))"
    exit 0
  fi
  [ -z "${EMCC:-}" ] || { say "EMCC=$EMCC cannot be found" >&2; exit 2; }
  missing=(emscripten)
  install_missing
  exit 0
fi

missing=()
command -v emcc >/dev/null || missing+=(emscripten)
command -v chromium >/dev/null || missing+=(chromium)
command -v firefox-esr >/dev/null || missing+=(firefox-esr)
command -v clang-14 >/dev/null || missing+=(clang-14)
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.a" >/dev/null || missing+=(libclang-rt-14-dev)
command -v cargo >/dev/null || missing+=(cargo)
[ -e /usr/lib/x86_64-linux-gnu/libmimalloc.so.2 ] || missing+=(libmimalloc2.0)  # native reference
command -v cmake >/dev/null || missing+=(cmake)              # the install test's consumers
command -v pkg-config >/dev/null || missing+=(pkgconf)
python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)  # build/venv below

if [ ${#missing[@]} -gt 0 ]; then
  install_missing
else
  say "Debian packages present (emscripten, chromium, firefox-esr, clang-14, libclang-rt-14-dev, cargo, libmimalloc2.0, cmake, pkgconf, python3-venv)"
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

# The mutation tester, in a virtual environment of the checkout's own (build/venv).
mutator_version=1.14.1
venv=build/venv
have_mutator() { "$venv/bin/python" -c "import importlib.metadata as m; print(m.version('universalmutator'))" 2>/dev/null; }
if [ "$(have_mutator)" != "$mutator_version" ] || [ ! -x "$venv/bin/mutate" ]; then
  say "installing universalmutator $mutator_version with pip into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "universalmutator==$mutator_version"
else
  say "universalmutator $mutator_version present ($venv)"
fi
