#!/usr/bin/env bash
# session 39 call 4: porter-bench --only sgemm with the thread map computed up front (sgemm_thread)
T0=$(date +%s)
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader > $OUT/gpu.txt
timeout 400 bash scripts/bench.sh --out /tmp/b40 --build-dir /tmp/bb -j 16 --only sgemm --budget 80 --triton-budget 30 > $OUT/bench_console.txt 2>&1
echo "bench rc=$? at $(( $(date +%s) - T0 )) s"
grep -E "^  (PASS|MISS|FAIL)" /tmp/b40/stdout.txt | cut -c1-200
grep -E "^sgemm +8192" /tmp/b40/table.txt
grep "^sgemm,8192" /tmp/b40/results.csv | awk -F, '$3=="porter"||$3=="manual"{printf "%s %s S=%s regs=%s %s\n",$3,$4,$5,$11,$21}'
rm -f /tmp/b40/*.png; tar czf $OUT/b40.tgz -C /tmp b40
