// bench/baselines/cublas_gemm.hpp — the GEMM ceilings: cuBLAS on porter-bench's layouts (sgemm and
// smallgemm in fp32, bf16gemm in bf16 with fp32 accumulation), one handle for all three.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "../src/variants.hpp"

namespace pb {

/// A cuBLAS handle in the default math mode (CUBLAS_DEFAULT_MATH: FP32 math for SGEMM, no TF32)
/// and the launches of the GEMM workloads' ceilings on it.
class cublas_gemm {
 public:
  cublas_gemm();
  ~cublas_gemm();
  cublas_gemm(const cublas_gemm&) = delete;
  cublas_gemm& operator=(const cublas_gemm&) = delete;
  /// The launch for `p` (sgemm) on stream `s`: the same C[M][N] = A * B from A stored transposed
  /// (At[K][M]) and B[K][N], row-major; in cuBLAS' column-major terms C^T = B^T * A^T, i.e.
  /// cublasSgemm(N, T, n, m, k, 1, B, n, At, m, 0, C, n).
  launcher bind(const sgemm_problem& p, cudaStream_t s);
  /// The launch for the all-row-major `p` (smallgemm) on stream `s`: C^T = B^T * A^T in cuBLAS'
  /// column-major terms, i.e. cublasSgemm(N, N, n, m, k, 1, B, n, A, k, 0, C, n).
  launcher bind(const smallgemm_problem& p, cudaStream_t s);
  /// The launch for `p` (bf16gemm) on stream `s`: the same C[M][N] (fp32, row-major) = A[M][K] *
  /// B[N][K]^T from bf16 A and B (both row-major, K contiguous); in cuBLAS' column-major terms
  /// C^T (N x M, ldc N) = B * A^T with B read as the K x N column-major matrix transposed and A^T as
  /// the K x M column-major matrix, i.e.
  ///   cublasGemmEx(T, N, n, m, k, 1, B, CUDA_R_16BF, k, A, CUDA_R_16BF, k, 0, C, CUDA_R_32F, n,
  ///                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT):
  /// bf16 products accumulated in fp32 on the tensor cores, as the porter kernel does, in cuBLAS'
  /// own order and split.
  launcher bind(const bf16gemm_problem& p, cudaStream_t s);
  /// "cuBLAS 13.0.0" (version of the library loaded).
  std::string version() const;

 private:
  void* handle_ = nullptr;
};

}  // namespace pb
