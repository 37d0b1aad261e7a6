// tests/fail/wmma_int8_operand.cu — must not compile: porter::load_matrix_sync reads f16 and bf16 operand fragments only (not s8).
#include <porter/wmma.hpp>

__global__ void k(int* out) {
  __shared__ __align__(32) signed char a_s[16 * 16];
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, signed char, nvcuda::wmma::row_major> a;
  porter::load_matrix_sync(a, a_s, 16);
  out[threadIdx.x] = a.x[0];
}
