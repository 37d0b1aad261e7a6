// tests/fail/wmma_accumulator_without_layout.cu — must not compile: an accumulator fragment's load needs its memory layout (as nvcuda::wmma's does).
#include <porter/wmma.hpp>

__global__ void k(float* out) {
  __shared__ __align__(32) float c_s[16 * 16];
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> c;
  porter::load_matrix_sync(c, c_s, 16);
  out[threadIdx.x] = c.x[0];
}
