#!/usr/bin/env bash
# scripts/test_hip.sh — build porter's HIP flavour for AMD GPUs and run every check that needs none.
#
#   scripts/test_hip.sh            (from anywhere; called by .ci/run)
#
# 1. Installs Debian's hipcc and libamdhip64-dev (ROCm 5.2, clang 15) if missing, plus GoogleTest,
#    CMake and Python 3 (apt-get; needs root).
# 2. Configures cmake/hip (the "hip" preset) for PORTER_HIP_ARCHITECTURES (default gfx90a; ROCm 5.2's clang 15 cannot
#    target gfx942) and builds the library, the examples, the bench kernels and the HIP tests.
# 3. Runs ctest: hip.lowering.<arch> (the gfx90a assembly of the copy), hip.fail.* (forcing tma or
#    cp_async under HIP does not compile, and says why), hip.* (the copy code on the
#    host byte for byte, conformance, LDS limit, launch refusals), hip.host.* (tests/host compiled by
#    hipcc) and hip.device.* (skipped with the runtime's reason: there is no AMD GPU in CI).
# 4. Installs the build into a temporary prefix (cmake --install) and builds and runs
#    tests/consumer/hip against it with find_package(porter_hip).
#
# Environment: PORTER_HIP_BUILD (build folder, default <repo>/build-hip), PORTER_HIP_ARCHITECTURES,
# JOBS (parallel jobs, default 2). Exit status: 0 when everything built and every test passed or
# was skipped with a reason.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${PORTER_HIP_BUILD:-$ROOT/build-hip}
ARCHS=${PORTER_HIP_ARCHITECTURES:-gfx90a}
JOBS=${JOBS:-2}
T0=$(date +%s)
say() { printf '== test_hip: %s (%ds)\n' "$*" "$(( $(date +%s) - T0 ))"; }

# ---- 1. toolchain --------------------------------------------------------------------------------
missing=()
command -v hipcc >/dev/null 2>&1 || missing+=(hipcc)
[ -e /usr/include/hip/hip_runtime.h ] || missing+=(libamdhip64-dev)
[ -e /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "test_hip: need root to apt-get install ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
say "toolchain: $(hipcc --offload-arch="${ARCHS%%;*}" --version 2>/dev/null | grep -m1 -i 'clang version' || echo 'hipcc (clang version unknown)')"

# ---- 2. configure and build ------------------------------------------------------------------------
say "configure $BUILD for $ARCHS"
mkdir -p "$BUILD"
# CMakePresets.json's "hip" preset (the top-level CMakeLists.txt with PORTER_FLAVOUR=hip includes
# cmake/hip); a build folder configured before keeps its generator.
gen=()
if [ -f "$BUILD/CMakeCache.txt" ]; then gen=(-G "$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$BUILD/CMakeCache.txt")"); fi
cmake --preset hip -S "$ROOT" -B "$BUILD" ${gen[@]+"${gen[@]}"} -DPORTER_HIP_ARCHITECTURES="$ARCHS" >"$BUILD/test_hip.configure.log" 2>&1 || {
  tail -40 "$BUILD/test_hip.configure.log"; exit 1; }
say "build (library, examples, bench kernels, tests)"
# hipcc adds its own -L flags to compile lines; clang's 'argument unused' warnings about them are noise.
if ! cmake --build "$BUILD" -j "$JOBS" >"$BUILD/test_hip.build.log" 2>&1; then
  grep -v 'Wunused-command-line-argument' "$BUILD/test_hip.build.log" | grep -E -B2 -A12 'error' | head -80
  exit 1
fi
say "built: $(cd "$BUILD" && find . -maxdepth 3 -type f -perm -u+x -name 'porter_*' | sort | tr '\n' ' ')$(
  [ -n "$(find "$BUILD" -name '*.cu.o' -path '*porter_bench_kernels*' -print -quit)" ] && echo '+ bench kernels (objects)')"

# ---- 3. tests ---------------------------------------------------------------------------------------
say "ctest"
ctest --test-dir "$BUILD" -j "$JOBS" --output-on-failure | tee "$BUILD/test_hip.ctest.log" | grep -vE '^\s+Start ' | grep -vE 'Passed\s+[0-9.]+ sec$'
status=${PIPESTATUS[0]}
bash "$ROOT/scripts/ctest_skip_reasons.sh" "$BUILD" "test_hip:" || true
echo
echo "== hip.lowering (gfx90a assembly) =="
grep -E '^FAIL |line: instruction|^\s+[0-9]+: |all checks|checks failed|^ok .*control_staged_u8: the detector' "$BUILD/Testing/Temporary/LastTest.log" || true

# ---- 4. the installed package, from a project of its own ------------------------------------------
# cmake --install into a fresh prefix, then tests/consumer/hip finds it with find_package(porter_hip),
# builds with hipcc for the first architecture and runs (without an AMD GPU it prints explain and why).
PREFIX="$BUILD/consumer-prefix"
CONSUMER="$BUILD/consumer"
rm -rf "$PREFIX" "$CONSUMER"
say "consumer: cmake --install to $PREFIX, find_package(porter_hip) from tests/consumer/hip"
consumer_ok=1
if ! cmake --install "$BUILD" --prefix "$PREFIX" >"$BUILD/test_hip.install.log" 2>&1; then
  tail -20 "$BUILD/test_hip.install.log"; consumer_ok=0
elif ! cmake -S "$ROOT/tests/consumer/hip" -B "$CONSUMER" -DCMAKE_PREFIX_PATH="$PREFIX" \
        -DCMAKE_CXX_FLAGS="--offload-arch=${ARCHS%%;*}" >"$BUILD/test_hip.consumer.log" 2>&1 ||
     ! cmake --build "$CONSUMER" -j "$JOBS" >>"$BUILD/test_hip.consumer.log" 2>&1; then
  grep -v 'Wunused-command-line-argument' "$BUILD/test_hip.consumer.log" | tail -30; consumer_ok=0
elif ! "$CONSUMER/copy_tiles_hip" >"$BUILD/test_hip.consumer.out" 2>&1; then
  cat "$BUILD/test_hip.consumer.out"; consumer_ok=0
else
  version=$(sed -n 's/^#define PORTER_VERSION_STRING "\(.*\)"$/\1/p' "$ROOT/include/porter/version.hpp")
  grep -q "^porter $version (library), headers $version$" "$BUILD/test_hip.consumer.out" &&
    grep -q '^automatic: staged$' "$BUILD/test_hip.consumer.out" || { cat "$BUILD/test_hip.consumer.out"; consumer_ok=0; }
  sed 's/^/  consumer: /' "$BUILD/test_hip.consumer.out" | grep -E 'porter |automatic|no GPU|identical|MISMATCH' || true
fi
if [ "$consumer_ok" -eq 1 ]; then say "consumer: passed"; else say "consumer: FAILED"; [ "$status" -ne 0 ] || status=1; fi

say "done, exit status $status"
exit "$status"
