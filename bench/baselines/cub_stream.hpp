// bench/baselines/cub_stream.hpp — the stream peer a user would pick instead of porter:
// cub::DeviceTransform (CCCL, shipped with the CUDA toolkit) computing the same y = a * x + b.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "../src/variants.hpp"

namespace pb {

/// The launch of y[i] = fmaf(a, x[i], b), i < n, through cub::DeviceTransform::Transform on the
/// given stream (the same operation, rounding included, as stream_consume). CUB picks its own
/// algorithm, block size and grid for the device. Precondition: n < 2^31 (a 32-bit item count,
/// CUB's cheaper offset type); throws std::invalid_argument otherwise. The launch throws
/// std::runtime_error when CUB reports an error.
launcher bind_cub_stream(const stream_problem& p);

/// "CCCL 3.0.1 (cub::DeviceTransform)": the CCCL version compiled in.
std::string cub_version();

}  // namespace pb
