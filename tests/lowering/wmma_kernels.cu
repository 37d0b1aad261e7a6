// tests/lowering/wmma_kernels.cu — nvcuda::wmma fragments read from shared memory by porter
// (porter/wmma.hpp) and by nvcuda's own load_matrix_sync, compiled to PTX for sm_80 and sm_90 (bf16
// fragments exist from sm_80 on) and read by lowering_test (Lowering.Wmma*, Lowering.NvcudaWmma*).
#include <cuda_bf16.h>
#include <mma.h>

#include <porter/wmma.hpp>

#include "../../bench/ports/wmma_access.cuh"  // the switch the bf16 port's comparison row uses

using namespace nvcuda;

/// D (global) = A B + C with A (row-major), B (column-major) and C (row-major) at the start of the
/// dynamic shared memory, ld 24, 24 and 20 elements, through shared memory again (column-major).
template <bool Porter, class T>
__device__ void wmma_body(float* d, unsigned ld) {
  extern __shared__ __align__(128) unsigned char smem[];
  const T* a_s = reinterpret_cast<const T*>(smem);
  const T* b_s = a_s + 16 * 24;
  float* c_s = reinterpret_cast<float*>(smem + 2048);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  using access = pb::ports::wmma_access<Porter>;
  access::load(a, a_s, 24);
  access::load(b, b_s, 24);
  access::load(c, c_s, 20, wmma::mem_row_major);
  wmma::mma_sync(c, a, b, c);
  access::store(c_s + 1024, c, 20, wmma::mem_col_major);
  __syncwarp();
  d[threadIdx.x] = c_s[1024 + threadIdx.x * ld];
}

template <class T>
__global__ void lower_wmma_porter(float* d, unsigned ld) { wmma_body<true, T>(d, ld); }
/// What porter's replace: nvcuda::wmma's own loads and store of the same shared memory.
template <class T>
__global__ void lower_wmma_nvcuda(float* d, unsigned ld) { wmma_body<false, T>(d, ld); }

template __global__ void lower_wmma_porter<__nv_bfloat16>(float*, unsigned);
template __global__ void lower_wmma_porter<__half>(float*, unsigned);
template __global__ void lower_wmma_nvcuda<__nv_bfloat16>(float*, unsigned);
