#!/usr/bin/env bash
# session 38, minimal E3 check: build, full-scale Multicast*:Launch* device cases, bf16gemm once, racecheck + synccheck on Multicast.
set -u
export PATH=/usr/local/cuda/bin:$PATH
FINAL=$OUT; OUT=/tmp/s38min; rm -rf $OUT; mkdir -p $OUT
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv | tee $OUT/gpu.txt
B=/tmp/b3
cmake -S .deps/googletest -B /tmp/gtb -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=OFF -DINSTALL_GTEST=ON -DCMAKE_INSTALL_PREFIX=/tmp/porter-gtest > /dev/null && cmake --build /tmp/gtb -j16 > /dev/null && cmake --install /tmp/gtb > /dev/null
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTER_CUDA_ARCHITECTURES=90 -DPORTER_BUILD_TESTS=ON -DPORTER_BUILD_EXAMPLES=OFF \
  -DPORTER_BUILD_BENCH=ON -DPORTER_BUILD_PORT_TOOL=OFF -DCMAKE_PREFIX_PATH=/tmp/porter-gtest > $OUT/cfg.log 2>&1
cmake --build $B -j16 --target porter-bench porter_device_tests > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; }
echo "built at $(( $(date +%s) - T0 )) s"
timeout 60 $B/tests/device/porter_device_tests --gtest_filter='Multicast*:Launch*' > $OUT/dev_multicast.log 2>&1; echo "device Multicast full scale rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "PASSED|FAILED|porter device matrix" $OUT/dev_multicast.log | tail -4
timeout 40 $B/bench/porter-bench --only bf16gemm --no-triton --no-sweep --out $OUT/e3_r1 > $OUT/e3_r1.txt 2>&1
echo "== bf16gemm rc=$? at $(( $(date +%s) - T0 )) s"; grep -iE "multicast/tma|per-tile/tma|pairs/tma" $OUT/e3_r1.txt | cut -c1-130
for tool in racecheck synccheck memcheck; do
  [ $(( $(date +%s) - T0 )) -gt ${LIMIT:-230} ] && { echo "no time for $tool"; break; }
  PORTER_DEVICE_TEST_SCALE=sanitizer timeout 30 compute-sanitizer --tool $tool --print-limit 50 $B/tests/device/porter_device_tests --gtest_filter='Multicast*' > $OUT/mc_$tool.log 2>&1
  echo "Multicast $tool rc=$?"; grep -E "SUMMARY|PASSED|FAILED" $OUT/mc_$tool.log | tail -3
done
tar czf $FINAL/all.tgz -C /tmp s38min
