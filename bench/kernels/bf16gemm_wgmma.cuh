// bench/kernels/bf16gemm_wgmma.cuh — the bf16 GEMM of bf16gemm.cuh (C fp32 M x N = A (bf16 M x K,
// row-major) * B^T, B bf16 N x K row-major: "TN") with warpgroup MMA on sm_90a, written ONCE with
// porter's producer/consumer roles:
//
//   warpgroup 0 (producer)                   for every K-tile of every tile of the schedule:
//                                            producer_acquire, async_copy A and B boxes, producer_commit
//   warpgroups 1, 2 (consumers)              consumer_wait, 4 x wgmma.mma_async m64n256k16 on the
//                                            landed tiles (porter::wgmma_descriptor), commit; wait for
//                                            the previous stage's group; consumer_release of it
//
// The data path is the template parameter: on tma producer thread 0 issues two tensor copies per
// stage and the consumers' wgmma read the 128 B swizzle TMA wrote; on cp_async and staged the 128
// producer threads land the same bytes in the same swizzle (porter computes the destinations), so
// the compute, and C, are identical on every path: the ratio between the paths is the data
// paths' difference on the same kernel and GPU.
// What is NOT here: __CUDA_ARCH__, inline PTX, vendor #if (docs/design.md, invariant 8): the
// instructions are in wgmma_consumer.cuh.
#pragma once
#include <porter/porter.hpp>

#include <utility>

#include "bf16gemm.cuh"
#include "shapes.hpp"
#include "wgmma_consumer.cuh"

namespace pb {

/// Issue one stage's MMAs for consumer warpgroup `wg`: 4 x m64n256k16 over K-tile columns 0..63 of
/// the landed A rows 64 wg .. 64 wg + 63 and all 256 rows of B, then commit them as one group.
/// `accumulate` false: the first k-step overwrites the accumulators (a new output tile).
template <class Ready>
__device__ __forceinline__ void bf16gemm_wgmma_stage(float (&acc)[wgmma_n256_accumulators], const Ready& ready, int wg, bool accumulate) {
  using namespace bf16gemm_wgmma_shape;
  const auto ta = ready.template tile<0>();
  const auto tb = ready.template tile<1>();
  wgmma_fence_operands(acc);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < ksteps; ++kk)
    wgmma_m64n256k16_bf16(acc, porter::wgmma_descriptor(ta, wg_m * wg, 16 * kk), porter::wgmma_descriptor(tb, 0, 16 * kk),
                          accumulate || kk > 0);
  wgmma_commit();
  wgmma_fence_operands(acc);
}

/// Store consumer warpgroup `wg`'s 64 x 256 accumulators (layout: wgmma_consumer.cuh) to C
/// (row-major, ldc = n) for the CTA tile at (m0, n0); `r` is the thread's rank in the warpgroup.
/// Entries outside C are skipped; 8-byte stores where both columns are inside and n is even.
__device__ __forceinline__ void bf16gemm_wgmma_store(const float (&acc)[wgmma_n256_accumulators], float* __restrict__ c, int m0, int n0, int m,
                                                     int n, int wg, int r) {
  using namespace bf16gemm_wgmma_shape;
  const int w = r / 32, lane = r % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = m0 + wg_m * wg + 16 * w + g + 8 * h;
    if (row >= m) continue;
    float* crow = c + static_cast<long long>(row) * n;
#pragma unroll
    for (int j = 0; j < bn / 8; ++j) {
      const int col = n0 + 8 * j + 2 * t;
      const float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
      if (col + 1 < n && n % 2 == 0) {
        *reinterpret_cast<float2*>(crow + col) = make_float2(v0, v1);
      } else {
        if (col < n) crow[col] = v0;
        if (col + 1 < n) crow[col + 1] = v1;
      }
    }
  }
}

/// bf16gemm with wgmma: C = A * B^T over this CTA's output tiles of `sched` (tile t in the grouped
/// order of bf16gemm_grouped_origin). One stage = the A (128 x 64) and B (256 x 64) boxes of one
/// K-tile, 128 B-swizzled. The producer runs up to Stages stages ahead, across tile boundaries, so
/// the next tile's copies overlap this tile's epilogue. Each consumer warpgroup keeps one stage's
/// MMAs in flight: it releases stage i - 1 after issuing stage i's and waiting for i - 1's group.
/// Elements outside A or B land as zero, so any M, N >= 1 and K >= 0 work (K = 0 stores zeros),
/// within the path's host rules: on tma A's and B's row pitch (K bf16) must be a multiple of 16
/// bytes, K a multiple of 8 (porter::launch refuses others: tma.stride_multiple_of_16). Stages >= 2.
/// Launch: 384 threads (bf16gemm_wgmma_shape::threads), Pipe::shared_bytes of dynamic shared
/// memory, launch_options::uses_role_pipeline().
/// Roles: bf16gemm_wgmma_shape::roles (no register reallocation) or roles_setmaxnreg.
/// HA, HB: the L2 hints of A's and B's copies (porter/cache_hint.hpp; none: unhinted).
/// Multicast (rows "*-multicast" and, launched without clusters, "*-pairs"): a porter::cluster_multicast
/// ring, the tiles in the paired order (bf16gemm_pair_origin), B copied with porter::multicast; in
/// clusters of 2 CTAs (an even persistent grid, tiles_m even) the two CTAs of a cluster compute
/// the two tiles of a pair and each stage's B box is read once for both. Every thread ends with
/// porter::cluster_sync().
template <class Path, int Stages, class Roles = bf16gemm_wgmma_shape::roles, porter::cache_hint HA = porter::cache_hint::none,
          porter::cache_hint HB = porter::cache_hint::none, bool Multicast = false>
__global__ void __launch_bounds__(bf16gemm_wgmma_shape::threads, 1)
    pb_bf16gemm_wgmma(const __grid_constant__ porter::tiled_source<bf16gemm_wgmma_shape::a_box> a,
                      const __grid_constant__ porter::tiled_source<bf16gemm_wgmma_shape::b_box> b, float* __restrict__ c, int m, int n,
                      int k, porter::tile_schedule sched) {
  using namespace bf16gemm_wgmma_shape;
  static_assert(Stages >= 2,
                "pb_bf16gemm_wgmma keeps one stage's MMAs in flight while it waits for the next stage: with one stage it would "
                "hold the only stage while waiting for its next pass");
  // Its own array name: one extern __shared__ name has one alignment per translation unit (the other
  // bench kernels declare theirs __align__(128)).
  extern __shared__ __align__(1024) unsigned char pb_wgmma_smem[];
  using Pipe = porter::role_pipeline<Path, Roles, Stages, a_box, b_box>;
  Pipe pipe = bf16gemm_make_pipe<Pipe, Multicast>(pb_wgmma_smem);
  const int tiles_m = (m + bm - 1) / bm, tiles_n = (n + bn - 1) / bn, ktiles = (k + bk - 1) / bk;
  const int count = int(sched.count());
  if (pipe.is_producer()) {
    pipe.enter_role();
    bf16gemm_produce<HA, HB, Multicast>(pipe, a, b, sched, count, tiles_m, tiles_n, ktiles);
    if constexpr (Multicast) porter::cluster_sync();
    return;
  }
  pipe.enter_role();
  const int r = int(threadIdx.x) - int(Roles::producer_threads);
  const int wg = r / 128;
  float acc[wgmma_n256_accumulators];
  if (ktiles == 0) {  // K = 0: C = 0, and no stage ever lands (apart from the main loop: its registers)
#pragma unroll
    for (int e = 0; e < wgmma_n256_accumulators; ++e) acc[e] = 0.f;
    for (int tl = 0; tl < count; ++tl) {
      int m0, n0;
      bf16gemm_role_origin<Multicast>(sched.tile(tl), tiles_m, tiles_n, m0, n0);
      bf16gemm_wgmma_store(acc, c, m0, n0, m, n, wg, r % 128);
    }
    if constexpr (Multicast) porter::cluster_sync();
    return;
  }
  for (int tl = 0; tl < count; ++tl) {
    int m0, n0;
    bf16gemm_role_origin<Multicast>(sched.tile(tl), tiles_m, tiles_n, m0, n0);
    auto prev = pipe.consumer_wait(porter::async_proxy_reads);  // cp_async, staged: fence.proxy.async (wgmma reads via the async proxy)
    bf16gemm_wgmma_stage(acc, prev, wg, false);
    for (int kt = 1; kt < ktiles; ++kt) {
      auto cur = pipe.consumer_wait(porter::async_proxy_reads);
      bf16gemm_wgmma_stage(acc, cur, wg, true);
      wgmma_wait<1>();  // the previous stage's MMAs are done: its buffers may be refilled
      pipe.consumer_release(prev);
      prev = std::move(cur);
    }
    wgmma_wait<0>();
    wgmma_fence_operands(acc);
    pipe.consumer_release(prev);
    bf16gemm_wgmma_store(acc, c, m0, n0, m, n, wg, r % 128);
  }
  if constexpr (Multicast) porter::cluster_sync();
}

}  // namespace pb
