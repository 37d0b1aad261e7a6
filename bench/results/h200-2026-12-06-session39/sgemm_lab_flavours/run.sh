#!/usr/bin/env bash
# bench/results/h200-2026-12-06-session38/sgemm_lab/run.sh — build and run the sgemm lab (issue 9). From the repository root:
#   bash bench/results/h200-2026-12-06-session38/sgemm_lab/run.sh
# Builds porter's core (.cpp, host compiler) and sgemm_lab.cu (compiled once per part, -DLAB_PART=p,
# in parallel), links with cuBLAS, runs the binary. Logs (ptxas -v per part, the register/spill
# summary, the run's table) go to $OUT when set, else to the build folder.
# Knobs: LAB_JOBS (parallel compiles, default nproc), LAB_NORUN=1 (build only), LAB_BUILD (build
# folder, default /tmp/sgemm_lab_build); the binary reads LAB_FILTER, LAB_SCHED, LAB_SIZE, LAB_REPS,
# LAB_BUDGET_S (see sgemm_lab.cu).
set -u
ROOT=$(pwd)
LAB=$(cd "$(dirname "$0")" && pwd)  # this folder (build-scratch/sgemm_lab, or a results folder)
[ -f "$LAB/sgemm_lab.cu" ] || { echo "run.sh: run from the repository root (no $LAB/sgemm_lab.cu)"; exit 1; }
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA/bin/nvcc
B=${LAB_BUILD:-/tmp/sgemm_lab_build}
LOG=${OUT:-$B}
JOBS=${LAB_JOBS:-$(nproc)}
mkdir -p "$B" "$LOG"
rm -f "$B"/part_*.o "$B"/core_*.o "$B/sgemm_lab"  # no stale objects
T0=$(date +%s)
INC=""
for d in include backends/registry/nvidia backends/tma backends/cp_async backends/staged backends/staged/nvidia \
         backends/fragments/nvidia backends/grid/nvidia backends/isa/ptx bench/kernels; do INC="$INC -I$ROOT/$d"; done
NVFLAGS="-O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -lineinfo"
PARTS="0 1 2 3 4 5 6 7"

# A tiny job pool: run "$@" in the background, at most $JOBS at once.
pool() {
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n 2>/dev/null || sleep 0.2; done
  "$@" &
}

# the lab's parts (kernels + their registration) and main (part 99): the long jobs, started first
for p in $PARTS 99; do
  pool bash -c "$NVCC $NVFLAGS $INC -DLAB_PART=$p -Xptxas -v -c '$LAB/sgemm_lab.cu' -o '$B/part_$p.o' > '$LOG/ptxas_part$p.log' 2>&1 || { echo 'nvcc FAILED: part $p'; grep -E 'error' '$LOG/ptxas_part$p.log' | head -20; }"
done
# porter core: every core/src .cpp except the HIP ones (CMakeLists.txt's porter_core list)
CORE_OBJS=""
for f in "$ROOT"/core/src/*.cpp "$ROOT"/core/src/rules/*.cpp; do
  case "$f" in *_hip.cpp) continue ;; esac
  o=$B/core_$(basename "$(dirname "$f")")_$(basename "$f" .cpp).o
  CORE_OBJS="$CORE_OBJS $o"
  pool bash -c "g++ -O2 -std=c++17 -fPIC $INC -I$CUDA/include -c '$f' -o '$o' > '$o.log' 2>&1 || { echo 'core compile FAILED: $f'; cat '$o.log'; }"
done
wait
echo "compiled in $(( $(date +%s) - T0 )) s"
$NVCC -arch=sm_90 -o "$B/sgemm_lab" "$B"/part_*.o $CORE_OBJS -lcublas -lcuda -ldl > "$LOG/link.log" 2>&1 || { echo "link FAILED"; cat "$LOG/link.log"; exit 1; }
echo "linked in $(( $(date +%s) - T0 )) s"

# ptxas summary: kernel (demangled, shortened), registers, stack, spills
FILT=$(command -v "$CUDA/bin/cu++filt" || command -v c++filt || echo cat)
cat > "$B/summ.awk" <<'AWK'
/Compiling entry function/ { name = $0; sub(/.*function ./, "", name); sub(/. for .*/, "", name); next }
/stack frame/ { n = split($0, a, ","); stack = a[1]; spill = a[2] "," a[3]; sub(/^ +/, "", stack); next }
/Used [0-9]+ registers/ { regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs); print name "\t" regs "\t" stack "\t" spill }
AWK
cat "$LOG"/ptxas_part*.log | awk -f "$B/summ.awk" | while IFS=$'\t' read -r name regs stack spill; do
  d=$(echo "$name" | $FILT 2>/dev/null || echo "$name")
  d=$(echo "$d" | sed -E 's/porter::tiled_source<.*$//; s/lab::lab_cfg/cfg/; s/porter::path:://g; s/^void //; s/\($//')
  printf "%-4s regs  %-22s %-45s %s\n" "$regs" "$stack" "$spill" "$d"
done | sort -k12 > "$LOG/ptxas_summary.txt"
grep -E "lab_sgemm|pb_sgemm" "$LOG/ptxas_summary.txt" | cut -c1-200
if grep -E "lab_sgemm|pb_sgemm" "$LOG/ptxas_summary.txt" | grep -vq " 0 bytes spill stores, 0 bytes spill loads"; then echo "WARNING: spills above"; fi

# static SASS counts per kernel (when cuobjdump is there), in the background while the binary runs
OBJDUMP=$(command -v "$CUDA/bin/cuobjdump" || command -v cuobjdump || true)
if [ -n "$OBJDUMP" ]; then
  (
    cat > "$B/sass.awk" <<'AWK'
function flush() { if (fn != "") printf "FFMA %-5d LDS %-4d LDL %-3d STL %-3d BAR %-3d SYNCS %-3d total %-5d %s\n", ffma, lds, ldl, stl, bar, syncs, tot, fn }
/Function :/ { flush(); fn = $0; sub(/.*Function : /, "", fn); ffma = lds = ldl = stl = bar = syncs = tot = 0; next }
/\/\*[0-9a-f]+\*\// { tot++ }
/ FFMA / { ffma++ } / LDS/ { lds++ } / LDL/ { ldl++ } / STL/ { stl++ } / BAR/ { bar++ } / SYNCS/ { syncs++ }
END { flush() }
AWK
    for p in $PARTS; do "$OBJDUMP" -sass "$B/part_$p.o" 2>/dev/null | awk -f "$B/sass.awk"; done | while IFS= read -r line; do
      fn=${line##* }; d=$(echo "$fn" | $FILT 2>/dev/null || echo "$fn")
      d=$(echo "$d" | sed -E 's/porter::tiled_source<.*$//; s/lab::lab_cfg/cfg/; s/porter::path:://g; s/^void //; s/\($//')
      echo "${line% *} $d"
    done > "$LOG/sass_stats.txt"
  ) &
  SASS_PID=$!
fi

[ "${LAB_NORUN:-0}" = 1 ] && { [ -n "${SASS_PID:-}" ] && wait "$SASS_PID"; exit 0; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
"$B/sgemm_lab" 2>&1 | tee "$LOG/run.txt"
[ -n "${SASS_PID:-}" ] && { wait "$SASS_PID"; echo "--- static SASS counts ($LOG/sass_stats.txt)"; cut -c1-230 "$LOG/sass_stats.txt"; }
echo "total $(( $(date +%s) - T0 )) s"
