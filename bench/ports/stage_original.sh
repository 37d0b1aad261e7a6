#!/usr/bin/env bash
# bench/ports/stage_original.sh — put the public kernel's original where porter-bench's build finds
# it: build-public/cuda-samples/ (git-ignored; the sample's code is never committed to porter).
#
# usage: bench/ports/stage_original.sh [CUDA_SAMPLES]
#   CUDA_SAMPLES  a clone of github.com/NVIDIA/cuda-samples (a work tree or a bare mirror); without
#                 it the script clones it (needs network) into a temporary folder.
# Copies, from commit c94ff366 (the one the port was written against; HEAD when that commit is
# absent): Samples/3_CUDA_Features/globalToShmemAsyncCopy/globalToShmemAsyncCopy.cu and the
# Common/ headers it includes. Then configure porter-bench (PORTER_PORTS_ORIGINAL defaults to the
# staged file) and run `porter-bench --only ports`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/build-public/cuda-samples
src=${1:-}
if [[ -z $src ]]; then
  src=$(mktemp -d)/cuda-samples
  git clone --quiet --filter=blob:none https://github.com/NVIDIA/cuda-samples.git "$src"
fi
rev=c94ff366
git -C "$src" rev-parse --verify -q "$rev^{commit}" >/dev/null || rev=HEAD
sample=Samples/3_CUDA_Features/globalToShmemAsyncCopy/globalToShmemAsyncCopy.cu
mkdir -p "$dest/Common" "$dest/$(dirname "$sample")"
git -C "$src" show "$rev:$sample" >"$dest/$sample"
for h in helper_cuda.h helper_functions.h helper_string.h helper_image.h helper_timer.h exception.h; do
  git -C "$src" show "$rev:Common/$h" >"$dest/Common/$h"
done
echo "$(git -C "$src" rev-parse "$rev") NVIDIA/cuda-samples" >"$dest/COMMIT"
echo "stage_original.sh: $dest/$sample ($(cut -c1-8 "$dest/COMMIT"))"
