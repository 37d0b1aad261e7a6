// bench/baselines/manual_cp_async.cu — the "before" of porting: hand-written cp.async pipelines.
//
// The same tilings as the porter kernels (bench/kernels/), with the multi-stage loop users write by
// hand with <cuda_pipeline_primitives.h> (__pipeline_memcpy_async / __pipeline_commit /
// __pipeline_wait_prior): prologue of S-1 stages, then per step wait_prior(S-2), one __syncthreads,
// refill the stage consumed in the previous step, compute (the CUTLASS "multistage" shape). S = 1 is
// the unpipelined form (issue, wait, barrier, compute, barrier). Out-of-bounds 16-byte chunks are
// zero-filled with the zfill operand. Preconditions checked on the host: stream n, stencil w, sgemm
// m and n, smallgemm k and n % 4 == 0 (16-byte chunks never straddle an edge).
// The compute on the landed tile is the porter kernels' (bench/kernels/compute.cuh), so a comparison
// measures only the data movement and its synchronisation.
#include <cuda_pipeline_primitives.h>
#include <porter/cp_async/path.hpp>

#include <stdexcept>
#include <string>

#include "../kernels/compute.cuh"
#include "../kernels/shapes.hpp"
#include "../src/variants.hpp"
#include "manual_common.hpp"

namespace pb {
namespace {

/// The multi-stage loop shared by the three kernels: issue(j) copies step j into ring slot j % S;
/// consume(j) uses it. All threads of the CTA run it with the same `steps`.
template <int S, class Issue, class Consume>
__device__ __forceinline__ void manual_pipeline(int steps, Issue&& issue, Consume&& consume) {
  if constexpr (S == 1) {
    for (int i = 0; i < steps; ++i) {
      issue(i);
      __pipeline_commit();
      __pipeline_wait_prior(0);
      __syncthreads();
      consume(i);
      __syncthreads();
    }
  } else {
    for (int j = 0; j < S - 1; ++j) {
      if (j < steps) issue(j);
      __pipeline_commit();
    }
    for (int i = 0; i < steps; ++i) {
      __pipeline_wait_prior(S - 2);  // this thread's copies of step i have landed
      __syncthreads();               // everyone's have; and everyone is done with step i-1's slot
      if (i + S - 1 < steps) issue(i + S - 1);
      __pipeline_commit();
      consume(i);
    }
  }
}

template <int S>
__global__ void __launch_bounds__(stream_shape::threads)
    pb_manual_stream(const float* __restrict__ x, float* __restrict__ y, long long n, float a, float b) {
  using namespace stream_shape;
  extern __shared__ float4 ring_stream[];
  float* ring = reinterpret_cast<float*>(ring_stream);
  const long long tiles = (n + tile - 1) / tile;
  auto first = [&](int i) { return (static_cast<long long>(blockIdx.x) + static_cast<long long>(i) * gridDim.x) * tile; };
  manual_pipeline<S>(
      tiles_of_this_cta(tiles),
      [&](int j) {
        float* dst = ring + (j % S) * tile;
        const long long base = first(j);
#pragma unroll
        for (int k = 0; k < vec_per_thread; ++k) {
          const int v = int(threadIdx.x) + k * threads;
          const long long e = base + 4LL * v;
          const bool in = e < n;
          __pipeline_memcpy_async(dst + 4 * v, x + (in ? e : 0), 16, in ? 0 : 16);
        }
      },
      [&](int i) { stream_consume<tile, threads>(ring + (i % S) * tile, y, first(i), n, a, b); });
}

template <int S, int R>
__global__ void __launch_bounds__(stencil_shape::threads)
    pb_manual_stencil(const float* __restrict__ in, float* __restrict__ out, int h, int w) {
  using namespace stencil_shape;
  constexpr int bh = tile_h + 2 * R, bw = tile_w + 2 * pad_w, chunks_per_row = bw / 4, chunks = bh * chunks_per_row;
  extern __shared__ float4 ring_stencil[];
  float* ring = reinterpret_cast<float*>(ring_stencil);
  const int tiles_x = (w + tile_w - 1) / tile_w;
  const long long tiles = static_cast<long long>(tiles_x) * ((h + tile_h - 1) / tile_h);
  auto origin_r = [&](int i) { return ((int(blockIdx.x) + i * int(gridDim.x)) / tiles_x) * tile_h; };
  auto origin_c = [&](int i) { return ((int(blockIdx.x) + i * int(gridDim.x)) % tiles_x) * tile_w; };
  manual_pipeline<S>(
      tiles_of_this_cta(tiles),
      [&](int j) {
        float* dst = ring + (j % S) * (bh * bw);
        const int r0 = origin_r(j) - R, c0 = origin_c(j) - pad_w;
        for (int ch = int(threadIdx.x); ch < chunks; ch += threads) {
          const int row = ch / chunks_per_row, cc = ch - row * chunks_per_row;
          const int gr = r0 + row, gc = c0 + 4 * cc;
          const bool ok = gr >= 0 && gr < h && gc >= 0 && gc + 4 <= w;
          __pipeline_memcpy_async(dst + row * bw + 4 * cc, ok ? in + static_cast<long long>(gr) * w + gc : in, 16,
                                  ok ? 0 : 16);
        }
      },
      [&](int i) { stencil_consume<R>(ring + (i % S) * (bh * bw), out, origin_r(i), origin_c(i), h, w); });
}

/// sgemm: C = At^T B with sgemm_shape's tiling (128 x 128 x 16; a stage is the At K-tile, 16 x 128
/// floats, then the B K-tile, 8 KiB each). Each thread copies rows q and q + 8 of each operand's
/// K-tile, 4 columns (one 16-byte __pipeline_memcpy_async each, zero-filled outside At and B).
/// The loop is porter's pb_sgemm's, by hand: S groups issued before the first wait; iteration i
/// computes step i, waits for step i + 1 (wait_prior(S - 2): S + i groups committed) and
/// __syncthreads (everyone's copies of step i + 1 have landed and everyone is done with step i's
/// slot), then refills that slot with step i + S. S = 1: manual_pipeline's one-stage loop.
template <int S>
__global__ void __launch_bounds__(sgemm_shape::threads, 2)
    pb_manual_sgemm(const float* __restrict__ at, const float* __restrict__ bmat, float* __restrict__ c, int m, int n, int k) {
  using namespace sgemm_shape;
  constexpr int stage_floats = bk * bm + bk * bn;
  constexpr int rows_per_pass = threads / 32;  // 8: a warp per K-row, 32 x 4 floats = 128 columns
  extern __shared__ float4 ring_sgemm[];
  float* ring = reinterpret_cast<float*>(ring_sgemm);
  const int tiles_n = (n + bn - 1) / bn, ktiles = (k + bk - 1) / bk;
  const long long tiles = static_cast<long long>((m + bm - 1) / bm) * tiles_n;
  const int steps = tiles_of_this_cta(tiles) * ktiles;
  const sgemm_thread th;
  const int q = int(threadIdx.x) >> 5, col = (int(threadIdx.x) & 31) * 4;
  float acc[8][8];
  sgemm_zero(acc);
  // Cursors, as porter's pb_sgemm keeps them (steps are issued and consumed in order): the K-tile
  // and output tile of the next step to issue and to consume, with no division per step.
  int p_kt = 0, p_t = int(blockIdx.x), p_tm = 0, p_tn = 0, c_kt = 0, c_t = int(blockIdx.x);
  if (tiles_n > 0) p_tm = p_t / tiles_n, p_tn = p_t - p_tm * tiles_n;
  auto issue = [&](int j) {
    float* dst = ring + (j % S) * stage_floats;
#pragma unroll
    for (int r = q; r < bk; r += rows_per_pass) {
      const int gk = p_kt * bk + r, gm = p_tm * bm + col, gn = p_tn * bn + col;
      const bool oka = gk < k && gm + 4 <= m, okb = gk < k && gn + 4 <= n;
      __pipeline_memcpy_async(dst + r * bm + col, oka ? at + static_cast<long long>(gk) * m + gm : at, 16, oka ? 0 : 16);
      __pipeline_memcpy_async(dst + bk * bm + r * bn + col, okb ? bmat + static_cast<long long>(gk) * n + gn : bmat, 16,
                              okb ? 0 : 16);
    }
    if (++p_kt == ktiles) {
      p_kt = 0;
      p_t += int(gridDim.x);
      p_tm = p_t / tiles_n;
      p_tn = p_t - p_tm * tiles_n;
    }
  };
  auto consume = [&](int i) {
    const float* s = ring + (i % S) * stage_floats;
    sgemm_mma(acc, s, s + bk * bm, th);
    if (c_kt == ktiles - 1) {
      const int tm = c_t / tiles_n, tn = c_t - tm * tiles_n;
      sgemm_store(acc, c, tm * bm, tn * bn, m, n, th);
      sgemm_zero(acc);  // the next tile's accumulators (compute.cuh: sgemm_zero)
    }
    if (++c_kt == ktiles) {
      c_kt = 0;
      c_t += int(gridDim.x);
    }
  };
  if constexpr (S == 1) {
    manual_pipeline<1>(steps, issue, consume);
  } else {
    for (int j = 0; j < S; ++j) {
      if (j < steps) issue(j);
      __pipeline_commit();
    }
    __pipeline_wait_prior(S - 1);  // step 0 (this thread's copies)
    __syncthreads();               // everyone's
    for (int i = 0; i < steps; ++i) {
      consume(i);
      if (i + 1 < steps) {
        __pipeline_wait_prior(S - 2);  // step i + 1 has landed (this thread's copies)
        __syncthreads();               // everyone's; and everyone is done with step i's slot
        if (i + S < steps) issue(i + S);
        __pipeline_commit();
      }
    }
  }
}

/// smallgemm (the CUDA sample globalToShmemAsyncCopy's tiling, see smallgemm_shape): per step,
/// as in the sample's LargeChunk kernels, the 64 threads with t % 16 < 4 each copy one 16-byte chunk
/// of the A box (row t / 16, columns 4 (t % 16) ..) and one of the B box (same position), so 8
/// threads of every warp issue; out-of-bounds chunks are zero-filled. Stage: A box then B box, 1 KiB
/// each. Steps run across this CTA's output tiles like the porter kernel's.
template <int S>
__global__ void __launch_bounds__(smallgemm_shape::threads)
    pb_manual_smallgemm(const float* __restrict__ a, const float* __restrict__ bmat, float* __restrict__ c, int m, int n,
                        int k) {
  using namespace smallgemm_shape;
  constexpr int box_floats = tile * bk, stage_floats = 2 * box_floats;
  extern __shared__ float4 ring_smallgemm[];
  float* ring = reinterpret_cast<float*>(ring_smallgemm);
  const int tiles_n = (n + tile - 1) / tile, ktiles = (k + bk - 1) / bk;
  const long long tiles = static_cast<long long>((m + tile - 1) / tile) * tiles_n;
  const int row = int(threadIdx.x) / tile, col4 = (int(threadIdx.x) % tile) * 4;
  const bool copies = col4 < tile;
  float acc = 0.f;
  // Step cursors as in porter's pb_smallgemm (steps are issued and consumed in order).
  int p_kt = 0, p_t = int(blockIdx.x), p_tm = 0, p_tn = 0, c_kt = 0, c_t = int(blockIdx.x);
  if (tiles_n > 0) p_tm = p_t / tiles_n, p_tn = p_t - p_tm * tiles_n;
  manual_pipeline<S>(
      tiles_of_this_cta(tiles) * ktiles,
      [&](int j) {
        if (!copies) return;  // the producer cursor is read by the copying threads only
        float* dst = ring + (j % S) * stage_floats + row * tile + col4;
        const int am = p_tm * tile + row, ak = p_kt * bk + col4;  // A element (am, ak ..)
        const int bkr = p_kt * bk + row, bn = p_tn * tile + col4;  // B element (bkr, bn ..)
        const bool oka = am < m && ak + 4 <= k, okb = bkr < k && bn + 4 <= n;
        __pipeline_memcpy_async(dst, oka ? a + static_cast<long long>(am) * k + ak : a, 16, oka ? 0 : 16);
        __pipeline_memcpy_async(dst + box_floats, okb ? bmat + static_cast<long long>(bkr) * n + bn : bmat, 16, okb ? 0 : 16);
        if (++p_kt == ktiles) {
          p_kt = 0;
          p_t += int(gridDim.x);
          p_tm = p_t / tiles_n;
          p_tn = p_t - p_tm * tiles_n;
        }
      },
      [&](int i) {
        if (c_kt == 0) acc = 0.f;
        const float* s = ring + (i % S) * stage_floats;
        acc = smallgemm_mma(acc, s, s + box_floats);
        if (c_kt == ktiles - 1) {
          const int tm = c_t / tiles_n, tn = c_t - tm * tiles_n;
          smallgemm_store(acc, c, tm * tile, tn * tile, m, n);
        }
        if (++c_kt == ktiles) {
          c_kt = 0;
          c_t += int(gridDim.x);
        }
      });
}

/// Registry description of a hand-written cp.async pipeline: `stages` stages of `stage_bytes`
/// (dynamic shared memory, nothing else), path cp_async (the same instruction family, by hand).
kernel_desc cp_async_desc(int stages, int threads, std::size_t stage_bytes, const void* f, const char* name) {
  return manual_desc("manual", porter::path_name<porter::path::cp_async>, porter::path::cp_async::min_compute_capability,
                     stages, threads, stage_bytes, std::size_t(stages) * stage_bytes, 0, f, name);
}

template <int S>
void add_manual(registry& r) {
  {
    auto* k = &pb_manual_stream<S>;
    const std::size_t sb = stream_shape::tile * sizeof(float);
    r.stream.push_back({cp_async_desc(S, stream_shape::threads, sb, reinterpret_cast<const void*>(k), "pb_manual_stream"),
                        [k, sb](const stream_problem& p, int grid) -> launcher {
                          if (p.n % 4) throw std::invalid_argument("manual stream needs n % 4 == 0");
                          allow_smem(reinterpret_cast<const void*>(k), S * sb);
                          return [=](cudaStream_t s) {
                            k<<<grid, stream_shape::threads, S * sb, s>>>(p.x, p.y, p.n, p.a, p.b);
                            check_launch("pb_manual_stream");
                          };
                        }});
  }
  auto stencil = [&](auto radius) {
    constexpr int R = decltype(radius)::value;
    auto* k = &pb_manual_stencil<S, R>;
    const std::size_t sb = std::size_t(stencil_shape::tile_h + 2 * R) * (stencil_shape::tile_w + 2 * stencil_shape::pad_w) * sizeof(float);
    r.stencil[R].push_back({cp_async_desc(S, stencil_shape::threads, sb, reinterpret_cast<const void*>(k), "pb_manual_stencil"),
                            [k, sb](const stencil_problem& p, int grid) -> launcher {
                              if (p.w % 4) throw std::invalid_argument("manual stencil needs w % 4 == 0");
                              allow_smem(reinterpret_cast<const void*>(k), S * sb);
                              return [=](cudaStream_t s) {
                                k<<<grid, stencil_shape::threads, S * sb, s>>>(p.in, p.out, p.h, p.w);
                                check_launch("pb_manual_stencil");
                              };
                            }});
  };
  stencil(std::integral_constant<int, 1>{});
  stencil(std::integral_constant<int, 2>{});
  {
    auto* k = &pb_manual_sgemm<S>;
    const std::size_t sb = std::size_t(sgemm_shape::bk) * (sgemm_shape::bm + sgemm_shape::bn) * sizeof(float);
    r.sgemm.push_back({cp_async_desc(S, sgemm_shape::threads, sb, reinterpret_cast<const void*>(k), "pb_manual_sgemm"),
                       [k, sb](const sgemm_problem& p, int grid) -> launcher {
                         if (p.m % 4 || p.n % 4) throw std::invalid_argument("manual sgemm needs m % 4 == 0 and n % 4 == 0");
                         allow_smem(reinterpret_cast<const void*>(k), S * sb);
                         return [=](cudaStream_t s) {
                           k<<<grid, sgemm_shape::threads, S * sb, s>>>(p.at, p.b, p.c, p.m, p.n, p.k);
                           check_launch("pb_manual_sgemm");
                         };
                       }});
  }
  {
    auto* k = &pb_manual_smallgemm<S>;
    const std::size_t sb = std::size_t(2) * smallgemm_shape::tile * smallgemm_shape::bk * sizeof(float);
    r.smallgemm.push_back({cp_async_desc(S, smallgemm_shape::threads, sb, reinterpret_cast<const void*>(k), "pb_manual_smallgemm"),
                           [k, sb](const smallgemm_problem& p, int grid) -> launcher {
                             if (p.k % 4 || p.n % 4) throw std::invalid_argument("manual smallgemm needs k % 4 == 0 and n % 4 == 0");
                             allow_smem(reinterpret_cast<const void*>(k), S * sb);
                             return [=](cudaStream_t s) {
                               k<<<grid, smallgemm_shape::threads, S * sb, s>>>(p.a, p.b, p.c, p.m, p.n, p.k);
                               check_launch("pb_manual_smallgemm");
                             };
                           }});
  }
}

}  // namespace

void register_manual_kernels(registry& r) {
  add_manual<1>(r);
  add_manual<2>(r);
  add_manual<3>(r);
  add_manual<4>(r);
  add_manual<5>(r);
  add_manual<6>(r);
  add_manual<7>(r);
  add_manual<8>(r);
}

}  // namespace pb
