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
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, S, box> pipe(smem);
  porter::for_each_tile(
      pipe, x, sched, [&](long long t) { return porter::coord<1>{int(t * tile)}; },
      [&](porter::tile_view<box> v, long long t) { stream_consume(v.data(), y, t * tile, n, a, b); });
}

/// Port of before_cuda_barrier.cu: the 5-point Jacobi step, tile t's 34 x 136 halo box at
/// (r0 - 1, c0 - 4), one stage, one tile per CTA (blocked schedule of 1). The zero fill outside the
/// grid is the box's, on every path.
template <class Path>
__global__ void __launch_bounds__(jacobi::threads)
    pb_port_jacobi(const __grid_constant__ porter::tiled_source<jacobi::box> in, float* __restrict__ out, int h, int w,
                   porter::tile_schedule sched) {
  using namespace jacobi;
  extern __shared__ unsigned char smem[];
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
  extern __shared__ unsigned char smem[];
  __shared__ float warp_sums[threads / 32];
  porter::pipeline<Path, stages, box> pipe(smem);
  porter::for_each_tile(
      pipe, x, sched, [&](long long t) { return porter::coord<1>{int(t * tile)}; },
      [&](porter::tile_view<box> v, long long t) {
        const float s = tile_sum(v.data(), warp_sums);
        if (threadIdx.x == 0) sums[t] = s;
      });
}

}  // namespace pb::ports
