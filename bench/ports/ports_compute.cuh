// bench/ports/ports_compute.cuh — what the ports' kernels do with a landed tile, beyond the
// consumers they share with the other workloads (compute.cuh: stream_consume, stencil_consume).
// Shared by each "before" and its porter port, so a pair differs only in how its bytes arrive.
// Plain CUDA C++: no __CUDA_ARCH__, no inline PTX, no vendor #if.
#pragma once
#include "../kernels/compute.cuh"
#include "ports.hpp"

namespace pb::ports {

/// The sum of the 4096 floats of tile `s` (shared memory, 16-byte aligned), returned in thread 0,
/// in one fixed order: thread t adds its float4s t, t + 256, t + 512, t + 768 left to right, the
/// warp adds by a butterfly (xor 16, 8, 4, 2, 1), thread 0 adds the 8 warp sums in warp order.
/// `warp_sums` is 8 floats of shared memory. Every thread of the CTA (256) must call it: it holds
/// two CTA barriers (the second one lets the caller reuse `s` and `warp_sums` at once).
__device__ __forceinline__ float tile_sum(const float* s, float* warp_sums) {
  using namespace tilesum;
  const float4* s4 = reinterpret_cast<const float4*>(s);
  float v = 0.f;
#pragma unroll
  for (int k = 0; k < tile / 4 / threads; ++k) {
    const float4 q = s4[int(threadIdx.x) + k * threads];
    v += q.x;
    v += q.y;
    v += q.z;
    v += q.w;
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  float r = 0.f;
  if (threadIdx.x == 0) {
    r = warp_sums[0];
#pragma unroll
    for (int w = 1; w < threads / 32; ++w) r += warp_sums[w];
  }
  __syncthreads();
  return r;
}

}  // namespace pb::ports
