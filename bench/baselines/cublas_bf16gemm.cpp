// bench/baselines/cublas_bf16gemm.cpp — cuBLAS bf16 GEMM on bf16gemm's layout (see the header).
#include "cublas_bf16gemm.hpp"

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

cublas_bf16gemm::cublas_bf16gemm() {
  cublasHandle_t h = nullptr;
  check(cublasCreate(&h), "cublasCreate");
  check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode(CUBLAS_DEFAULT_MATH)");
  handle_ = h;
}

cublas_bf16gemm::~cublas_bf16gemm() {
  if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

launcher cublas_bf16gemm::bind(const bf16gemm_problem& p, cudaStream_t s) {
  cublasHandle_t h = static_cast<cublasHandle_t>(handle_);
  check(cublasSetStream(h, s), "cublasSetStream");
  return [h, p](cudaStream_t) {
    const float one = 1.0f, zero = 0.0f;
    check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, p.n, p.m, p.k, &one, p.b, CUDA_R_16BF, p.k, p.a, CUDA_R_16BF, p.k, &zero, p.c,
                       CUDA_R_32F, p.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx(bf16)");
  };
}

std::string cublas_bf16gemm::version() const {
  int v = 0;
  cublasGetVersion(static_cast<cublasHandle_t>(handle_), &v);
  return "cuBLAS " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace pb
