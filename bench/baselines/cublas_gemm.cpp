// bench/baselines/cublas_gemm.cpp — cuBLAS on porter-bench's GEMM layouts (see the header).
#include "cublas_gemm.hpp"

#include <cublas_v2.h>

#include <stdexcept>
#include <string>

namespace pb {
namespace {
void check(cublasStatus_t st, const char* what) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusString(st) + " (" + std::to_string(int(st)) + ")");
}
}  // namespace

cublas_gemm::cublas_gemm() {
  cublasHandle_t h = nullptr;
  check(cublasCreate(&h), "cublasCreate");
  check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode(CUBLAS_DEFAULT_MATH)");  // FP32, no TF32
  handle_ = h;
}

cublas_gemm::~cublas_gemm() {
  if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

launcher cublas_gemm::bind(const sgemm_problem& p, cudaStream_t s) {
  cublasHandle_t h = static_cast<cublasHandle_t>(handle_);
  check(cublasSetStream(h, s), "cublasSetStream");
  return [h, p](cudaStream_t) {
    const float one = 1.0f, zero = 0.0f;
    check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, p.n, p.m, p.k, &one, p.b, p.n, p.at, p.m, &zero, p.c, p.n), "cublasSgemm");
  };
}

launcher cublas_gemm::bind(const smallgemm_problem& p, cudaStream_t s) {
  cublasHandle_t h = static_cast<cublasHandle_t>(handle_);
  check(cublasSetStream(h, s), "cublasSetStream");
  return [h, p](cudaStream_t) {
    const float one = 1.0f, zero = 0.0f;
    check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &one, p.b, p.n, p.a, p.k, &zero, p.c, p.n), "cublasSgemm");
  };
}

launcher cublas_gemm::bind(const bf16gemm_problem& p, cudaStream_t s) {
  cublasHandle_t h = static_cast<cublasHandle_t>(handle_);
  check(cublasSetStream(h, s), "cublasSetStream");
  return [h, p](cudaStream_t) {
    const float one = 1.0f, zero = 0.0f;
    check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, p.n, p.m, p.k, &one, p.b, CUDA_R_16BF, p.k, p.a, CUDA_R_16BF, p.k, &zero, p.c,
                       CUDA_R_32F, p.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx(bf16)");
  };
}

std::string cublas_gemm::version() const {
  int v = 0;
  cublasGetVersion(static_cast<cublasHandle_t>(handle_), &v);
  return "cuBLAS " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace pb
