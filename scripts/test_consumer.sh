#!/usr/bin/env bash
# scripts/test_consumer.sh — build tests/consumer, a CMake project of its own that uses porter, the two
# ways a user would, and check what the user gets. No GPU needed (called by .ci/run).
#
#   1. find_package: porter configured with nothing but the library, built, and installed with
#      cmake --install into a fresh prefix; the consumer finds it through CMAKE_PREFIX_PATH.
#   2. add_subdirectory: the consumer adds porter's source tree (-DPORTER_SOURCE_DIR=<repo>).
#
# Each way, for one architecture (PORTER_CONSUMER_ARCH, default 90):
#   - configure-time architecture check: a target built for 75 (find_package) or 80 (add_subdirectory)
#     gets porter's warning; PORTER_ARCHITECTURE_CHECK=OFF / cp_async silences it; PORTER_CUDA_ARCHITECTURES
#     given to the consumer warns that it does nothing there; the real configuration has no warning;
#   - the program builds, runs, and prints porter's version (library = headers = version.hpp) and
#     explain's "automatic:" line (on a GPU it also copies a matrix through the pipeline and checks it);
#   - the kernel is built for exactly that architecture (cuobjdump --list-elf);
#   - one CUDA runtime: the link line names no libcudart.so and the binary does not need it (static).
# And once: the installed package names its include directory once, holds version.hpp, the
# architecture check module and the licence; README's CMake snippet is tests/consumer/CMakeLists.txt.
#
# Usage:  scripts/test_consumer.sh [WORK_DIR]   (default <repo>/build-consumer; emptied first)
# Environment: JOBS (build jobs, default nproc), PORTER_CONSUMER_ARCH (default 90).
# Exit status: 0 when every check passed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-$root/build-consumer}
[[ $work == /* ]] || work=$root/$work
jobs=${JOBS:-$(nproc)}
arch=${PORTER_CONSUMER_ARCH:-90}
start=$SECONDS
say() { printf 'test_consumer.sh: %s (%ds)\n' "$*" "$((SECONDS - start))"; }
failures=0
fail() { printf 'test_consumer.sh: FAILED: %s\n' "$*"; failures=$((failures + 1)); }

if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
command -v nvcc >/dev/null 2>&1 || { echo "test_consumer.sh: nvcc not found (install the CUDA toolkit)" >&2; exit 1; }
export CUDACXX=${CUDACXX:-$(command -v nvcc)}
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
version=$(sed -n 's/^#define PORTER_VERSION_STRING "\(.*\)"$/\1/p' "$root/include/porter/version.hpp")
[[ -n $version ]] || { echo "test_consumer.sh: no PORTER_VERSION_STRING in include/porter/version.hpp" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
log=$work/log.txt

# configure <build-dir> <label> <cmake args...>: configure the consumer (the source folder is $src,
# tests/consumer unless set); its output is in <build-dir>.configure.txt.
configure() {
  local dir=$1 label=$2
  shift 2
  if ! cmake -S "${src:-$root/tests/consumer}" -B "$dir" ${generator[@]+"${generator[@]}"} "$@" >"$dir.configure.txt" 2>&1; then
    tail -30 "$dir.configure.txt"
    fail "$label: configure failed"
    return 1
  fi
}
# expect_warning <build-dir> <label> <text>: the last configure printed porter's warning containing <text>.
expect_warning() {
  # CMake wraps warnings at word boundaries: compare with whitespace squeezed.
  if tr -s ' \n' '  ' <"$1.configure.txt" | grep -qF -- "$3"; then
    say "$2: warned as expected ($3)"
  else
    cat "$1.configure.txt"
    fail "$2: no warning containing: $3"
  fi
}
# expect_no_warning <build-dir> <label>: the last configure printed no CMake warning at all.
expect_no_warning() {
  if grep -q 'CMake Warning' "$1.configure.txt"; then
    cat "$1.configure.txt"
    fail "$2: unexpected warning"
  else
    say "$2: no warning"
  fi
}
# build_and_check <build-dir> <label>: build, run, and check the program and its binary.
build_and_check() {
  local dir=$1 label=$2
  if ! cmake --build "$dir" -j "$jobs" >"$dir.build.txt" 2>&1; then
    tail -40 "$dir.build.txt"
    fail "$label: build failed"
    return 1
  fi
  local exe=$dir/copy_tiles
  if ! "$exe" >"$dir.run.txt" 2>&1; then
    cat "$dir.run.txt"
    fail "$label: copy_tiles exited non-zero"
  elif ! grep -qx "porter $version (library), headers $version" "$dir.run.txt" || ! grep -q '^automatic: ' "$dir.run.txt"; then
    cat "$dir.run.txt"
    fail "$label: copy_tiles did not print porter $version and explain's automatic line"
  else
    say "$label: copy_tiles runs: $(head -1 "$dir.run.txt"); $(grep -m1 -E '^no GPU|identical' "$dir.run.txt" | cut -c1-110)"
  fi
  local commands link targets
  if [[ -f $dir/build.ninja ]]; then
    commands=$(cd "$dir" && ninja -t commands copy_tiles)
    link=$(tail -1 <<<"$commands")
  else
    commands=$(cat "$dir/CMakeFiles/copy_tiles.dir/flags.make")
    link=$(cat "$dir/CMakeFiles/copy_tiles.dir/link.txt")
  fi
  # The targets nvcc was given for the kernel, and (where the toolkit has cuobjdump) the code in the binary.
  targets=$(grep -oE 'arch=compute_[0-9]+[a-z]?|code=\[?[a-z]+_[0-9]+[a-z]?(,[a-z]+_[0-9]+[a-z]?)*' <<<"$commands" |
            grep -oE '_[0-9]+[a-z]?' | sort -u | tr '\n' ' ' || true)
  if [[ $targets == "_$arch " ]]; then say "$label: nvcc builds the kernel for compute_$arch/sm_$arch only"; else fail "$label: nvcc targets '$targets', expected _$arch"; fi
  if command -v cuobjdump >/dev/null 2>&1; then
    local elves
    elves=$(cuobjdump --list-elf "$exe" 2>/dev/null | grep -oE 'sm_[0-9]+[a-z]?' | sort -u | tr '\n' ' ' || true)
    if [[ $elves == "sm_$arch " ]]; then say "$label: binary holds $elves"; else fail "$label: binary holds '$elves', expected sm_$arch"; fi
  fi
  if grep -q 'libcudart\.so' <<<"$link" || ldd "$exe" | grep -q 'libcudart\.so'; then
    fail "$label: libcudart.so is linked: $(grep -oE '[^ ]*cudart[^ ]*' <<<"$link" | tr '\n' ' ')"
  else
    say "$label: one CUDA runtime, static: $(grep -oE '[^ ]*cudart[^ ]*' <<<"$link" | sort -u | tr '\n' ' ')"
  fi
}

# ---- README: its CMake snippet is the consumer -----------------------------------------------------
snippet=$(awk '/^<!-- tests\/consumer\/CMakeLists.txt -->$/ {on=1; next} on && /^```cmake$/ {inb=1; next} inb && /^```$/ {exit} inb {print}' "$root/README.md")
if [[ -n $snippet ]] && diff <(printf '%s\n' "$snippet") "$root/tests/consumer/CMakeLists.txt" >"$work/readme.diff"; then
  say "README's CMake snippet is tests/consumer/CMakeLists.txt"
else
  cat "$work/readme.diff" 2>/dev/null || true
  fail "README's CMake snippet (after '<!-- tests/consumer/CMakeLists.txt -->') differs from tests/consumer/CMakeLists.txt"
fi

# ---- 1. installed porter, find_package ----------------------------------------------------------------
prefix=$work/prefix
say "porter: configure, build and install the library alone into $prefix"
if cmake -S "$root" -B "$work/porter" ${generator[@]+"${generator[@]}"} -DCMAKE_BUILD_TYPE=Release \
     -DPORTER_BUILD_TESTS=OFF -DPORTER_BUILD_BENCH=OFF -DPORTER_BUILD_EXAMPLES=OFF >"$log" 2>&1 &&
   cmake --build "$work/porter" -j "$jobs" >>"$log" 2>&1 &&
   cmake --install "$work/porter" --prefix "$prefix" >>"$log" 2>&1; then
  cfg=$prefix/lib/cmake/porter
  [[ -f $prefix/lib/libporter_core.a && -f $prefix/include/porter/version.hpp && -f $prefix/include/porter/porter.hpp &&
     -f $cfg/porterConfig.cmake && -f $cfg/porterCudaArchitectures.cmake && -f $prefix/share/doc/porter/LICENSE &&
     -x $prefix/bin/porter-port ]] ||
    fail "install: a file is missing under $prefix"
  dup=""
  while IFS= read -r dirs; do
    dup+=$(tr ';' '\n' <<<"$dirs" | sort | uniq -d)
  done < <(sed -n 's/^ *INTERFACE_INCLUDE_DIRECTORIES "\(.*\)"$/\1/p' "$cfg/porterTargets.cmake")
  [[ -z $dup ]] && say "install: each exported target lists its include directory once" || fail "install: a target lists an include directory twice: $dup"

  d=$work/find
  configure "$d" "find_package, sm_75" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_ARCHITECTURES=75 &&
    expect_warning "$d" "find_package, sm_75" "porter: target 'copy_tiles' builds its CUDA code for 75 only"
  configure "$d" "find_package, sm_75, check OFF" -DPORTER_ARCHITECTURE_CHECK=OFF &&
    expect_no_warning "$d" "find_package, sm_75, PORTER_ARCHITECTURE_CHECK=OFF"
  configure "$d" "find_package, PORTER_CUDA_ARCHITECTURES" -UPORTER_ARCHITECTURE_CHECK -DCMAKE_CUDA_ARCHITECTURES="$arch" \
      -DPORTER_CUDA_ARCHITECTURES="$arch" &&
    expect_warning "$d" "find_package, PORTER_CUDA_ARCHITECTURES given" "does nothing for a project that uses the installed porter"
  configure "$d" "find_package, sm_$arch" -UPORTER_CUDA_ARCHITECTURES &&
    expect_no_warning "$d" "find_package, sm_$arch" &&
    build_and_check "$d" "find_package, sm_$arch"

  # find_package in a subdirectory (the imported porter::porter is visible only there; the check
  # runs at the end of the top level), a second target checked on demand with
  # porter_check_cuda_architectures(), which the check at the end must not repeat. Configure only.
  src=$work/nested-src
  mkdir -p "$src/sub"
  printf 'cmake_minimum_required(VERSION 3.25)\nproject(nested LANGUAGES CXX CUDA)\nadd_subdirectory(sub)\n' >"$src/CMakeLists.txt"
  {
    echo 'find_package(porter REQUIRED)'
    for t in copy_tiles copy_tiles_checked; do
      echo "add_executable($t $root/tests/consumer/main.cpp $root/tests/consumer/copy_tiles.cu)"
      echo "target_link_libraries($t PRIVATE porter::porter)"
    done
    echo 'porter_check_cuda_architectures(copy_tiles_checked)'
  } >"$src/sub/CMakeLists.txt"
  n=$work/nested
  if configure "$n" "find_package in a subdirectory, sm_75" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_ARCHITECTURES=75; then
    expect_warning "$n" "find_package in a subdirectory, sm_75" "porter: target 'copy_tiles' builds its CUDA code for 75 only"
    expect_warning "$n" "porter_check_cuda_architectures(copy_tiles_checked)" "porter: target 'copy_tiles_checked' builds"
    count=$(grep -c "porter: target 'copy_tiles_checked'" "$n.configure.txt" || true)
    [[ $count == 1 ]] && say "porter_check_cuda_architectures: one warning for the target it checked" ||
      fail "porter_check_cuda_architectures: $count warnings for copy_tiles_checked, expected 1"
  fi
  unset src
else
  tail -40 "$log"
  fail "porter: configure, build or install failed"
fi

# ---- 2. porter's source tree, add_subdirectory ------------------------------------------------------------
d=$work/subdir
configure "$d" "add_subdirectory, sm_80" -DPORTER_SOURCE_DIR="$root" -DCMAKE_CUDA_ARCHITECTURES=80 &&
  expect_warning "$d" "add_subdirectory, sm_80" "can take cp_async or staged, never tma (tma needs 90)"
configure "$d" "add_subdirectory, sm_80, cp_async" -DPORTER_ARCHITECTURE_CHECK=cp_async &&
  expect_no_warning "$d" "add_subdirectory, sm_80, PORTER_ARCHITECTURE_CHECK=cp_async"
configure "$d" "add_subdirectory, PORTER_CUDA_ARCHITECTURES" -UPORTER_ARCHITECTURE_CHECK -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DPORTER_CUDA_ARCHITECTURES="$arch" &&
  expect_warning "$d" "add_subdirectory, PORTER_CUDA_ARCHITECTURES given" "none of which this build includes"
configure "$d" "add_subdirectory, sm_$arch" -UPORTER_CUDA_ARCHITECTURES &&
  expect_no_warning "$d" "add_subdirectory, sm_$arch" &&
  build_and_check "$d" "add_subdirectory, sm_$arch"

if ((failures)); then
  say "$failures check(s) FAILED; logs in $work"
  exit 1
fi
say "passed"
