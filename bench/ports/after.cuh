// bench/ports/after.cuh — the ports: each "before" of bench/ports/before_*.cu written with porter,
// as a template over the path (porter::path::tma, cp_async, staged; `automatic` through
// porter::kernel_family on the host). Same problem, tiling and consumer as its before; what the
// hand-written pipeline did (ring, copies, zero fill, commit / wait, barrier) is the pipeline's.
// What is NOT here: __CUDA_ARCH__, inline PTX, vendor #if (docs/design.md, invariant 8).
#pragma once
#include <porter/porter.hpp>

#include "ports_compute.cuh"

namespace pb::ports {

/// Port of before_asm_cp_async.cu: y = a x + b in 1D boxes of 4096 floats, S stages, on the
/// schedule the host passes (the before's persistent grid). Past n the box reads as zero.
template <class Path, int S>
__global__ void __launch_bounds__(axpb::threads)
    pb_port_axpb(const __grid_constant__ porter::tiled_source<axpb::box> x, float* __restrict__ y, long long n, float a, float b,
                 porter::tile_schedule sched) {
  using namespace axpb;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, S, box> pipe(smem);
  porter::for_each_tile(
      pipe, x, sched, [&](long long t) { return porter::coord<1>{int(t * tile)}; },
      [&](porter::tile_view<box> v, long long t) { stream_consume<tile, threads>(v.data(), y, t * tile, n, a, b); });
}

/// Port of before_cuda_barrier.cu: the 5-point Jacobi step, tile t's 34 x 136 halo box at
/// (r0 - 1, c0 - 4), one stage, one tile per CTA (blocked schedule of 1). The zero fill outside the
/// grid is the box's, on every path.
template <class Path>
__global__ void __launch_bounds__(jacobi::threads)
    pb_port_jacobi(const __grid_constant__ porter::tiled_source<jacobi::box> in, float* __restrict__ out, int h, int w,
                   porter::tile_schedule sched) {
  using namespace jacobi;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, 1, box> pipe(smem);
  const int tiles_x = w / tile_w;
  porter::for_each_tile(
      pipe, in, sched,
      [&](long long t) { return porter::coord<2>{int(t / tiles_x) * tile_h - 1, int(t % tiles_x) * tile_w - halo_w}; },
      [&](porter::tile_view<box> v, long long t) {
        stencil_consume<1>(v.data(), out, int(t / tiles_x) * tile_h, int(t % tiles_x) * tile_w, h, w);
      });
}

/// Port of before_cooperative_groups.cu: the sum of every tile of 4096 floats, 2 stages (the
/// before's double buffer), on the before's persistent grid.
template <class Path>
__global__ void __launch_bounds__(tilesum::threads)
    pb_port_tilesum(const __grid_constant__ porter::tiled_source<tilesum::box> x, float* __restrict__ sums,
                    porter::tile_schedule sched) {
  using namespace tilesum;
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ float warp_sums[threads / 32];
  porter::pipeline<Path, stages, box> pipe(smem);
  porter::for_each_tile(
      pipe, x, sched, [&](long long t) { return porter::coord<1>{int(t * tile)}; },
      [&](porter::tile_view<box> v, long long t) {
        const float s = tile_sum(v.data(), warp_sums);
        if (threadIdx.x == 0) sums[t] = s;
      });
}

/// Port of before_cute.cu (the CuTe sm80 multistage mainloop), line by line: one 128 x 128 C tile
/// per CTA (blockIdx.x, as the before's grid), the K-loop nested inside it, S - 1 K-tiles issued
/// before the loop and the refill of K-tile kt + S - 1 right after the wait for K-tile kt. What
/// the before did by hand -- the (16, 128, S) smem tensors, the TiledCopy of 16-byte cp.async atoms,
/// cp_async_fence after every K-tile (also an empty one at the tail), cp_async_wait<S - 2> and the
/// __syncthreads -- is the pipeline's: two boxes per stage (At[kt*16:+16][tm*128:+128] and
/// B[kt*16:+16][tn*128:+128]) and one token per step. Unlike the before, edges need no host check:
/// outside At and B the boxes read as zero and sgemm_store masks C. The same FMAs in the same order
/// (compute.cuh sgemm_mma): the same bits. The launch bounds are the before's 256 threads plus a
/// minimum of 2 CTAs per SM, which the before gets without asking (119 registers): without it ptxas
/// gave the staged instantiation 163-187 registers (sm_90, once the staged copy's interior walk
/// freed registers for more loads in flight), one CTA per SM, and the H200 ran it 1.48x slower.
///
/// Multicast (impl "porter-multicast"): launched in clusters of 2 CTAs along x, the two CTAs of a
/// cluster compute the C tiles (tm, 2j) and (tm, 2j + 1) (the grid's row-major order, with an even
/// number of tile columns), so their At K-tiles are the same: the ring is a
/// porter::cluster_multicast one and At is copied with porter::multicast (on tma: one read from L2
/// per cluster, landing in both CTAs; the issuing CTA alternates), B as before. The kernel ends
/// with porter::cluster_sync(), so no CTA exits while its peer may still multicast into it.
///
/// D (impl "porter-s6", "porter-multicast-s6": S = 6, D = 3): K-tiles issued ahead, S - 1 by default (the before's). With D < S - 1 the
/// refill at step kt goes into the stage released D - S + 1 steps earlier, which the last reuse
/// barrier already covers: the ring's reuse barrier then runs every S - D steps instead of every
/// step (porter/detail/reuse_guard.hpp), for the same bytes in flight at a larger S. The multicast
/// ring has no reuse barrier (its EMPTY mbarrier counts the releases, porter/tma/protocol.hpp):
/// there D < S - 1 lets a CTA run S - D - 1 steps ahead of its peer.
template <class Path, int S, bool Multicast = false, int D = S - 1>
__global__ void __launch_bounds__(sgemm_shape::threads, 2)
    pb_port_cute(const __grid_constant__ porter::tiled_source<sgemm_shape::a_box> at,
                 const __grid_constant__ porter::tiled_source<sgemm_shape::b_box> b, float* __restrict__ c, int m, int n, int k) {
  using namespace sgemm_shape;
  extern __shared__ __align__(128) unsigned char smem[];
  using pipe_t = porter::pipeline<Path, S, a_box, b_box>;
  pipe_t pipe = Multicast ? pipe_t(smem, porter::cluster_multicast, porter::cta_threads<threads>) : pipe_t(smem, porter::cta_threads<threads>);
  const int tiles_n = (n + bn - 1) / bn;
  const int tm = int(blockIdx.x) / tiles_n, tn = int(blockIdx.x) % tiles_n;
  const int k_tiles = (k + bk - 1) / bk;
  int k_read = 0;
  auto issue = [&] {
    auto slot = pipe.producer_acquire();
    if constexpr (Multicast)
      porter::async_copy(porter::buffer<0>(slot), at, porter::coord<2>{k_read * bk, tm * bm}, porter::multicast);
    else
      porter::async_copy(porter::buffer<0>(slot), at, porter::coord<2>{k_read * bk, tm * bm});
    porter::async_copy(porter::buffer<1>(slot), b, porter::coord<2>{k_read * bk, tn * bn});
    pipe.producer_commit(slot);
    ++k_read;
  };
  // Prologue: K-tiles 0 .. D-1 (D = 0: none; each step then issues its own K-tile).
  static_assert(D >= 0 && D <= S - 1, "pb_port_cute: 0 <= D <= S - 1 K-tiles ahead");
  while (k_read < k_tiles && k_read < D) issue();
  const sgemm_thread th;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
  for (int kt = 0; kt < k_tiles; ++kt) {
    if constexpr (D == 0) issue();
    auto ready = pipe.consumer_wait();
    if constexpr (D > 0)
      if (k_read < k_tiles) issue();
    sgemm_mma(acc, ready.template tile<0>().data(), ready.template tile<1>().data(), th);
    pipe.consumer_release(ready);
  }
  sgemm_store(acc, c, tm * bm, tn * bn, m, n, th);
  if constexpr (Multicast) porter::cluster_sync();
}

}  // namespace pb::ports
