#!/usr/bin/env bash
# Early smoke run on a GPU machine: build the example for sm_90, run it plain and under compute-sanitizer.
set -u
OUT=${OUT:-/tmp/porter-out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
cmake -S . -B build-gpu -G Ninja -DPORTER_CUDA_ARCHITECTURES=90 -DPORTER_BUILD_BENCH=OFF -DPORTER_BUILD_TESTS=OFF >"$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build build-gpu -j16 >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
./build-gpu/examples/porter_example_stencil5 2>&1 | tee "$OUT/example.log"
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer $tool"
  timeout 300 compute-sanitizer --tool $tool --print-limit 5 ./build-gpu/examples/porter_example_stencil5 2>&1 | tail -12
done
