#!/usr/bin/env bash
# session 39 call 2: the whole porter-bench (scripts/bench.sh) with the K-tile-16 interleaved sgemm; no Kokkos
T0=$(date +%s)
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader > $OUT/gpu.txt
timeout ${BENCH_LIMIT:-520} bash scripts/bench.sh --out /tmp/b39 --build-dir /tmp/bb -j 16 --budget ${BUDGET:-200} --triton-budget 50 > $OUT/bench_console.txt 2>&1
echo "bench rc=$? at $(( $(date +%s) - T0 )) s"
grep -E "PASS|MISS|FAIL|n/a" /tmp/b39/stdout.txt | grep -E "^  (PASS|MISS|FAIL)" | cut -c1-200 | head -80
grep -E "^sgemm " /tmp/b39/table.txt 2>/dev/null | head -60
tar czf $OUT/b39.tgz -C /tmp b39
