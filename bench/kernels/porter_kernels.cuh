// bench/kernels/porter_kernels.cuh — the workloads written ONCE with porter.
//
// Each kernel is a template over the data path (porter::path::tma, cp_async, staged) and the stage
// count; porter-bench instantiates it per path and, for the stage sweep, per stage count.
// Persistent grids: the host launches SMs x occupancy CTAs; CTA b takes tiles b, b + gridDim.x, ...
// What is NOT here: __CUDA_ARCH__, inline PTX, vendor #if (DESIGN.md, invariant 7).
#pragma once
#include <porter/porter.hpp>

#include "compute.cuh"
#include "shapes.hpp"

namespace pb {

/// stream: y = a * x + b over n floats. x is read in 1D boxes of 4096 floats (16 KiB per stage).
template <class Path, int Stages>
__global__ void __launch_bounds__(stream_shape::threads)
    pb_stream(const __grid_constant__ porter::tiled_source<stream_shape::box> x, float* __restrict__ y, long long n,
              float a, float b) {
  using namespace stream_shape;
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, Stages, box> pipe(smem);
  const long long tiles = (n + tile - 1) / tile;
  auto first = [&](int i) { return (static_cast<long long>(blockIdx.x) + static_cast<long long>(i) * gridDim.x) * tile; };
  porter::for_each_tile(
      pipe, x, tiles_of_this_cta(tiles), [&](int i) { return porter::coord<1>{int(first(i))}; },
      [&](porter::tile_view<box> t, int i) { stream_consume(t.data(), y, first(i), n, a, b); });
}

/// stencil2d: one Jacobi step of the radius-R star stencil on an h x w grid (zero outside).
/// Tiles of 32 x 128 outputs, each read with its halo as one box<R> ((32 + 2R) x 136 floats).
template <class Path, int Stages, int R>
__global__ void __launch_bounds__(stencil_shape::threads)
    pb_stencil(const __grid_constant__ porter::tiled_source<stencil_shape::box<R>> in, float* __restrict__ out, int h,
               int w) {
  using namespace stencil_shape;
  using B = box<R>;
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, Stages, B> pipe(smem);
  const int tiles_x = (w + tile_w - 1) / tile_w;
  const long long tiles = static_cast<long long>(tiles_x) * ((h + tile_h - 1) / tile_h);
  auto origin = [&](int i) {
    const int t = int(blockIdx.x) + i * int(gridDim.x);
    return porter::coord<2>{(t / tiles_x) * tile_h, (t % tiles_x) * tile_w};
  };
  porter::for_each_tile(
      pipe, in, tiles_of_this_cta(tiles),
      [&](int i) {
        const auto o = origin(i);
        return porter::coord<2>{o[0] - R, o[1] - pad_w};
      },
      [&](porter::tile_view<B> t, int i) {
        const auto o = origin(i);
        stencil_consume<R>(t.data(), out, o[0], o[1], h, w);
      });
}

/// sgemm: C[m][n] = sum_k At[k][m] * B[k][n] (A stored transposed, so both operands are read along
/// their contiguous dimension and land in shared memory as [k][m] and [k][n]).
/// Block tile 128 x 128, K-tile 8; each pipeline step brings the At and B boxes of one K-tile (two
/// buffers per stage). Steps run continuously across this CTA's output tiles, so the copies of the
/// next tile overlap the epilogue of the current one.
/// Written with the token API (two sources per stage) and ONE issue site: run_pipeline inlines its
/// issue callback twice (prologue and steady state), which costs registers that the 64 accumulators
/// need (see bench/README.md, "What limits porter here").
template <class Path, int Stages>
__global__ void __launch_bounds__(sgemm_shape::threads, 2)
    pb_sgemm(const __grid_constant__ porter::tiled_source<sgemm_shape::a_box> at,
             const __grid_constant__ porter::tiled_source<sgemm_shape::b_box> bsrc, float* __restrict__ c, int m, int n,
             int k) {
  using namespace sgemm_shape;
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, Stages, a_box, b_box> pipe(smem);
  const int tiles_n = (n + bn - 1) / bn, ktiles = (k + bk - 1) / bk;
  const long long tiles = static_cast<long long>((m + bm - 1) / bm) * tiles_n;
  const int steps = tiles_of_this_cta(tiles) * ktiles;
  const sgemm_thread th;
  float acc[8][8];
  int issued = 0;
  for (int i = 0; i < steps; ++i) {
    // Keep Stages steps in flight: the first pass fills the ring, later passes refill the stage
    // released at the end of the previous step.
    while (issued < steps && issued < i + Stages) {
      auto slot = pipe.producer_acquire();
      const int tl = issued / ktiles, kt = issued - tl * ktiles;
      const int t = int(blockIdx.x) + tl * int(gridDim.x);
      const int tm = t / tiles_n, tn = t - tm * tiles_n;
      porter::async_copy(porter::buffer<0>(slot), at, porter::coord<2>{kt * bk, tm * bm});
      porter::async_copy(porter::buffer<1>(slot), bsrc, porter::coord<2>{kt * bk, tn * bn});
      pipe.producer_commit(slot);
      ++issued;
    }
    auto ready = pipe.consumer_wait();
    const int tl = i / ktiles, kt = i - tl * ktiles;
    if (kt == 0) {
#pragma unroll
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int q = 0; q < 8; ++q) acc[r][q] = 0.f;
    }
    sgemm_mma(acc, ready.template tile<0>().data(), ready.template tile<1>().data(), th);
    if (kt == ktiles - 1) {
      const int t = int(blockIdx.x) + tl * int(gridDim.x);
      const int tm = t / tiles_n, tn = t - tm * tiles_n;
      sgemm_store(acc, c, tm * bm, tn * bn, m, n, th);
    }
    pipe.consumer_release(ready);
  }
}

/// smallgemm: C[m][n] = sum_k A[m][k] * B[k][n], all row-major, with the CUDA sample
/// globalToShmemAsyncCopy's tiling: a 16 x 16 output tile per CTA of 256 threads, one C element per
/// thread, K-step 16. Each pipeline step brings two 1 KiB boxes (buffer 0: A[m0:+16][k0:+16],
/// buffer 1: B[k0:+16][n0:+16]); elements outside A or B read as zero. Steps run continuously across
/// this CTA's output tiles (persistent grid), so the next tile's copies overlap this tile's store.
/// The same single-issue-site token loop as pb_sgemm.
template <class Path, int Stages>
__global__ void __launch_bounds__(smallgemm_shape::threads)
    pb_smallgemm(const __grid_constant__ porter::tiled_source<smallgemm_shape::a_box> a,
                 const __grid_constant__ porter::tiled_source<smallgemm_shape::b_box> bsrc, float* __restrict__ c, int m,
                 int n, int k) {
  using namespace smallgemm_shape;
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, Stages, a_box, b_box> pipe(smem);
  const int tiles_n = (n + tile - 1) / tile, ktiles = (k + bk - 1) / bk;
  const long long tiles = static_cast<long long>((m + tile - 1) / tile) * tiles_n;
  const int steps = tiles_of_this_cta(tiles) * ktiles;
  float acc = 0.f;
  int issued = 0;
  for (int i = 0; i < steps; ++i) {
    while (issued < steps && issued < i + Stages) {
      auto slot = pipe.producer_acquire();
      const int tl = issued / ktiles, kt = issued - tl * ktiles;
      const int t = int(blockIdx.x) + tl * int(gridDim.x);
      const int tm = t / tiles_n, tn = t - tm * tiles_n;
      porter::async_copy(porter::buffer<0>(slot), a, porter::coord<2>{tm * tile, kt * bk});
      porter::async_copy(porter::buffer<1>(slot), bsrc, porter::coord<2>{kt * bk, tn * tile});
      pipe.producer_commit(slot);
      ++issued;
    }
    auto ready = pipe.consumer_wait();
    const int tl = i / ktiles, kt = i - tl * ktiles;
    if (kt == 0) acc = 0.f;
    acc = smallgemm_mma(acc, ready.template tile<0>().data(), ready.template tile<1>().data());
    if (kt == ktiles - 1) {
      const int t = int(blockIdx.x) + tl * int(gridDim.x);
      const int tm = t / tiles_n, tn = t - tm * tiles_n;
      smallgemm_store(acc, c, tm * tile, tn * tile, m, n);
    }
    pipe.consumer_release(ready);
  }
}

}  // namespace pb
