// bench/ports/public_matmul.cuh — the port of a public kernel: NVIDIA cuda-samples
// Samples/3_CUDA_Features/globalToShmemAsyncCopy, kernel MatrixMulAsyncCopySingleStage (commit
// c94ff366), written from porter-port's report on the sample and docs/porting.md only. The sample's
// code is not in this repository (bench/README.md, "ports", says how porter-bench times it).
//
// C = A B, row-major (A hA x wA, B wA x wB), as the sample: a 16 x 16 C tile per CTA of 16 x 16
// threads, one element per thread, K-step 16. The sample's thread-scope cuda::pipeline (each thread
// copies its own element of As and Bs with cuda::memcpy_async of 4 bytes, producer_commit,
// consumer_wait, then __syncthreads) becomes a porter pipeline whose step holds two 16 x 16 boxes
// (A at (m0, k0), B at (k0, n0)); S = 1 is the sample's single stage, S > 1 overlaps. The product
// is the sample's expression, `Csub += As[ty][k] * Bs[k][tx]` in k order, so C has the same bits.
// Unlike the sample, sizes need not be multiples of 16 (the boxes read zeros outside A and B).
#pragma once
#include <porter/porter.hpp>

#include "ports.hpp"

namespace pb::ports {

template <class Path, int S>
__global__ void pb_port_matmul(const __grid_constant__ porter::tiled_source<matmul::a_box> A,
                               const __grid_constant__ porter::tiled_source<matmul::b_box> B, float* __restrict__ C, int hA,
                               int wA, int wB) {
  using namespace matmul;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, S, a_box, b_box> pipe(smem);
  const int m0 = int(blockIdx.y) * block, n0 = int(blockIdx.x) * block;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  float Csub = 0.0;
  porter::run_pipeline(
      pipe, (wA + block - 1) / block,
      [&](auto& slot, int kt) {
        porter::async_copy(porter::buffer<0>(slot), A, porter::coord<2>{m0, kt * block});
        porter::async_copy(porter::buffer<1>(slot), B, porter::coord<2>{kt * block, n0});
      },
      [&](auto& ready, int) {
        const float* As = ready.template tile<0>().data();
        const float* Bs = ready.template tile<1>().data();
#pragma unroll
        for (int k = 0; k < block; ++k) Csub += As[ty * block + k] * Bs[k * block + tx];
      });
  if (m0 + ty < hA && n0 + tx < wB) C[static_cast<long long>(m0 + ty) * wB + n0 + tx] = Csub;
}

}  // namespace pb::ports
