#!/usr/bin/env bash
# Stall reasons per path through Nsight Compute: porter-bench --ncu-only (builds first if needed).
# usage: bench/ncu_stalls.sh [--out DIR] [porter-bench options]   (default DIR bench/results/ncu)
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/bench/results/ncu"
if [ "${1:-}" = "--out" ]; then out="$2"; shift 2; fi
exec "$root/scripts/bench.sh" --out "$out" --ncu-only "$@"
