#!/usr/bin/env bash
# session 39 call 3: the lab's flavours of il_k16 against the tree's new pb_sgemm, + SASS of both
T0=$(date +%s)
export PATH=/usr/local/cuda/bin:$PATH
LAB_BUDGET_S=60 OUT=/tmp/lab bash build-scratch/sgemm_lab/run.sh > $OUT/lab_console.txt 2>&1
echo "lab rc=$? at $(( $(date +%s) - T0 )) s"; grep -vE "^FFMA" $OUT/lab_console.txt | grep -E "^(variant|cublas|pb_|k16|il_)|best" 
grep -E "^FFMA" $OUT/lab_console.txt | cut -c1-200
for p in 0 1 2 3 5; do cuobjdump -sass /tmp/sgemm_lab_build/part_$p.o > /tmp/lab/sass_part$p.txt 2>&1; done
tar czf $OUT/lab.tgz -C /tmp lab
