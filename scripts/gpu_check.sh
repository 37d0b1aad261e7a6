#!/usr/bin/env bash
# scripts/gpu_check.sh — the whole GPU check in one command, on a machine with an NVIDIA GPU.
#
#   scripts/gpu_check.sh                # from the repository root (or anywhere: it finds the root)
#
# Steps (all by default; PORTER_GPU_CHECK_STEPS="build ctest memcheck racecheck synccheck example bench"
# picks some, e.g. to split the check over two calls on a machine with a 10-minute limit per call):
#   build      configure build-gpu from scratch if needed (Ninja, PORTER_CUDA_ARCHITECTURES=90 unless
#              PORTER_CUDA_ARCHITECTURES is set, examples and bench on), build with every core
#   ctest      every registered test: host, lowering, fail, and the device suites at full scale
#   memcheck   compute-sanitizer --tool memcheck  on porter_device_tests, PORTER_DEVICE_TEST_SCALE=sanitizer
#   racecheck  compute-sanitizer --tool racecheck on porter_device_tests, same scale
#   synccheck  compute-sanitizer --tool synccheck on porter_device_tests, same scale
#   (not porter_device_counter_tests: racecheck does not model the shared-memory release/acquire
#   hand-off of its phase counters and reports every one; porter/ptx/smem_counter.hpp)
#   example    examples/stencil5 (bit-exact on every path)
#   bench      HOOK: porter-bench --quick, if that binary was built (bench/ is another helper's)
#
# Logs go to $OUT (default /tmp/porter-gpu-check), at most 8 files, flat:
#   summary.txt build.log ctest.log memcheck.log racecheck.log synccheck.log run.log
# The script ends with a short summary (also in summary.txt) and exits non-zero on any failure.
#
# GoogleTest: used from the system when CMake finds it. Otherwise it is built from source, taken
# from $PORTER_GTEST_SOURCE, ./.deps/googletest or /usr/src/googletest (in that order). A bare GPU
# machine without GoogleTest needs the source carried along, e.g. on the development machine, once:
#   mkdir -p .deps && cp -r /usr/src/googletest .deps/ && echo /.deps/ >> .git/info/exclude
# and carry `.deps` with the run.
#
# Environment: OUT, BUILD (default build-gpu), PORTER_CUDA_ARCHITECTURES (default 90),
# PORTER_GPU_CHECK_CMAKE_ARGS (extra configure options, e.g. the bench's -DPORTER_PORTS_ORIGINAL=...),
# PORTER_GPU_CHECK_STEPS, PORTER_DEVICE_TEST_SEED (repeat a run's random cases), JOBS (default nproc).
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
OUT=${OUT:-/tmp/porter-gpu-check}
BUILD=${BUILD:-build-gpu}
ARCHS=${PORTER_CUDA_ARCHITECTURES:-90}
STEPS=${PORTER_GPU_CHECK_STEPS:-"build ctest memcheck racecheck synccheck example bench"}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 8)}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
FAILED=0
T0=$(date +%s)

say() { echo "[gpu_check +$(($(date +%s) - T0))s] $*"; }
note() { echo "$*" | tee -a "$SUMMARY"; }
fail() { FAILED=1; note "FAIL: $*"; }
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
export PATH="$PATH:/usr/local/cuda/bin"

note "porter gpu_check $(date -u +%Y-%m-%dT%H:%M:%SZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (+local changes)')"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.mem --format=csv,noheader 2>&1 | sed 's/^/gpu: /' | tee -a "$SUMMARY"
else
  note "gpu: nvidia-smi not found"
fi
note "nvcc: $(nvcc --version 2>/dev/null | tail -1)"

# ---- build -----------------------------------------------------------------------------------------
find_gtest_prefix() {  # prints a CMAKE_PREFIX_PATH entry when the system has no GoogleTest
  local probe="$OUT/.gtest-probe"
  rm -rf "$probe" && mkdir -p "$probe/src"
  printf 'cmake_minimum_required(VERSION 3.20)\nproject(p CXX)\nfind_package(GTest REQUIRED)\n' >"$probe/src/CMakeLists.txt"
  if cmake -S "$probe/src" -B "$probe/b" >/dev/null 2>&1; then rm -rf "$probe"; return 0; fi
  rm -rf "$probe"
  local src=""
  for c in "${PORTER_GTEST_SOURCE:-}" "$ROOT/.deps/googletest" /usr/src/googletest; do
    if [ -n "$c" ] && [ -f "$c/CMakeLists.txt" ]; then src=$c; break; fi
  done
  if [ -z "$src" ]; then
    echo "GoogleTest is not installed and no source was found (PORTER_GTEST_SOURCE, .deps/googletest, /usr/src/googletest)" >&2
    return 1
  fi
  local prefix=/tmp/porter-gtest
  if [ ! -f "$prefix/lib/cmake/GTest/GTestConfig.cmake" ] && [ ! -f "$prefix/lib64/cmake/GTest/GTestConfig.cmake" ]; then
    echo "building GoogleTest from $src into $prefix" >&2
    cmake -S "$src" -B /tmp/porter-gtest-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=OFF \
      -DINSTALL_GTEST=ON -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_POSITION_INDEPENDENT_CODE=ON >&2 &&
      cmake --build /tmp/porter-gtest-build -j "$JOBS" >&2 && cmake --install /tmp/porter-gtest-build >&2 || return 1
  fi
  echo "$prefix"
}

do_build() {
  if [ -f "$BUILD/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$BUILD/CMakeCache.txt"; then
    echo "$BUILD was configured with another generator: configuring afresh"
    rm -rf "$BUILD"
  fi
  local prefix extra=()
  prefix=$(find_gtest_prefix) || return 1
  [ -n "$prefix" ] && extra+=("-DCMAKE_PREFIX_PATH=$prefix")
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTER_CUDA_ARCHITECTURES="$ARCHS" \
    -DPORTER_BUILD_TESTS=ON -DPORTER_BUILD_EXAMPLES=ON -DPORTER_BUILD_BENCH=ON "${extra[@]}" ${PORTER_GPU_CHECK_CMAKE_ARGS:-} || return 1
  cmake --build "$BUILD" -j "$JOBS"
}

if want build; then
  say "build: configure $BUILD (sm_$ARCHS), build with $JOBS jobs"
  if do_build >"$OUT/build.log" 2>&1; then
    note "build: ok ($(grep -c 'Building' "$OUT/build.log") compile steps)"
  else
    tail -40 "$OUT/build.log"
    fail "build (see build.log)"
  fi
fi

find_bin() {  # absolute path of a built executable, or nothing
  local f
  f=$(find "$BUILD" -type f -name "$1" -perm -u+x 2>/dev/null | head -1)
  [ -n "$f" ] && readlink -f "$f"
}
DEV_BIN=$(find_bin porter_device_tests)
DBG_BIN=$(find_bin porter_device_debug_tests)

# ---- ctest -----------------------------------------------------------------------------------------
if want ctest; then
  if [ ! -f "$BUILD/CTestTestfile.cmake" ]; then
    fail "ctest: $BUILD is not configured"
  else
    say "ctest: every test (device suites at full scale)"
    ctest --test-dir "$BUILD" --output-on-failure --timeout 900 -V >"$OUT/ctest.log" 2>&1
    rc=$?
    grep -E '^[0-9]+% tests passed|tests failed out of' "$OUT/ctest.log" | tail -1 | sed 's/^/ctest: /' | tee -a "$SUMMARY"
    grep -E '^\s*[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception|Not Run)\)' "$OUT/ctest.log" | sed 's/^/ctest:   /' | tee -a "$SUMMARY"
    grep -h 'porter device matrix:' "$OUT/ctest.log" | sed 's/^.*porter device matrix:/device matrix:/' | tee -a "$SUMMARY"
    grep -hE '^\[  (FAILED|SKIPPED) \]' "$OUT/ctest.log" | sort | uniq -c | sort -rn | head -20 | sed 's/^/ctest:   /' >>"$SUMMARY"
    [ $rc -eq 0 ] || fail "ctest (exit $rc; see ctest.log)"
    if grep -qE 'porter_device_(debug_)?tests .*(Skipped|Not Run)' "$OUT/ctest.log"; then
      fail "ctest: the device tests did not run (no usable GPU?)"
    fi
  fi
fi

# ---- compute-sanitizer -----------------------------------------------------------------------------
SANITIZER=$(command -v compute-sanitizer || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -z "$SANITIZER" ] && [ -x "$c" ] && SANITIZER=$c
done
for tool in memcheck racecheck synccheck; do
  want "$tool" || continue
  if [ -z "$DEV_BIN" ]; then fail "$tool: porter_device_tests was not built"; continue; fi
  if [ -z "$SANITIZER" ]; then fail "$tool: compute-sanitizer not found"; continue; fi
  say "$tool: compute-sanitizer --tool $tool porter_device_tests (sanitizer scale)"
  extra=()
  [ "$tool" = racecheck ] && extra+=(--racecheck-report all)
  # TmaTrap traps on purpose (in a death-test child): a sanitizer would count the trap as an error,
  # and under memcheck the child never returned (H200, 2026-12-01). ctest runs it without one.
  PORTER_DEVICE_TEST_SCALE=sanitizer timeout 1200 "$SANITIZER" --tool "$tool" --print-limit 200 --error-exitcode 99 \
    "${extra[@]}" "$DEV_BIN" --gtest_filter='-TmaTrap.*' >"$OUT/$tool.log" 2>&1
  rc=$?
  # memcheck/synccheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
  summary_line=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$OUT/$tool.log" | tail -1 | sed 's/^=* *//')
  matrix=$(grep -h 'porter device matrix:' "$OUT/$tool.log" | head -1 | sed 's/^.*porter device matrix:/matrix:/')
  gtest=$(grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/$tool.log" | tr '\n' ' ')
  note "$tool: ${summary_line:-no summary line} | ${matrix:-no matrix line} | ${gtest}"
  nerr=$(echo "$summary_line" | grep -oE '[0-9]+ (errors?|hazards?)' | head -1 | grep -oE '^[0-9]+')
  nwarn=$(echo "$summary_line" | grep -oE '[0-9]+ warnings?' | grep -oE '^[0-9]+')
  ncases=$(echo "$matrix" | grep -oE '[0-9]+ cases' | grep -oE '^[0-9]+')
  if [ $rc -ne 0 ] || [ -z "$summary_line" ] || [ "${nerr:-1}" != 0 ] || [ "${nwarn:-0}" != 0 ]; then
    fail "$tool (exit $rc; see $tool.log)"
  elif [ "${ncases:-0}" = 0 ]; then
    fail "$tool: no device case ran (see $tool.log)"
  fi
done

# ---- example and bench -----------------------------------------------------------------------------
: >"$OUT/run.log"
if want example; then
  EX=$(find_bin porter_example_stencil5)
  if [ -z "$EX" ]; then
    fail "example: porter_example_stencil5 was not built"
  else
    say "example: stencil5"
    echo "== $EX" >>"$OUT/run.log"
    if timeout 300 "$EX" >>"$OUT/run.log" 2>&1; then note "example stencil5: ok"; else fail "example stencil5 (see run.log)"; fi
  fi
fi

# HOOK (bench/ belongs to another helper): run porter-bench --quick when it was built.
if want bench; then
  BENCH=$(find_bin porter-bench)
  if [ -n "$BENCH" ]; then
    say "bench: porter-bench --quick"
    echo "== $BENCH --quick" >>"$OUT/run.log"
    # Tables on stdout, progress on stderr, both into run.log; run from /tmp so nothing else lands in $OUT.
    if (mkdir -p /tmp/porter-bench-run && cd /tmp/porter-bench-run && timeout 600 "$BENCH" --quick) >>"$OUT/run.log" 2>&1; then
      note "bench: porter-bench --quick ok (output in run.log)"
    else
      fail "bench: porter-bench --quick (see run.log)"
    fi
  else
    note "bench: porter-bench not built; skipped"
  fi
fi

# ---- summary ---------------------------------------------------------------------------------------
echo
echo "==================== porter gpu_check summary ($(($(date +%s) - T0)) s) ===================="
cat "$SUMMARY"
if [ $FAILED -eq 0 ]; then
  echo "RESULT: PASS" | tee -a "$SUMMARY"
else
  echo "RESULT: FAIL (logs in $OUT)" | tee -a "$SUMMARY"
fi
exit $FAILED
