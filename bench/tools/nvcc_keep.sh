#!/usr/bin/env bash
# bench/tools/nvcc_keep.sh — compiler launcher for the bench kernel objects (CUDA_COMPILER_LAUNCHER).
# usage: nvcc_keep.sh <keep-dir> <nvcc> <args...>
# Runs the compile with --resource-usage and --keep, so that the lowering report costs no second
# compile: ptxas' per-kernel resources go to <keep-dir>/<tu>/ptxas.log and the PTX of each target
# stays as <keep-dir>/<tu>/<tu>.compute_XX.ptx (the other intermediates are deleted).
# Warnings and errors still reach the build log; ptxas' info lines do not.
set -u
keep="$1"; shift
obj=""; prev=""
for a in "$@"; do
  if [ "$prev" = "-o" ]; then obj="$a"; fi
  prev="$a"
done
name=$(basename "${obj:-unknown.o}"); name=${name%.o}; name=${name%.cu}
dir="$keep/$name"
rm -rf "$dir"; mkdir -p "$dir"
"$@" --resource-usage --keep --keep-dir "$dir" 2>"$dir/ptxas.log"
rc=$?
grep -v -E '^(ptxas info|    [0-9]+ bytes stack frame)' "$dir/ptxas.log" >&2
find "$dir" -type f ! -name '*.ptx' ! -name 'ptxas.log' -delete
exit $rc
