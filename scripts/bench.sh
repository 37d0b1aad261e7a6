#!/usr/bin/env bash
# The main job: build porter-bench (release) and run it; results, logs and plots go to a directory.
#
# usage: scripts/bench.sh [--out DIR] [--arch LIST] [--build-dir DIR] [-j N] [porter-bench options]
#   --out DIR        results directory (default bench/results/latest)
#   --arch LIST      PORTER_CUDA_ARCHITECTURES (default: the GPU's compute capability from nvidia-smi,
#                    else 75;80;90 — without a GPU porter-bench prints the lowering report for them)
#   --build-dir DIR  build directory (default build-bench)
#   -j N             build jobs (default: all cores)
#   anything else    passed to porter-bench: --quick, --ncu, --only stream,stencil, --no-sweep, ...
# Kokkos baselines: configure finds a CUDA-enabled Kokkos through Kokkos_ROOT (environment) or in
# .kokkos/install; without one the report says so and the rest runs.
# The CuTe "before" of the ports workload (ports/cutlass): PORTER_CUTLASS_DIR (environment) names a
# fetched CUTLASS's include/ folder (cute/ and cutlass/); without it that pair is reported absent.
# Triton and torch peers: porter-bench runs bench/peers/triton_peers.py when python3 (or
# PORTER_BENCH_PYTHON, or --python PATH) imports triton and torch; --no-triton skips them.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/bench/results/latest"
arch=""
build="$root/build-bench"
jobs=$(nproc 2>/dev/null || echo 2)
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --arch) arch="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    -h|--help) # the comment block after the shebang, up to the first line that is not a comment
      awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$out"

need() { command -v "$1" >/dev/null 2>&1; }
if ! need cmake || ! need g++ || ! need make; then
  if [ "$(id -u)" = 0 ] && need apt-get; then
    echo "bench.sh: installing cmake, g++ and make with apt"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake g++ make >/dev/null
  else
    echo "bench.sh: needs cmake, g++ and make (apt-get install cmake g++ make)" >&2
    exit 1
  fi
fi
if ! need nvcc && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
if ! need nvcc; then echo "bench.sh: nvcc not found (install the CUDA toolkit in /usr/local/cuda)" >&2; exit 1; fi

if [ -z "$arch" ]; then
  cc=""
  if need nvidia-smi; then cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .'); fi
  case "$cc" in [0-9][0-9]|[0-9][0-9][0-9]) arch="$cc" ;; *) arch="75;80;90" ;; esac
fi

gen=()
if [ ! -f "$build/CMakeCache.txt" ] && need ninja; then gen=(-G Ninja); fi
peers=()
if [ -n "${Kokkos_ROOT:-}" ]; then peers=(-DKokkos_ROOT="$Kokkos_ROOT"); fi
if [ -n "${PORTER_CUTLASS_DIR:-}" ]; then peers+=(-DPORTER_CUTLASS_DIR="$PORTER_CUTLASS_DIR"); fi

echo "bench.sh: configuring $build for PORTER_CUDA_ARCHITECTURES=$arch"
start=$(date +%s)
if ! cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DPORTER_CUDA_ARCHITECTURES="$arch" \
     -DPORTER_BUILD_TESTS=OFF -DPORTER_BUILD_EXAMPLES=OFF -DPORTER_BUILD_BENCH=ON "${peers[@]}" >"$out/configure.log" 2>&1; then
  tail -30 "$out/configure.log"; echo "bench.sh: configure failed (log: $out/configure.log)" >&2; exit 1
fi
grep "porter-bench:" "$out/configure.log" | sed 's/^-- /bench.sh: /'
echo "bench.sh: building porter-bench (-j$jobs)"
if ! cmake --build "$build" -j"$jobs" --target porter-bench >"$out/build.log" 2>&1; then
  grep -m 30 -E "error|Error" "$out/build.log"; echo "bench.sh: build failed (log: $out/build.log)" >&2; exit 1
fi
echo "bench.sh: built in $(( $(date +%s) - start )) s"

"$build/bench/porter-bench" --out "$out" "${args[@]}" | tee "$out/stdout.txt"
rc=${PIPESTATUS[0]}

if grep -q '^[a-z]' <(grep -v '^#' "$out/results.csv" 2>/dev/null | tail -n +2); then
  plotted=0
  for py in python3 /usr/bin/python3; do
    if need "$py" && "$py" -c 'import matplotlib' >/dev/null 2>&1; then
      "$py" "$root/bench/plot.py" "$out" && plotted=1
      break
    fi
  done
  if [ $plotted = 0 ]; then
    echo "bench.sh: plots skipped: matplotlib is not installed (apt-get install python3-matplotlib, then /usr/bin/python3 bench/plot.py $out)"
  fi
fi
exit "$rc"
