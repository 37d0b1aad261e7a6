// bench/kernels/bf16gemm.cuh — the bf16 tensor-core GEMM written ONCE with porter: C (fp32, M x N,
// row-major) = A (bf16, M x K, row-major) * B^T, B bf16 N x K row-major ("TN": both operands K-major).
//
// The data path is the template parameter (porter::path::tma, cp_async, staged): each stage's A and B
// tiles land 128 B-swizzled through porter's pipeline, warps read them with porter::load_fragments
// (ldmatrix) and multiply with mma.sync (kernels/mma_consumer.cuh). The compute is the same code on
// every path, in the same order, so every path gives bit-identical C.
// What is NOT here: __CUDA_ARCH__, inline PTX, vendor #if (docs/design.md, invariant 8).
#pragma once
#include <porter/porter.hpp>

#include "mma_consumer.cuh"
#include "shapes.hpp"

namespace pb {

/// This warp's 64 x 64 tile inside the 128 x 256 CTA tile (bf16gemm_shape: warps 2 (M) x 4 (N)).
struct bf16gemm_warp {
  int m0, n0;  ///< first row (M) and column (N) of the warp tile, relative to the CTA tile
  /// The warp tile of MMA warp `warp` (0 .. 7): warps_n warps per row of warp tiles.
  __device__ __forceinline__ explicit bf16gemm_warp(int warp) {
    using namespace bf16gemm_shape;
    m0 = (warp / warps_n) * wm;
    n0 = (warp % warps_n) * wn;
  }
  /// The calling warp's, when every warp of the CTA multiplies (pb_bf16gemm).
  __device__ __forceinline__ bf16gemm_warp() : bf16gemm_warp(int(threadIdx.x) / 32) {}
};

/// First row and column of tile `t` (of tiles_m x tiles_n tiles of bm x bn) in the grouped order:
/// groups of bf16gemm_shape::group_m tile rows, column-major inside a group (Triton's tutorial
/// order), so that the tiles resident at one time read few distinct A and B blocks.
__device__ __forceinline__ void bf16gemm_grouped_origin(long long t, int tiles_m, int tiles_n, int& m0, int& n0) {
  using namespace bf16gemm_shape;
  const long long per_group = static_cast<long long>(group_m) * tiles_n;
  const int group = int(t / per_group), in_group = int(t - group * per_group);
  const int first_m = group * group_m;
  const int rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  m0 = (first_m + in_group % rows) * bm;
  n0 = (in_group / rows) * bn;
}

/// First row and column of tile `t` in the PAIRED grouped order of the multicast rows
/// ("*-multicast", "*-pairs"): tiles 2q and 2q + 1 are the two tiles of pair q, rows 2 p and 2 p + 1
/// of one tile column, the pairs in the grouped order over (tiles_m / 2) x tiles_n pair positions.
/// On a persistent schedule over an even grid, CTAs 2c and 2c + 1 (one cluster of 2 along x) then
/// take the two tiles of one pair at every step: the same B box, different A boxes. tiles_m even.
__device__ __forceinline__ void bf16gemm_pair_origin(long long t, int tiles_m, int tiles_n, int& m0, int& n0) {
  using namespace bf16gemm_shape;
  int pair_m0;
  bf16gemm_grouped_origin(t / 2, tiles_m / 2, tiles_n, pair_m0, n0);
  m0 = (2 * (pair_m0 / bm) + int(t % 2)) * bm;
}

/// The tile origin of the bf16 GEMMs with roles: paired (bf16gemm_pair_origin) for the multicast
/// kernels, grouped (bf16gemm_grouped_origin) otherwise.
template <bool Paired>
__device__ __forceinline__ void bf16gemm_role_origin(long long t, int tiles_m, int tiles_n, int& m0, int& n0) {
  if constexpr (Paired) bf16gemm_pair_origin(t, tiles_m, tiles_n, m0, n0);
  else bf16gemm_grouped_origin(t, tiles_m, tiles_n, m0, n0);
}

/// The ring `Pipe` (a porter::pipeline or porter::role_pipeline) of a bf16 GEMM kernel over `smem`:
/// a porter::cluster_multicast ring for the multicast instantiations, an ordinary one otherwise.
template <class Pipe, bool Multicast>
__device__ __forceinline__ Pipe bf16gemm_make_pipe(void* smem) {
  if constexpr (Multicast) return Pipe(smem, porter::cluster_multicast);
  else return Pipe(smem);
}

/// One k-step's operands of a warp: A of its 4 m16 tiles (fragment<4> each: a0..a3), B of its 8 n8
/// tiles as 4 pairs (one load_fragments<16, 16> along the rows each; b_fragment(b[j / 2], j % 2) is
/// tile j, in adjacent registers). 32 registers.
struct bf16gemm_frags {
  porter::fragment<4> a[bf16gemm_shape::mt];
  porter::fragment<4> b[bf16gemm_shape::nt / 2];
};

/// Load k-step `kk` (columns 16 kk .. 16 kk + 15 of the stage's K-tile) of this warp's operands
/// from the landed A tile `ta` ([m][k], 128 x 64) and B tile `tb` ([n][k], 256 x 64): 8 ldmatrix.x4
/// through the tiles' 128 B swizzle, conflict-free. B is taken along the rows (porter::along_rows),
/// so each n8 tile's b0, b1 land in adjacent registers, the pair mma reads: taken down the columns
/// (b0, b1 = reg[j], reg[j + 2]) ptxas 13.0 copied them into a pair before every mma, 2 moves per
/// mma, and the kernel ran 1.23x slower (session 28, exp14). Warp-collective.
template <class ATile, class BTile>
__device__ __forceinline__ void bf16gemm_load(bf16gemm_frags& f, ATile ta, BTile tb, const bf16gemm_warp& w, int kk) {
  using namespace bf16gemm_shape;
#pragma unroll
  for (int i = 0; i < mt; ++i) f.a[i] = porter::load_fragments<16, 16>(ta, w.m0 + 16 * i, 16 * kk);
#pragma unroll
  for (int j = 0; j < nt / 2; ++j) f.b[j] = porter::load_fragments<16, 16>(tb, w.n0 + 16 * j, 16 * kk, porter::along_rows);
}

/// acc[i][j] += A_i * B_j for one k-step: 32 mma.m16n8k16, in one fixed order (every path, every
/// stage count: bit-identical C).
__device__ __forceinline__ void bf16gemm_mma(float (&acc)[bf16gemm_shape::mt][bf16gemm_shape::nt][4], const bf16gemm_frags& f) {
  using namespace bf16gemm_shape;
#pragma unroll
  for (int i = 0; i < mt; ++i)
#pragma unroll
    for (int j = 0; j < nt; ++j) mma_m16n8k16_bf16(acc[i][j], f.a[i], b_fragment(f.b[j / 2], j % 2));
}

/// acc = 0 (a tile's start).
__device__ __forceinline__ void bf16gemm_zero(float (&acc)[bf16gemm_shape::mt][bf16gemm_shape::nt][4]) {
  using namespace bf16gemm_shape;
#pragma unroll
  for (int i = 0; i < mt; ++i)
#pragma unroll
    for (int j = 0; j < nt; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
}

/// One landed stage of a warp (`ready`: a porter consumer_stage of the two boxes): the fragments of
/// k-step 0, then for every k-step the next k-step's fragments, or `release()` after the last (every
/// fragment of the stage is then in registers), its MMAs into acc, and `after_mma(kk)` behind them.
/// Both mma.sync kernels multiply through it: the same loads and MMAs in the same order.
template <class Ready, class Release, class AfterMma>
__device__ __forceinline__ void bf16gemm_stage(float (&acc)[bf16gemm_shape::mt][bf16gemm_shape::nt][4], Ready& ready,
                                               const bf16gemm_warp& w, Release&& release, AfterMma&& after_mma) {
  using namespace bf16gemm_shape;
  const auto ta = ready.template tile<0>();
  const auto tb = ready.template tile<1>();
  bf16gemm_frags f[2];
  bf16gemm_load(f[0], ta, tb, w, 0);
#pragma unroll
  for (int kk = 0; kk < ksteps; ++kk) {
    if (kk + 1 < ksteps) bf16gemm_load(f[(kk + 1) & 1], ta, tb, w, kk + 1);
    else release();
    bf16gemm_mma(acc, f[kk & 1]);
    after_mma(kk);
  }
}

/// Store this warp's accumulators (the mma C layout: lane l holds rows g, g + 8 and columns 2t, 2t + 1
/// of each 16 x 8 tile, g = l / 4, t = l % 4) to C (row-major, ldc = n) for the CTA tile at (m0, n0).
/// Entries outside C are skipped; 8-byte stores where both columns are inside and n is even (each
/// warp store then fills 8 whole 32-byte sectors).
__device__ __forceinline__ void bf16gemm_store(const float (&acc)[bf16gemm_shape::mt][bf16gemm_shape::nt][4], float* __restrict__ c,
                                               int m0, int n0, int m, int n, const bf16gemm_warp& w) {
  using namespace bf16gemm_shape;
  const int lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < mt; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = m0 + w.m0 + 16 * i + g + 8 * h;
      if (row >= m) continue;
      float* crow = c + static_cast<long long>(row) * n;
#pragma unroll
      for (int j = 0; j < nt; ++j) {
        const int col = n0 + w.n0 + 8 * j + 2 * t;
        const float v0 = acc[i][j][2 * h], v1 = acc[i][j][2 * h + 1];
        if (col + 1 < n && n % 2 == 0) {
          *reinterpret_cast<float2*>(crow + col) = make_float2(v0, v1);
        } else {
          if (col < n) crow[col] = v0;
          if (col + 1 < n) crow[col + 1] = v1;
        }
      }
    }
}

/// bf16gemm: C = A * B^T (see the file comment) over this CTA's output tiles of `sched` (tile t is
/// the 128 x 256 block at rows (t / tiles_n) * 128, columns (t % tiles_n) * 256). One pipeline step
/// = the A and B boxes of one K-tile of 64 (two buffers per stage, 48 KiB); the copies run
/// continuously across the CTA's tiles (S - 1 steps ahead; a stage's refill issued behind k-step
/// bf16gemm_shape::refill_kstep's MMAs, or right after the wait for -1), so the next tile's first K-tiles land
/// during this tile's epilogue. Elements outside
/// A or B land as zero, so any M, N, K works (a path's host rules may refuse a layout:
/// porter::launch).
///
/// The loop is nested: per tile, per K-tile, per k-step, with the epilogue after a tile's K loop.
/// Fragments are double-buffered in registers (k-step kk + 1 loaded before the MMAs of kk), and a
/// stage is released right after its last fragment load, before the last k-step's MMAs. Session 28
/// measured this shape against the earlier flat loop over steps (one counter, the tile's epilogue
/// and the last k-step's MMAs of a stage deferred behind the next stage's wait): ptxas kept 208
/// registers instead of the flat loop's 246 (exp14's V2) and no accumulator copies, 1.11x faster (exp14, 8192^3 on tma).
///
/// Multicast (the "porter-multicast" rows): launched in clusters of 2 CTAs (sm_90) on the blocked
/// one-tile-per-CTA schedule, the pipeline a porter::cluster_multicast ring; the two CTAs of a
/// cluster take the two tiles of one column pair (rows 2p and 2p + 1 of tile column q: tile t is
/// pair p = t / 2 at rows 2 (p / tiles_n) + t % 2, column p % tiles_n), so they read the same B box
/// every step and copy it once with porter::multicast (each its own A). Needs an even number of tile
/// rows (the host checks); the compute and its order are unchanged (bit-identical C). The kernel
/// ends with porter::cluster_sync(): until its peer's last step, a peer may arrive on this CTA's
/// EMPTY barriers.
template <class Path, int Stages, bool Multicast = false>
__global__ void __launch_bounds__(bf16gemm_shape::threads, 1)
    pb_bf16gemm(const __grid_constant__ porter::tiled_source<bf16gemm_shape::a_box> a,
                const __grid_constant__ porter::tiled_source<bf16gemm_shape::b_box> b, float* __restrict__ c, int m, int n, int k,
                porter::tile_schedule sched) {
  using namespace bf16gemm_shape;
  extern __shared__ __align__(128) unsigned char smem[];
  auto pipe = bf16gemm_make_pipe<porter::pipeline<Path, Stages, a_box, b_box>, Multicast>(smem);
  const int tiles_n = (n + bn - 1) / bn, ktiles = (k + bk - 1) / bk;
  const int tiles = int(sched.count());
  const int steps = tiles * ktiles;
  const bf16gemm_warp w;
  auto tile_origin = [&](int tl, int& m0, int& n0) {
    const int t = int(sched.tile(tl));
    if constexpr (Multicast) {
      const int pr = t / 2, pm = pr / tiles_n;
      m0 = (2 * pm + (t - 2 * pr)) * bm;
      n0 = (pr - pm * tiles_n) * bn;
    } else {
      const int tm = t / tiles_n;
      m0 = tm * bm;
      n0 = (t - tm * tiles_n) * bn;
    }
  };
  // The issue side: step `issued` is K-tile i_kt of the CTA's tile i_tl, whose origin is (i_m0, i_n0).
  int issued = 0, i_tl = 0, i_kt = 0, i_m0 = 0, i_n0 = 0;
  if (steps > 0) tile_origin(0, i_m0, i_n0);
  auto issue = [&] {
    auto slot = pipe.producer_acquire();
    porter::async_copy(porter::buffer<0>(slot), a, porter::coord<2>{i_m0, i_kt * bk});
    if constexpr (Multicast) porter::async_copy(porter::buffer<1>(slot), b, porter::coord<2>{i_n0, i_kt * bk}, porter::multicast);
    else porter::async_copy(porter::buffer<1>(slot), b, porter::coord<2>{i_n0, i_kt * bk});
    pipe.producer_commit(slot);
    ++issued;
    if (++i_kt == ktiles) {
      i_kt = 0;
      if (++i_tl < tiles) tile_origin(i_tl, i_m0, i_n0);
    }
  };
  constexpr int ahead = Stages > 1 ? Stages - 1 : 1;
  while (issued < steps && issued < ahead) issue();
  for (int tl = 0; tl < tiles; ++tl) {
    float acc[mt][nt][4];
    bf16gemm_zero(acc);
    for (int kt = 0; kt < ktiles; ++kt) {
      auto ready = pipe.consumer_wait();
      if (refill_kstep < 0 && Stages > 1 && issued < steps) issue();  // the stage released one step ago
      bf16gemm_stage(
          acc, ready, w, [&] { pipe.consumer_release(ready); },
          [&](int kk) {
            if (kk == refill_kstep && Stages > 1 && issued < steps) issue();  // behind k-step refill_kstep's MMAs
          });
      if (Stages == 1 && issued < steps) issue();  // one stage: refilled once released
    }
    int m0, n0;
    tile_origin(tl, m0, n0);
    bf16gemm_store(acc, c, m0, n0, m, n, w);
  }
  if constexpr (Multicast) porter::cluster_sync();  // a peer may still arrive on this CTA's EMPTY barriers
}

/// The producer role of a bf16 GEMM on a porter::role_pipeline `pipe` over bf16gemm_shape's boxes:
/// for every tile of `sched` in the grouped order (bf16gemm_grouped_origin), for every K-tile:
/// producer_acquire, async_copy A's box at (m0, kt * bk) and B's at (n0, kt * bk) with the L2 hints
/// HA and HB (none: unhinted), producer_commit. `count` is sched.count(). Called by every producer
/// thread, after enter_role(). Multicast: the tiles in the paired order (bf16gemm_pair_origin) and
/// B copied with porter::multicast (on a porter::cluster_multicast ring in clusters of 2: once per
/// pair, landing in both CTAs; otherwise each CTA's own copy).
template <porter::cache_hint HA = porter::cache_hint::none, porter::cache_hint HB = porter::cache_hint::none, bool Multicast = false,
          class Pipe>
__device__ __forceinline__ void bf16gemm_produce(Pipe& pipe, const porter::tiled_source<bf16gemm_shape::a_box>& a,
                                                 const porter::tiled_source<bf16gemm_shape::b_box>& b, const porter::tile_schedule& sched,
                                                 int count, int tiles_m, int tiles_n, int ktiles) {
  using bf16gemm_shape::bk;
  for (int tl = 0; tl < count; ++tl) {
    int m0, n0;
    bf16gemm_role_origin<Multicast>(sched.tile(tl), tiles_m, tiles_n, m0, n0);
    for (int kt = 0; kt < ktiles; ++kt) {
      auto slot = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(slot), a, porter::coord<2>{m0, kt * bk}, porter::l2_hint_t<HA>{});
      if constexpr (Multicast)
        porter::async_copy(porter::buffer<1>(slot), b, porter::coord<2>{n0, kt * bk}, porter::multicast, porter::l2_hint_t<HB>{});
      else
        porter::async_copy(porter::buffer<1>(slot), b, porter::coord<2>{n0, kt * bk}, porter::l2_hint_t<HB>{});
      pipe.producer_commit(slot);
    }
  }
}

/// bf16gemm with producer/consumer roles (issue 9, part 1): the MMA warps, fragment loads, MMAs and
/// their order are pb_bf16gemm's (bit-identical C), but the copies move to a producer warpgroup:
///
///   warpgroup 0 (producer)        for every K-tile of every tile of the schedule:
///                                 producer_acquire, async_copy A and B boxes, producer_commit
///   warpgroups 1, 2 (consumers)   the 8 MMA warps of pb_bf16gemm (warp w of the consumers has
///                                 pb_bf16gemm's warp tile w): consumer_wait, fragment loads and
///                                 mma.sync, consumer_release after the stage's last fragment load
///
/// through a porter::role_pipeline, so no MMA warp issues a copy, waits for a copy group or meets a
/// CTA barrier: a stage completes on its FULL mbarrier (tma: transaction bytes; cp_async:
/// cp.async.mbarrier.arrive.noinc of every producer thread; staged: the producers' arrivals after
/// their stores). The producer runs up to Stages stages ahead, across tile boundaries, so the next
/// tile's copies overlap this tile's epilogue. Tiles are visited in the grouped order
/// (bf16gemm_grouped_origin) over `sched` (porter-bench: a persistent grid, one CTA per SM).
/// Elements outside A or B land as zero, so any M, N >= 1 and K >= 0 work (K = 0 stores zeros),
/// within the path's host rules (porter::launch).
/// Launch: Roles::threads threads, Pipe::shared_bytes of dynamic shared memory,
/// launch_options::uses_role_pipeline(). Roles: 8 consumer warps (two warpgroups) and whole
/// producer warpgroups; 384 threads leave 168 registers each without reallocation, where the MMA
/// warps spill (they need 208 or more), so porter-bench's rows give the consumers 208-232 with
/// porter::registers (setmaxnreg: sm_90a; shapes.hpp, bf16gemm_roles_shape).
///
/// Multicast (rows "porter-roles-multicast" and, launched without clusters, "porter-roles-pairs"):
/// the ring is a porter::cluster_multicast one, the tiles go in the paired order
/// (bf16gemm_pair_origin) and B is copied with porter::multicast. Launched in clusters of 2 CTAs
/// (on an even persistent grid, tiles_m even), the two CTAs of a cluster compute the two tiles of
/// a pair: each stage's B box is read once and lands in both, and a stage returns to the producers
/// when the consumers of both CTAs released it; every thread ends with porter::cluster_sync().
/// Launched without clusters it is the same kernel with each CTA copying its own B.
template <class Path, int Stages, class Roles, bool Multicast = false>
__global__ void __launch_bounds__(Roles::threads, 1)
    pb_bf16gemm_roles(const __grid_constant__ porter::tiled_source<bf16gemm_shape::a_box> a,
                      const __grid_constant__ porter::tiled_source<bf16gemm_shape::b_box> b, float* __restrict__ c, int m, int n, int k,
                      porter::tile_schedule sched) {
  using namespace bf16gemm_shape;
  static_assert(Roles::consumer_threads == threads, "pb_bf16gemm_roles: the consumers are pb_bf16gemm's 8 MMA warps");
  // Its own array name: one extern __shared__ name has one alignment per translation unit.
  extern __shared__ __align__(1024) unsigned char pb_roles_smem[];
  using Pipe = porter::role_pipeline<Path, Roles, Stages, a_box, b_box>;
  Pipe pipe = bf16gemm_make_pipe<Pipe, Multicast>(pb_roles_smem);
  const int tiles_m = (m + bm - 1) / bm, tiles_n = (n + bn - 1) / bn, ktiles = (k + bk - 1) / bk;
  const int count = int(sched.count());
  if (pipe.is_producer()) {
    pipe.enter_role();
    bf16gemm_produce<porter::cache_hint::none, porter::cache_hint::none, Multicast>(pipe, a, b, sched, count, tiles_m, tiles_n, ktiles);
    if constexpr (Multicast) porter::cluster_sync();
    return;
  }
  pipe.enter_role();
  const bf16gemm_warp w((int(threadIdx.x) - int(Roles::producer_threads)) / 32);
  for (int tl = 0; tl < count; ++tl) {
    float acc[mt][nt][4];
    bf16gemm_zero(acc);
    for (int kt = 0; kt < ktiles; ++kt) {
      auto ready = pipe.consumer_wait();
      bf16gemm_stage(acc, ready, w, [&] { pipe.consumer_release(ready); }, [](int) {});
    }
    int m0, n0;
    bf16gemm_role_origin<Multicast>(sched.tile(tl), tiles_m, tiles_n, m0, n0);
    bf16gemm_store(acc, c, m0, n0, m, n, w);
  }
  if constexpr (Multicast) porter::cluster_sync();
}

}  // namespace pb
