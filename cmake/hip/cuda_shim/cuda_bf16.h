// cuda_bf16.h for porter's HIP build only (cmake/hip puts this folder on the include path of the
// programs written against the CUDA runtime: examples, the bench kernels). The bench's shared
// headers (bench/kernels/shapes.hpp, bench/src/variants.hpp) name the bf16 storage type for the
// NVIDIA tensor-core workload; the HIP build does not compile that workload's kernels
// (cmake/hip/CMakeLists.txt leaves bench/kernels/*bf16gemm*.cu out), so a 2-byte, trivially
// copyable storage type is all it needs. No arithmetic on it exists here.
#pragma once
#include <cstdint>

/// bf16 storage: the 16 bits of a bfloat16 value (no conversions or arithmetic in the HIP build).
struct __nv_bfloat16 {
  std::uint16_t bits;
};
