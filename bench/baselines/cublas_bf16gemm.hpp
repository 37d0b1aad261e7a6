// bench/baselines/cublas_bf16gemm.hpp — the bf16 GEMM ceiling: cuBLAS on bf16gemm's "TN" layout.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "../src/variants.hpp"

namespace pb {

/// cuBLAS computing the same C[M][N] (fp32, row-major) = A[M][K] * B[N][K]^T from bf16 A and B
/// (both row-major, K contiguous): in cuBLAS' column-major terms C^T (N x M, ldc N) = B * A^T with
/// B read as the K x N column-major matrix transposed and A^T as the K x M column-major matrix, i.e.
///   cublasGemmEx(T, N, n, m, k, 1, B, CUDA_R_16BF, k, A, CUDA_R_16BF, k, 0, C, CUDA_R_32F, n,
///                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
/// in the default math mode (CUBLAS_DEFAULT_MATH): bf16 products accumulated in fp32 on the tensor
/// cores, as the porter kernel does, in cuBLAS' own order and split.
class cublas_bf16gemm {
 public:
  cublas_bf16gemm();
  ~cublas_bf16gemm();
  cublas_bf16gemm(const cublas_bf16gemm&) = delete;
  cublas_bf16gemm& operator=(const cublas_bf16gemm&) = delete;
  /// The launch for `p` on stream `s`.
  launcher bind(const bf16gemm_problem& p, cudaStream_t s);
  /// "cuBLAS 13.0.0" (version of the library loaded).
  std::string version() const;

 private:
  void* handle_ = nullptr;
};

}  // namespace pb
