// bench/kernels/compute.cuh — what each workload does with a tile once it is in shared memory.
//
// Shared by the porter kernels and the hand-written baselines, so that a comparison between them
// measures only how the bytes arrive (the data path and the pipeline), never the arithmetic.
// Plain CUDA C++: no __CUDA_ARCH__, no inline PTX, no vendor #if.
#pragma once
#include <cstdint>

#include "shapes.hpp"

namespace pb {

/// transpose consumer (transpose_shape): warp g reads columns 4g..4g+3 of every row of the landed
/// 32 x 32 tile as one float4 per lane (lane l: row l) through the tile's view (its swizzle), and
/// writes them as 4 rows of y (w x h): y[c][r0 + l], coalesced.
template <class View>
__device__ __forceinline__ void transpose_consume(const View& v, float* __restrict__ y, int r0, int c0, int h, int w) {
  const int g = int(threadIdx.x) / 32, l = int(threadIdx.x) % 32;
  const float4 q = *reinterpret_cast<const float4*>(&v(l, 4 * g));
  const int r = r0 + l;
  if (r >= h) return;
  const float e[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int c = c0 + 4 * g + k;
    if (c < w) y[std::size_t(c) * std::size_t(h) + std::size_t(r)] = e[k];
  }
}

// ---- stream -------------------------------------------------------------------------------------
/// y[base .. base+Tile) = a * x + b from the tile `s` (shared memory, 16-byte aligned), n total,
/// by a CTA of Threads threads. Every caller states its tile and CTA size: the stream workload's
/// (stream_shape) or a port's own (the ports keep 4096-float tiles).
/// Full tiles: every thread stores Tile / 4 / Threads float4 (16-byte stores, coalesced); the
/// partial last tile (base + Tile > n) is read and written only below n.
template <int Tile, int Threads>
__device__ __forceinline__ void stream_consume(const float* s, float* __restrict__ y, long long base, long long n,
                                               float a, float b) {
  static_assert(Tile % (4 * Threads) == 0, "stream_consume: a tile must be a whole number of float4 per thread");
  if (base + Tile <= n) {
    const float4* s4 = reinterpret_cast<const float4*>(s);
    float4* y4 = reinterpret_cast<float4*>(y + base);
#pragma unroll
    for (int k = 0; k < Tile / 4 / Threads; ++k) {
      const int v = int(threadIdx.x) + k * Threads;
      float4 q = s4[v];
      q.x = fmaf(a, q.x, b);
      q.y = fmaf(a, q.y, b);
      q.z = fmaf(a, q.z, b);
      q.w = fmaf(a, q.w, b);
      y4[v] = q;
    }
  } else {
    for (long long e = threadIdx.x; base + e < n; e += Threads) y[base + e] = fmaf(a, s[e], b);
  }
}

// ---- stencil2d ------------------------------------------------------------------------------------
/// One 32 x 128 output tile at (r0, c0) from its halo box `s` in shared memory (box<R> layout:
/// (32 + 2R) rows of 136 floats; box element (i, j) is grid element (r0 - R + i, c0 - 4 + j)).
/// Radius 1: out = 0.25 * ((up + down) + (left + right)).
/// Radius 2: out = fma(w2, (up2 + down2) + (left2 + right2), fma(w1, (up1 + down1) + (left1 + right1), w0 * c)).
/// Warp w computes rows 4w .. 4w+3; lane l columns 4l .. 4l+3; left/right neighbours come from the
/// adjacent lanes' registers (shuffles), so each shared-memory read is a conflict-free float4 row.
/// Requires w % 4 == 0 (16-byte aligned output rows).
template <int R>
__device__ __forceinline__ void stencil_consume(const float* s, float* __restrict__ out, int r0, int c0, int h, int w) {
  using namespace stencil_shape;
  constexpr int W = tile_w + 2 * pad_w;  // box row, floats
  constexpr int rows = rows_per_warp;
  const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
  const int col = pad_w + 4 * lane;      // this lane's first column in the box
  float4 v[rows + 2 * R];                // box rows 4w .. 4w + 3 + 2R at this lane's columns
#pragma unroll
  for (int j = 0; j < rows + 2 * R; ++j) v[j] = *reinterpret_cast<const float4*>(s + (warp * rows + j) * W + col);
#pragma unroll
  for (int q = 0; q < rows; ++q) {
    const int brow = warp * rows + q + R;  // box row of this output row
    const float4 c = v[q + R];
    float l1 = __shfl_up_sync(0xffffffffu, c.w, 1), r1 = __shfl_down_sync(0xffffffffu, c.x, 1);
    float l2 = __shfl_up_sync(0xffffffffu, c.z, 1), r2 = __shfl_down_sync(0xffffffffu, c.y, 1);
    if (lane == 0) { l1 = s[brow * W + pad_w - 1]; if (R >= 2) l2 = s[brow * W + pad_w - 2]; }
    if (lane == 31) { r1 = s[brow * W + pad_w + tile_w]; if (R >= 2) r2 = s[brow * W + pad_w + tile_w + 1]; }
    const float cc[4] = {c.x, c.y, c.z, c.w};
    const float u1[4] = {v[q + R - 1].x, v[q + R - 1].y, v[q + R - 1].z, v[q + R - 1].w};
    const float d1[4] = {v[q + R + 1].x, v[q + R + 1].y, v[q + R + 1].z, v[q + R + 1].w};
    const float left1[4] = {l1, c.x, c.y, c.z}, right1[4] = {c.y, c.z, c.w, r1};
    float o[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      if constexpr (R == 1) {
        o[e] = 0.25f * ((u1[e] + d1[e]) + (left1[e] + right1[e]));
      } else {
        const float4 up2 = v[q + R - 2], dn2 = v[q + R + 2];
        const float u2[4] = {up2.x, up2.y, up2.z, up2.w}, d2[4] = {dn2.x, dn2.y, dn2.z, dn2.w};
        const float left2[4] = {l2, l1, c.x, c.y}, right2[4] = {c.z, c.w, r1, r2};
        // Explicit fused multiply-adds: no contraction left to the compiler, so every
        // instantiation (and the CPU reference, with std::fma) rounds identically.
        o[e] = fmaf(star<R>::w2, (u2[e] + d2[e]) + (left2[e] + right2[e]),
                    fmaf(star<R>::w1, (u1[e] + d1[e]) + (left1[e] + right1[e]), star<R>::w0 * cc[e]));
      }
    }
    const int gr = r0 + warp * rows + q, gc = c0 + 4 * lane;
    if (gr < h) {
      float* dst = out + static_cast<long long>(gr) * w + gc;
      if (gc + 3 < w) {
        *reinterpret_cast<float4*>(dst) = make_float4(o[0], o[1], o[2], o[3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (gc + e < w) dst[e] = o[e];
      }
    }
  }
}

// ---- sgemm ----------------------------------------------------------------------------------------
/// Per-thread position in the 128 x 128 block tile: warps 2 (M) x 4 (N), each 64 x 32; lanes 8 (M) x 4 (N),
/// each two 4 x 4 quadrants per direction. Rows arow + {0..3, 32..35}, columns bcol + {0..3, 16..19}.
/// The lanes are interleaved: lane bits 0 and 2 give the N position (ln), bits 1, 3 and 4 the M
/// position (lm), so lanes n and n ^ 1 read the same A float4 and lanes n and n ^ 2 the same B
/// float4 (the row-major map, lm = lane / 4 and ln = lane % 4, pairs lanes n, n ^ 1, n ^ 2, n ^ 3
/// on A). Which thread owns which element changes, not the FMAs of an element: C is bit-identical.
/// Measured (H100, sgemm lab, 8192^3, K-tile 8): tma 44.1 -> 44.9 TFLOP/s, cp_async 41.2 -> 41.2.
/// Why it helps is not measured: both maps read 8 distinct A float4s and 4 distinct B float4s per
/// warp load, in every quarter- and half-warp alike; the shared-memory wavefronts per load (3.00
/// for the row-major map, ncu, session 26) have not been counted for this one.
/// arow and bcol are written with `/ 4` and `% 4` on the signed warp index, not `>> 2` and `& 3`,
/// on purpose: with the shifts nvcc sinks the map's arithmetic below the pipeline's prologue, and
/// ptxas then schedules pb_sgemm's K-tile loop differently (118 registers instead of 124). Measured
/// on an H100 (session 39, bench/results/h200-2026-12-06-session39/, porter-bench sgemm 8192^3,
/// tma, S = 4): 44.8 TFLOP/s with the shifts, 49.5 with this form (and sgemm_mma's loads as two
/// loops, which alone left the register count at 118). In the sgemm lab's kernels the PTX of the
/// fast and the slow form differed only in where the map is computed, and ran at 48.8 and 44.4
/// TFLOP/s. Fragile by nature: re-measure after touching this or sgemm_mma.
struct sgemm_thread {
  int arow, bcol;
  __device__ __forceinline__ sgemm_thread() {
    const int warp = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
    const int lm = ((lane >> 1) & 1) | ((lane >> 2) & 6), ln = (lane & 1) | ((lane >> 1) & 2);
    arow = (warp / 4) * 64 + lm * 4;
    bcol = (warp % 4) * 32 + ln * 4;
  }
  __device__ __forceinline__ int row(int i) const { return arow + (i < 4 ? i : 28 + i); }
  __device__ __forceinline__ int col(int j) const { return bcol + (j < 4 ? j : 12 + j); }
};

/// acc += a b^T for one k: a = rows {0..3, 32..35} of this thread (a0, a1), b = columns {0..3, 16..19}
/// (b0, b1). 64 FMAs, in the order every sgemm kernel of the bench uses (so they give the same bits).
__device__ __forceinline__ void sgemm_fma(float (&acc)[8][8], const float4& a0, const float4& a1, const float4& b0,
                                          const float4& b1) {
  const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
  const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
}

/// acc += At_tile^T * B_tile for one K-tile: sa is At[k0:k0+bk][m0:m0+128], sb is B[k0:k0+bk][n0:n0+128]
/// (shared memory, dense, 16-byte aligned). 4 float4 reads and 64 FMAs per k.
__device__ __forceinline__ void sgemm_mma(float (&acc)[8][8], const float* sa, const float* sb, const sgemm_thread& t) {
  using namespace sgemm_shape;
#pragma unroll
  for (int q = 0; q < bk; ++q) {
    float4 fa[2], fb[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) fa[i] = *reinterpret_cast<const float4*>(sa + q * bm + t.arow + i * 32);
#pragma unroll
    for (int j = 0; j < 2; ++j) fb[j] = *reinterpret_cast<const float4*>(sb + q * bn + t.bcol + j * 16);
    sgemm_fma(acc, fa[0], fa[1], fb[0], fb[1]);
  }
}

/// The byte offsets of this thread's four float4 reads in a K-tile landed as
/// sgemm_shape::a_box_swizzled / b_box_swizzled ([bk][4][32] floats, 128 B swizzle), for even and
/// odd k: element (k, m) lies in row r = 4 k + m / 32 at chunk ((m % 32) / 4) ^ (r % 8), and for
/// the 4-aligned columns a thread reads r % 8 = 4 (k % 2) + m / 32. Read at k: offset[k % 2] + 512 k.
struct sgemm_swizzled_offsets {
  int a0[2], a1[2], b0[2], b1[2];
  __device__ __forceinline__ explicit sgemm_swizzled_offsets(const sgemm_thread& t) {
    auto at = [](int col, int parity) {
      const int g = col / 32, c = (col % 32) / 4;
      return g * 128 + ((c ^ (4 * parity + g)) << 4);
    };
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      a0[p] = at(t.arow, p);
      a1[p] = at(t.arow + 32, p);
      b0[p] = at(t.bcol, p);
      b1[p] = at(t.bcol + 16, p);
    }
  }
};

/// sgemm_mma on swizzled K-tiles (sgemm_shape::a_box_swizzled, b_box_swizzled): the same values in
/// the same order, so the same FMAs and bits; only the shared addresses differ.
__device__ __forceinline__ void sgemm_mma_swizzled(float (&acc)[8][8], const float* sa, const float* sb,
                                                   const sgemm_swizzled_offsets& o) {
  using namespace sgemm_shape;
  const unsigned char* pa = reinterpret_cast<const unsigned char*>(sa);
  const unsigned char* pb = reinterpret_cast<const unsigned char*>(sb);
#pragma unroll
  for (int q = 0; q < bk; ++q) {
    const float4 a0 = *reinterpret_cast<const float4*>(pa + q * 512 + o.a0[q & 1]);
    const float4 a1 = *reinterpret_cast<const float4*>(pa + q * 512 + o.a1[q & 1]);
    const float4 b0 = *reinterpret_cast<const float4*>(pb + q * 512 + o.b0[q & 1]);
    const float4 b1 = *reinterpret_cast<const float4*>(pb + q * 512 + o.b1[q & 1]);
    sgemm_fma(acc, a0, a1, b0, b1);
  }
}

/// Zero this thread's 8 x 8 accumulators. A kernel whose steps run across output tiles calls it once
/// before its first step and right after each tile's sgemm_store, not at a tile's first step: there
/// the test "first K-tile of a tile?" is in every step, and the compiler turns the 64 stores into 64
/// selects that every step executes (ptxas on sm_90: 64 FSEL per step in a 640-instruction step).
/// The accumulators start every tile at zero either way, so the FMAs and the results are the same.
__device__ __forceinline__ void sgemm_zero(float (&acc)[8][8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
}

/// Store the 8 x 8 accumulators of this thread to C[m][n] (row-major, ldc = n) for the block tile at
/// (m0, n0); 16-byte stores where a quadrant row lies inside C (needs n % 4 == 0).
__device__ __forceinline__ void sgemm_store(const float (&acc)[8][8], float* __restrict__ c, int m0, int n0, int m, int n,
                                            const sgemm_thread& t) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int gm = m0 + t.row(i);
    if (gm >= m) continue;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int gn = n0 + t.col(half * 4);
      float* dst = c + static_cast<long long>(gm) * n + gn;
      if (gn + 3 < n) {
        *reinterpret_cast<float4*>(dst) = make_float4(acc[i][half * 4], acc[i][half * 4 + 1], acc[i][half * 4 + 2], acc[i][half * 4 + 3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (gn + e < n) dst[e] = acc[i][half * 4 + e];
      }
    }
  }
}

// ---- smallgemm -------------------------------------------------------------------------------------
/// acc + sum_q A_tile[ty][q] * B_tile[q][tx] for one K-step, q = 0..15 in order, each term an
/// explicit fmaf (no contraction or reassociation left to the compiler), so every implementation
/// that starts each output from 0.f and feeds the K-steps in order gives bit-identical C.
/// sa is A[m0:m0+16][k0:k0+16], sb is B[k0:k0+16][n0:n0+16] (shared memory, dense row-major, 4-byte
/// aligned; 1 KiB each). This thread's element is row ty = threadIdx.x / 16, column tx = threadIdx.x % 16.
/// Shared-memory reads: a half-warp reads one A word (broadcast) and 16 consecutive B words per q.
__device__ __forceinline__ float smallgemm_mma(float acc, const float* sa, const float* sb) {
  using namespace smallgemm_shape;
  const int ty = int(threadIdx.x) / tile, tx = int(threadIdx.x) % tile;
#pragma unroll
  for (int q = 0; q < bk; ++q) acc = fmaf(sa[ty * bk + q], sb[q * tile + tx], acc);
  return acc;
}

/// Store this thread's element of the 16 x 16 output tile at (m0, n0) to C[m][n] (row-major, ldc = n);
/// elements outside C are skipped.
__device__ __forceinline__ void smallgemm_store(float acc, float* __restrict__ c, int m0, int n0, int m, int n) {
  using namespace smallgemm_shape;
  const int gm = m0 + int(threadIdx.x) / tile, gn = n0 + int(threadIdx.x) % tile;
  if (gm < m && gn < n) c[static_cast<long long>(gm) * n + gn] = acc;
}

/// Tiles owned by this CTA in a persistent grid: tiles blockIdx.x, blockIdx.x + gridDim.x, ...
__device__ __forceinline__ int tiles_of_this_cta(long long tiles) {
  const long long b = blockIdx.x, g = gridDim.x;
  return b < tiles ? int((tiles - 1 - b) / g + 1) : 0;
}

}  // namespace pb
