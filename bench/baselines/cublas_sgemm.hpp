// bench/baselines/cublas_sgemm.hpp — the SGEMM ceiling: cuBLAS on porter-bench's layouts.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "../src/variants.hpp"

namespace pb {

/// cuBLAS SGEMM (FP32 math, no TF32) computing the same C[M][N] = A * B from A stored transposed
/// (At[K][M]) and B[K][N], row-major: in cuBLAS' column-major terms C^T = B^T * A^T, i.e.
/// cublasSgemm(N, T, n, m, k, 1, B, n, At, m, 0, C, n).
class cublas_sgemm {
 public:
  cublas_sgemm();
  ~cublas_sgemm();
  cublas_sgemm(const cublas_sgemm&) = delete;
  cublas_sgemm& operator=(const cublas_sgemm&) = delete;
  /// The launch for `p` on stream `s`.
  launcher bind(const sgemm_problem& p, cudaStream_t s);
  /// The launch for the all-row-major `p` (smallgemm) on stream `s`: C^T = B^T * A^T in cuBLAS'
  /// column-major terms, i.e. cublasSgemm(N, N, n, m, k, 1, B, n, A, k, 0, C, n).
  launcher bind(const smallgemm_problem& p, cudaStream_t s);
  /// "cuBLAS 13.0.0" (version of the library loaded).
  std::string version() const;

 private:
  void* handle_ = nullptr;
};

}  // namespace pb
