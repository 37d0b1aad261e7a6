#!/usr/bin/env bash
# scripts/test.sh — build porter and run its whole test suite with CTest (host, lowering, expected-failure, device); no GPU needed.
#
# Usage:  scripts/test.sh [BUILD_DIR]        BUILD_DIR defaults to build-test (relative to the repository)
# Environment:
#   JOBS                    parallel build and test jobs (default: nproc)
#   PORTER_TEST_CMAKE_ARGS  extra configure options, e.g. "-DPORTER_BUILD_BENCH=OFF"
# On a fresh Debian 12 with the CUDA 13 toolkit in /usr/local/cuda it needs nothing else: run as
# root, it installs what is missing (cmake, g++, ninja-build, libgtest-dev) with apt-get. Device
# tests skip themselves without a GPU; the reason each skipped test printed is shown after ctest's
# summary ("test.sh: skipped 2 tests (...): no usable GPU: ..."). Exits non-zero when the build or
# any test fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build-test}
[[ $build == /* ]] || build=$root/$build
jobs=${JOBS:-$(nproc)}
say() { printf 'test.sh: %s\n' "$*"; }

# ---- tools -----------------------------------------------------------------------------------------
# Debian packages, each skipped when what it provides is already there.
missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
if ! ls /usr/lib/*/cmake/GTest/GTestConfig.cmake /usr/lib/cmake/GTest/GTestConfig.cmake \
        /usr/local/lib/cmake/GTest/GTestConfig.cmake >/dev/null 2>&1; then
  missing+=(libgtest-dev)
fi
if command -v dpkg >/dev/null 2>&1 && ((${#missing[@]})); then
  # Trust dpkg over the probes above where it knows the package (e.g. cmake installed but not on PATH).
  still=()
  for p in "${missing[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || still+=("$p"); done
  missing=(${still[@]+"${still[@]}"})
fi
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    say "missing: ${missing[*]} (run as root with apt-get to install them)"
  fi
fi

if ! command -v nvcc >/dev/null 2>&1; then
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export PATH=/usr/local/cuda/bin:$PATH
  else
    say "nvcc not found on PATH or in /usr/local/cuda/bin: install the CUDA toolkit (13.x)" >&2
    exit 1
  fi
fi
export CUDACXX=${CUDACXX:-$(command -v nvcc)}

# ---- configure, build, test -------------------------------------------------------------------------
# The configuration is CMakePresets.json's "tests" preset (cmake --workflow --preset tests does the
# same). Its generator is Ninja; a build folder configured before keeps the generator it has, and
# without ninja this falls back to Makefiles.
generator=()
if [[ -f $build/CMakeCache.txt ]]; then
  generator=(-G "$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$build/CMakeCache.txt")")
elif ! command -v ninja >/dev/null 2>&1; then
  generator=(-G "Unix Makefiles")
fi
start=$SECONDS
say "configuring $build ($(nvcc --version | sed -n 's/^Cuda compilation tools, //p'), $jobs jobs)"
# shellcheck disable=SC2086  # PORTER_TEST_CMAKE_ARGS is a list of options
cmake --preset tests -S "$root" -B "$build" ${generator[@]+"${generator[@]}"} -DPORTER_BUILD_TESTS=ON ${PORTER_TEST_CMAKE_ARGS:-}
cmake --build "$build" -j "$jobs"
say "built in $((SECONDS - start)) s"
status=0
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$jobs" --timeout 900 || status=$?
# ctest shows a skipped test as "***Skipped" without its output: print each skip's reason.
bash "$root/scripts/ctest_skip_reasons.sh" "$build" "test.sh:" || true
say "$( ((status == 0)) && echo passed || echo FAILED ) after $((SECONDS - start)) s"
exit "$status"
