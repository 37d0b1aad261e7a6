#!/usr/bin/env bash
# session 37: the CTA-collective multicast ring's reuse protocol. E2 (tree default) = per-stage EMPTY
# with one remote arrival per CTA, issuer waits; E0 = main's cluster barrier (release/acquire);
# E1 = cluster barrier with a relaxed arrive. Device Multicast tests (+ sanitizers) on E2.
set -u
export PATH=/usr/local/cuda/bin:$PATH
FINAL=$OUT; OUT=/tmp/s37out; rm -rf $OUT; mkdir -p $OUT
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv | tee $OUT/gpu.txt
B=/tmp/b2
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTER_CUDA_ARCHITECTURES=90 -DPORTER_BUILD_TESTS=ON -DPORTER_BUILD_EXAMPLES=OFF \
  -DPORTER_BUILD_BENCH=ON -DPORTER_BUILD_PORT_TOOL=OFF -DCMAKE_PREFIX_PATH=/tmp/porter-gtest > $OUT/cfg.log 2>&1 || {
  # GoogleTest from .deps
  cmake -S .deps/googletest -B /tmp/gtb -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=OFF -DINSTALL_GTEST=ON -DCMAKE_INSTALL_PREFIX=/tmp/porter-gtest > /dev/null && cmake --build /tmp/gtb -j16 > /dev/null && cmake --install /tmp/gtb > /dev/null
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTER_CUDA_ARCHITECTURES=90 -DPORTER_BUILD_TESTS=ON -DPORTER_BUILD_EXAMPLES=OFF \
    -DPORTER_BUILD_BENCH=ON -DPORTER_BUILD_PORT_TOOL=OFF -DCMAKE_PREFIX_PATH=/tmp/porter-gtest > $OUT/cfg.log 2>&1; }
cmake --build $B -j16 --target porter-bench porter_device_tests > $OUT/build2.log 2>&1 || { tail -30 $OUT/build2.log; }
echo "E2 built at $(( $(date +%s) - T0 )) s"
ninja -C $B -t commands porter-bench | grep -E "kernels/bf16gemm_kernels.cu" > /tmp/tu_cmds.txt
ninja -C $B -t commands porter-bench | tail -1 > /tmp/link_cmd.txt
echo "TU commands: $(wc -l < /tmp/tu_cmds.txt)"
for v in 0 1; do
  cp -a $B /tmp/b$v
  ( cd /tmp/b$v && while IFS= read -r c; do c=${c/-forward-unknown-to-host-compiler /-forward-unknown-to-host-compiler -DPORTER_EXP_CMC=$v }; c=${c//\/tmp\/b2\//\/tmp\/b$v\/}; bash -c "$c" ; done < /tmp/tu_cmds.txt; bash -c "$(cat /tmp/link_cmd.txt)" ) > $OUT/build$v.log 2>&1 &
done
# meanwhile: the device Multicast cases on E2, plain and under the sanitizers
timeout 120 $B/tests/device/porter_device_tests --gtest_filter='Multicast*:*Cluster*:*Launch*' > $OUT/dev_multicast.log 2>&1; echo "device Multicast rc=$?"; grep -E "PASSED|FAILED|cases" $OUT/dev_multicast.log | tail -5
wait
echo "variants built at $(( $(date +%s) - T0 )) s"; md5sum /tmp/b*/bench/porter-bench
for tool in racecheck memcheck; do
  PORTER_DEVICE_TEST_SCALE=sanitizer timeout 60 compute-sanitizer --tool $tool --print-limit 50 $B/tests/device/porter_device_tests --gtest_filter='Multicast*' > $OUT/mc_$tool.log 2>&1
  echo "Multicast $tool rc=$?"; grep -E "SUMMARY|PASSED|FAILED" $OUT/mc_$tool.log | tail -3
done
for r in 1 2; do for v in 2 0 1; do
  [ $(( $(date +%s) - T0 )) -gt $(( ${LIMIT:-580} - 110 )) ] && { echo "time up before E$v r$r"; break 2; }
  t1=$(date +%s)
  timeout 70 /tmp/b$v/bench/porter-bench --only bf16gemm --no-triton --no-sweep --out $OUT/e${v}_r$r > $OUT/e${v}_r$r.txt 2>&1
  echo "== E$v run $r rc=$? $(( $(date +%s) - t1 )) s"; grep -iE "multicast|per-tile|cublas" $OUT/e${v}_r$r.txt | grep -E "8192|4096" | cut -c1-150 | head -12
done; done
tar czf $FINAL/all.tgz -C /tmp s37out
