// bench/kernels/porter_kernels.cuh — the workloads written ONCE with porter.
//
// Each kernel is a template over the data path (porter::path::tma, cp_async, staged) and the stage
// count; porter-bench instantiates it per path and, for the stage sweep, per stage count.
// Grid schedules come from the host as a porter::tile_schedule: one tile per CTA (the grid as large
// as the problem, as cub::DeviceTransform runs) or persistent (SMs x occupancy CTAs, CTA b taking
// tiles b, b + gridDim.x, ...); the same kernel runs both.
// What is NOT here: __CUDA_ARCH__, inline PTX, vendor #if (docs/design.md, invariant 8).
#pragma once
#include <porter/porter.hpp>

#include "compute.cuh"
#include "shapes.hpp"

namespace pb {

/// stream: y = a * x + b over n floats. x is read in 1D boxes of 3072 floats (12 KiB per stage);
/// tile t is elements [t * 3072, t * 3072 + 3072). H: the L2 hint of x's copies (none, or
/// evict_first: x is read once; the "porter-evict-first" rows).
template <class Path, int Stages, porter::cache_hint H = porter::cache_hint::none>
__global__ void __launch_bounds__(stream_shape::threads)
    pb_stream(const __grid_constant__ porter::tiled_source<stream_shape::box> x, float* __restrict__ y, long long n,
              float a, float b, porter::tile_schedule sched) {
  using namespace stream_shape;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, Stages, box> pipe(smem);
  porter::for_each_tile(
      pipe, x, sched, [&](long long t) { return porter::coord<1>{int(t * tile)}; },
      [&](porter::tile_view<box> v, long long t) { stream_consume<tile, threads>(v.data(), y, t * tile, n, a, b); }, porter::l2_hint_t<H>{});
}

/// copy2d: y = x through shared memory. Each landed 16 x 256 tile is stored back from its stage with
/// async_store (tma: cp.async.bulk.tensor to global); before the stage is released the body waits
/// until the store has read it (wait_read_before_release: on tma thread 0 alone, no CTA barrier).
template <class Path, int Stages>
__global__ void __launch_bounds__(copy2d_shape::threads_of<Path>)
    pb_copy2d(const __grid_constant__ porter::tiled_source<copy2d_shape::box> x,
              const __grid_constant__ porter::tiled_destination<copy2d_shape::box> y, int w, porter::tile_schedule sched) {
  using namespace copy2d_shape;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, Stages, box> pipe(smem);
  porter::store_queue<Path> q;
  const int tiles_x = (w + tile_w - 1) / tile_w;
  auto at = [&](long long t) { return porter::coord<2>{int(t / tiles_x) * tile_h, int(t % tiles_x) * tile_w}; };
  porter::for_each_tile(pipe, x, sched, at, [&](porter::tile_view<box> v, long long t) {
    porter::async_store(q, y, v, at(t));
    q.commit();
    q.wait_read_before_release();  // the stage is released after this body and refilled after the pipeline's barrier
  });
  // No q.wait_write(): every store has read its stage (above), and a CTA need not wait for its
  // global writes before it exits (porter/store.hpp). (With it: the same speed, H200 session 26.)
}

/// transpose: y = x^T in 32 x 32 tiles, each landed in swizzle mode Sw and read by columns
/// (transpose_consume). Sw = none is the same kernel on dense tiles (the bank-conflict baseline).
template <class Path, int Stages, porter::swizzle Sw>
__global__ void __launch_bounds__(transpose_shape::threads)
    pb_transpose(const __grid_constant__ porter::tiled_source<transpose_shape::box<Sw>> x, float* __restrict__ y, int h, int w,
                 porter::tile_schedule sched) {
  using namespace transpose_shape;
  using B = box<Sw>;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, Stages, B> pipe(smem);
  const int tiles_x = (w + tile - 1) / tile;
  porter::for_each_tile(
      pipe, x, sched, [&](long long t) { return porter::coord<2>{int(t / tiles_x) * tile, int(t % tiles_x) * tile}; },
      [&](porter::tile_view<B> v, long long t) { transpose_consume(v, y, int(t / tiles_x) * tile, int(t % tiles_x) * tile, h, w); });
}

/// stencil2d: one Jacobi step of the radius-R star stencil on an h x w grid (zero outside).
/// Tiles of 32 x 128 outputs, each read with its halo as one box<R> ((32 + 2R) x 136 floats).
/// Tile t of the grid (row-major over tiles_x tiles per row) is the 32 x 128 block at this origin.
template <int R>
__device__ __forceinline__ porter::coord<2> stencil_origin(long long t, int tiles_x) {
  using namespace stencil_shape;
  return porter::coord<2>{int(t / tiles_x) * tile_h, int(t % tiles_x) * tile_w};
}

template <class Path, int Stages, int R>
__global__ void __launch_bounds__(stencil_shape::threads)
    pb_stencil(const __grid_constant__ porter::tiled_source<stencil_shape::box<R>> in, float* __restrict__ out, int h,
               int w, porter::tile_schedule sched) {
  using namespace stencil_shape;
  using B = box<R>;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, Stages, B> pipe(smem);
  const int tiles_x = (w + tile_w - 1) / tile_w;
  porter::for_each_tile(
      pipe, in, sched,
      [&](long long t) {
        const auto o = stencil_origin<R>(t, tiles_x);
        return porter::coord<2>{o[0] - R, o[1] - pad_w};
      },
      [&](porter::tile_view<B> v, long long t) {
        const auto o = stencil_origin<R>(t, tiles_x);
        stencil_consume<R>(v.data(), out, o[0], o[1], h, w);
      });
}

/// boxsize: y = a * x + b through boxes of type Box (boxsize_shape): a 1D Box over x[0, n), tile t
/// the elements [t * Box::elements, +Box::elements); a 2D Box (rows2d x W) over a row-major grid of
/// `w` columns (w a multiple of W, the rows a multiple of rows2d), tile t the box at
/// (t / (w / W) * rows2d, t % (w / W) * W). The problem is a whole number of boxes (no edges), so
/// the kernel times the copy mechanism alone; each thread writes float4s of the landed box.
template <class Path, int Stages, class Box>
__global__ void __launch_bounds__(boxsize_shape::threads)
    pb_boxsize(const __grid_constant__ porter::tiled_source<Box> x, float* __restrict__ y, int w, float a, float b,
               porter::tile_schedule sched) {
  constexpr int inner = Box::inner, vec = Box::elements / 4, vec_per_row = inner / 4;
  static_assert(inner % 4 == 0, "boxsize: rows of whole float4s");
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, Stages, Box> pipe(smem);
  const int tiles_x = Box::rank == 1 ? 1 : w / inner;
  auto at = [&](long long t) {
    if constexpr (Box::rank == 1) return porter::coord<1>{int(t * Box::elements)};
    else return porter::coord<2>{int(t) / tiles_x * Box::dim(0), int(t) % tiles_x * inner};  // 32-bit: < 2^31 tiles
  };
  porter::for_each_tile(pipe, x, sched, at, [&](porter::tile_view<Box> v, long long t) {
    const float4* s4 = reinterpret_cast<const float4*>(v.data());
    const auto o = at(t);
    for (int i = int(threadIdx.x); i < vec; i += int(blockDim.x)) {
      float4 q = s4[i];
      q.x = fmaf(a, q.x, b);
      q.y = fmaf(a, q.y, b);
      q.z = fmaf(a, q.z, b);
      q.w = fmaf(a, q.w, b);
      long long e;
      if constexpr (Box::rank == 1) e = (long long)o[0] + 4LL * i;
      else e = (long long)(o[0] + i / vec_per_row) * w + o[1] + 4 * (i % vec_per_row);
      *reinterpret_cast<float4*>(y + e) = q;
    }
  });
}

/// sgemm: C[m][n] = sum_k At[k][m] * B[k][n] (A stored transposed, so both operands are read along
/// their contiguous dimension and land in shared memory as [k][m] and [k][n]).
/// Block tile 128 x 128, K-tile 16 (sgemm_shape); each pipeline step brings the At and B boxes of one K-tile (two
/// buffers per stage). Steps run continuously across this CTA's output tiles, so the copies of the
/// next tile overlap the epilogue of the current one.
/// Written with the token API (two sources per stage) and ONE issue site: run_pipeline inlines its
/// issue callback twice (prologue and steady state), which costs registers that the 64 accumulators
/// need (see bench/README.md, "What limits porter here"). The pipeline knows the CTA size
/// (porter::cta_threads<256>, as the hand-written kernels assume it): each thread's one chunk of a
/// box is issued without a test (cp_async, H200 8192^3: 29.38 -> 28.11 ms).
/// Swizzled = true (impl "porter-swizzled"): the K-tiles land as sgemm_shape::a_box_swizzled /
/// b_box_swizzled (3D boxes of a (K, M / 32, 32) view, 128 B swizzle; M and N multiples of 32) and
/// are read through the swizzle (sgemm_mma_swizzled): the same FMAs, the same C.
template <class Path, int Stages, bool Swizzled = false>
__global__ void __launch_bounds__(sgemm_shape::threads, 2)
    pb_sgemm(const __grid_constant__ porter::tiled_source<sgemm_shape::a_box_of<Swizzled>> at,
             const __grid_constant__ porter::tiled_source<sgemm_shape::b_box_of<Swizzled>> bsrc, float* __restrict__ c, int m,
             int n, int k, porter::tile_schedule sched) {
  using namespace sgemm_shape;
  using A = a_box_of<Swizzled>;
  using B = b_box_of<Swizzled>;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, Stages, A, B> pipe(smem, porter::cta_threads<threads>);
  const int tiles_n = (n + bn - 1) / bn, ktiles = (k + bk - 1) / bk;
  const int tiles = int(sched.count()), steps = tiles * ktiles;
  if (steps <= 0) return;  // uniform over the CTA (n == 0 gives tiles_n == 0 and no steps)
  const sgemm_thread th;
  const sgemm_swizzled_offsets offs(th);  // unused (and dropped) unless Swizzled
  float acc[8][8];
  // One step = the At and B boxes of one K-tile. All Stages stages are filled before the first
  // wait; then iteration i computes step i, releases its stage, waits for step i + 1 and refills the
  // stage just released with step i + Stages (Stages = 1: the refill comes before the wait). On
  // tma the refill's acquire is the reuse guard's one CTA barrier; on cp_async and staged the
  // wait's barrier covers it. The sgemm lab (H100, 8192^3, K-tile 8, the row-major lanes) ran its
  // kernel in this order at 44.1 TFLOP/s on tma and 41.2 on cp_async, and this kernel in the former
  // order (wait, refill the stage released one step earlier, compute, release; Stages - 1 steps
  // ahead) at 42.6 and 39.1. The hand-written baselines (manual_cp_async.cu, manual_tma.cu) keep
  // the same order as this kernel.
  int issued = 0;
  // The producer's cursor (K-tile p_kt of output tile (p_tm, p_tn), the schedule's tile p_tl) and
  // the consumer's (K-tile c_kt of the schedule's tile c_tl) advance by one step each: no integer
  // division per step, the tile's indices recomputed only when a cursor moves to the next tile (as
  // pb_sgemm_nested; its producer cursor took the nested kernel from 29.57 to 28.94 ms at 8192^3).
  int p_tl = 0, p_kt = 0, p_tm = 0, p_tn = 0;
  auto locate = [&] {
    const int t = int(sched.tile(p_tl));
    p_tm = t / tiles_n;
    p_tn = t - p_tm * tiles_n;
  };
  locate();
  auto issue = [&] {
    auto slot = pipe.producer_acquire();
    if constexpr (Swizzled) {
      porter::async_copy(porter::buffer<0>(slot), at, porter::coord<3>{p_kt * bk, p_tm * (bm / group), 0});
      porter::async_copy(porter::buffer<1>(slot), bsrc, porter::coord<3>{p_kt * bk, p_tn * (bn / group), 0});
    } else {
      porter::async_copy(porter::buffer<0>(slot), at, porter::coord<2>{p_kt * bk, p_tm * bm});
      porter::async_copy(porter::buffer<1>(slot), bsrc, porter::coord<2>{p_kt * bk, p_tn * bn});
    }
    pipe.producer_commit(slot);
    ++issued;
    if (++p_kt == ktiles) {
      p_kt = 0;
      if (++p_tl < tiles) locate();
    }
  };
  while (issued < steps && issued < Stages) issue();  // the prologue: every stage is free
  auto ready = pipe.consumer_wait();
  int c_tl = 0, c_kt = 0;
  sgemm_zero(acc);
  for (int i = 0; i < steps; ++i) {
    if constexpr (Swizzled) sgemm_mma_swizzled(acc, ready.template tile<0>().data(), ready.template tile<1>().data(), offs);
    else sgemm_mma(acc, ready.template tile<0>().data(), ready.template tile<1>().data(), th);
    if (c_kt == ktiles - 1) {
      const int t = int(sched.tile(c_tl));
      const int tm = t / tiles_n, tn = t - tm * tiles_n;
      sgemm_store(acc, c, tm * bm, tn * bn, m, n, th);
      sgemm_zero(acc);  // the next tile's accumulators, here and not at its first step (see sgemm_zero)
    }
    if (++c_kt == ktiles) {
      c_kt = 0;
      ++c_tl;
    }
    pipe.consumer_release(ready);
    if (i + 1 < steps) {
      if (Stages == 1) issue();  // into the one stage, just released
      ready = pipe.consumer_wait();
      if (Stages > 1 && issued < steps) issue();
    }
  }
}

/// sgemm as pb_sgemm, with the consumer's loop NESTED per output tile (impl "porter-nested"): the
/// K-loop holds only wait, refill, multiply and release, and the accumulator reset and the store
/// sit outside it, as in CUTLASS's mainloops; the producer side is the same continuous stream of
/// steps (S-1 ahead, the refill right after the wait), so copies still run across tiles. The same
/// FMAs in the same order as pb_sgemm: the same bits. This row measures what the loop shape costs
/// (the CuTe "before" of the ports workload, nested, ran 1.38x pb_sgemm on the H200).
template <class Path, int Stages>
__global__ void __launch_bounds__(sgemm_shape::threads, 2)
    pb_sgemm_nested(const __grid_constant__ porter::tiled_source<sgemm_shape::a_box> at,
                    const __grid_constant__ porter::tiled_source<sgemm_shape::b_box> bsrc, float* __restrict__ c, int m, int n,
                    int k, porter::tile_schedule sched) {
  using namespace sgemm_shape;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, Stages, a_box, b_box> pipe(smem, porter::cta_threads<threads>);
  const int tiles_n = (n + bn - 1) / bn, ktiles = (k + bk - 1) / bk;
  const int tiles = int(sched.count()), steps = tiles * ktiles;
  const sgemm_thread th;
  float acc[8][8];
  int issued = 0;
  // The producer's cursor: K-tile p_kt of output tile (p_tm, p_tn), the schedule's tile p_tl. The
  // tile's indices are recomputed only when the cursor moves to the next tile, so a step issues
  // its two copies with no integer division. (Indices, not element offsets: p_tm * bm keeps the
  // box's innermost coordinate a visible multiple of 16 bytes, so the tma path's unaligned-box
  // fallback is not compiled into the loop.)
  int p_tl = 0, p_kt = 0, p_tm = 0, p_tn = 0;
  auto locate = [&] {
    const int t = int(sched.tile(p_tl));
    p_tm = t / tiles_n;
    p_tn = t - p_tm * tiles_n;
  };
  if (tiles > 0) locate();  // n == 0 gives tiles_n == 0 and no tiles
  auto issue = [&] {
    auto slot = pipe.producer_acquire();
    porter::async_copy(porter::buffer<0>(slot), at, porter::coord<2>{p_kt * bk, p_tm * bm});
    porter::async_copy(porter::buffer<1>(slot), bsrc, porter::coord<2>{p_kt * bk, p_tn * bn});
    pipe.producer_commit(slot);
    ++issued;
    if (++p_kt == ktiles) {
      p_kt = 0;
      ++p_tl;
      locate();
    }
  };
  if constexpr (Stages > 1)
    while (issued < steps && issued < Stages - 1) issue();
  for (int tl = 0; tl < tiles; ++tl) {
    sgemm_zero(acc);
    for (int kt = 0; kt < ktiles; ++kt) {
      if constexpr (Stages == 1) issue();
      auto ready = pipe.consumer_wait();
      if constexpr (Stages > 1)
        if (issued < steps) issue();
      sgemm_mma(acc, ready.template tile<0>().data(), ready.template tile<1>().data(), th);
      pipe.consumer_release(ready);
    }
    const int t = int(sched.tile(tl));
    const int tm = t / tiles_n, tn = t - tm * tiles_n;
    sgemm_store(acc, c, tm * bm, tn * bn, m, n, th);
  }
}

/// smallgemm: C[m][n] = sum_k A[m][k] * B[k][n], all row-major, with the CUDA sample
/// globalToShmemAsyncCopy's tiling: a 16 x 16 output tile per CTA of 256 threads, one C element per
/// thread, K-step 16. Each pipeline step brings two 1 KiB boxes (buffer 0: A[m0:+16][k0:+16],
/// buffer 1: B[k0:+16][n0:+16]); elements outside A or B read as zero. Steps run continuously across
/// this CTA's output tiles (persistent grid), so the next tile's copies overlap this tile's store.
/// The same token loop as pb_sgemm (S-1 steps ahead, the refill right after the wait).
template <class Path, int Stages>
__global__ void __launch_bounds__(smallgemm_shape::threads)
    pb_smallgemm(const __grid_constant__ porter::tiled_source<smallgemm_shape::a_box> a,
                 const __grid_constant__ porter::tiled_source<smallgemm_shape::b_box> bsrc, float* __restrict__ c, int m,
                 int n, int k, porter::tile_schedule sched) {
  using namespace smallgemm_shape;
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, Stages, a_box, b_box> pipe(smem);
  const int tiles_n = (n + tile - 1) / tile, ktiles = (k + bk - 1) / bk;
  const int tiles = int(sched.count()), steps = tiles * ktiles;
  float acc = 0.f;
  constexpr int ahead = Stages > 1 ? Stages - 1 : 1;
  int issued = 0;
  // Step cursors as in pb_sgemm: no integer division per step (16 FMAs per thread per step here).
  int p_tl = 0, p_kt = 0, p_tm = 0, p_tn = 0;
  auto locate = [&] {
    const int t = int(sched.tile(p_tl));
    p_tm = t / tiles_n;
    p_tn = t - p_tm * tiles_n;
  };
  if (steps > 0) locate();
  auto issue = [&] {
    auto slot = pipe.producer_acquire();
    porter::async_copy(porter::buffer<0>(slot), a, porter::coord<2>{p_tm * tile, p_kt * bk});
    porter::async_copy(porter::buffer<1>(slot), bsrc, porter::coord<2>{p_kt * bk, p_tn * tile});
    pipe.producer_commit(slot);
    ++issued;
    if (++p_kt == ktiles) {
      p_kt = 0;
      if (++p_tl < tiles) locate();
    }
  };
  int c_tl = 0, c_kt = 0;
  for (int i = 0; i < steps; ++i) {
    while (issued < steps && issued < i + (i == 0 || Stages == 1 ? ahead : 0)) issue();
    auto ready = pipe.consumer_wait();
    if (Stages > 1 && issued < steps) issue();
    if (c_kt == 0) acc = 0.f;
    acc = smallgemm_mma(acc, ready.template tile<0>().data(), ready.template tile<1>().data());
    if (c_kt == ktiles - 1) {
      const int t = int(sched.tile(c_tl));
      const int tm = t / tiles_n, tn = t - tm * tiles_n;
      smallgemm_store(acc, c, tm * tile, tn * tile, m, n);
    }
    pipe.consumer_release(ready);
    if (++c_kt == ktiles) {
      c_kt = 0;
      ++c_tl;
    }
  }
}

}  // namespace pb
