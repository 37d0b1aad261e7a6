// tests/consumer/copy_tiles.hpp — the consumer's kernel, as its host code sees it.
#pragma once
#include <cuda_runtime.h>

/// Copies the rows x cols fp32 matrix `src` (device memory, row-major, dense) to `dst` (device
/// memory, same shape) through shared memory: 8 x 32 tiles, a two-stage porter pipeline on the
/// staged path, 128 threads per CTA. Any rows, cols >= 1 (edge tiles are partial). Asynchronous on
/// `stream`. Throws porter::error when porter refuses the launch (e.g. no GPU).
void copy_tiles(const float* src, float* dst, int rows, int cols, cudaStream_t stream);
