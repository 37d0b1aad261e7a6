// bench/kernels/shapes.hpp — tile shapes and CTA sizes shared by the porter kernels, the
// hand-written baselines and the host side (so every implementation of a workload uses one tiling).
#pragma once
#include <cstddef>
#include <type_traits>

#include <cuda_bf16.h>

#include <porter/box.hpp>
#include <porter/path.hpp>
#include <porter/roles.hpp>

namespace pb {

// ---- stream: y = a*x + b over n floats, 1D tiles of 3072 floats (12 KiB) ------------------------
// The tile is sized for bytes in flight, as cub::DeviceTransform sizes its tiles (CCCL's
// tuning_transform.cuh asks for 48 KiB in flight per SM on sm_90). H200, session 27 (exp9: one
// tile per CTA, residency held by shared-memory padding, 7 rounds interleaved with cudaMemcpy;
// bench/results/h200-2026-12-03-session27): the rate peaks where resident CTAs x tile bytes is
// 48 KiB per SM and falls on both sides: tma 6 KiB x 8 CTAs 1.004x, 12 KiB x 4 1.000x,
// 16 KiB x 3 0.988x, 16 KiB x 4 0.980x, 16 KiB x 8 0.969x, 4 KiB x 8 0.901x; cp_async
// 1.001 / 1.003 / 0.996 / 0.979 / 0.962 / 0.964x. One tile size serves every path (path::automatic
// launches one source type): 12 KiB, whose 4-stage instantiation holds 4 CTAs per SM by its shared
// memory (48 KiB) with whole float4s per thread. exp10, real stage counts: 12 KiB S=4 tma 0.991x,
// cp_async 1.001x, staged (S=3, 5 CTAs per SM) 0.988x; 16 KiB at the stages that were best for it
// in porter-bench (tma S=3, cp_async and staged S=4) 0.977 / 0.995 / 0.985x; 6 KiB x 8 CTAs: tma
// 1.005x, cp_async 0.996x, staged 0.923x (46 registers: 5 CTAs per SM).
namespace stream_shape {
constexpr int threads = 256;
constexpr int tile = 3072;                       // floats per tile (12 KiB per stage)
using box = porter::box<float, tile>;
constexpr int vec_per_thread = tile / 4 / threads;  // float4 per thread per tile
constexpr long long size = 1LL << 28;            // floats per buffer (1 GiB): 87,381 whole tiles and one of 1024 floats
/// Tiles over n floats, the partial last one included (what every stream kernel copies).
constexpr long long tiles_of(long long n) { return (n + tile - 1) / tile; }
static_assert(tile % (4 * threads) == 0, "stream tile must be a whole number of float4 per thread");
}  // namespace stream_shape

// ---- boxsize: the stream kernel with the box a template parameter (tma's break-even sweep) ------
// y = a * x + b, one box per tile and one tile per pipeline step, 4 stages, 256 threads, at box
// sizes 512 B .. 32 KiB: 1D boxes of `floats` over 2^28 floats (cp.async.bulk on tma), and 2D
// boxes of 16 rows x `w` floats over a 16384 x 16384 grid (cp.async.bulk.tensor). Measures where
// tma's bulk copies, issued by one thread, overtake the per-thread copies of cp_async and staged:
// the break-even table that path::automatic reads (core/src/choose.cpp, porter/choose.hpp).
namespace boxsize_shape {
constexpr int threads = 256;
constexpr int stages = 4;
constexpr long long n1d = 1LL << 28;  // floats, 1D
constexpr int size2d = 16384;          // 2D grid: size2d x size2d floats
constexpr int rows2d = 16;             // rows of every 2D box
template <int Floats> using box1d = porter::box<float, Floats>;
template <int W> using box2d = porter::box<float, rows2d, W>;
}  // namespace boxsize_shape

// ---- stencil2d: star stencils of radius R on an h x w grid; 32 x 128 output tiles ---------------
// Each tile is read with its halo: rows r0-R .. r0+31+R, columns c0-4 .. c0+131 (the box starts 4
// columns left so that its rows stay 16-byte aligned; 4 >= R). 8 warps, each 4 output rows; each
// lane 4 consecutive columns (one float4), so a warp covers a 128-wide row.
namespace stencil_shape {
constexpr int threads = 256;
constexpr int tile_h = 32, tile_w = 128;
constexpr int pad_w = 4;                         // halo columns on each side in the box (>= R)
constexpr int rows_per_warp = tile_h / (threads / 32);
template <int R> using box = porter::box<float, tile_h + 2 * R, tile_w + 2 * pad_w>;
static_assert(tile_w == 32 * 4, "one warp covers one tile row with one float4 per lane");
}  // namespace stencil_shape

/// Star-stencil weights of radius R (center, distance 1, distance 2); they sum to 1.
/// Radius 1: out = 0.25 * ((up + down) + (left + right)).
/// Radius 2: out = fma(w2, (up2 + down2) + (left2 + right2), fma(w1, (up1 + down1) + (left1 + right1), w0 * c)).
template <int R> struct star;
template <> struct star<1> {
  static constexpr float w0 = 0.0f, w1 = 0.25f, w2 = 0.0f;
};
template <> struct star<2> {
  static constexpr float w0 = 0.2f, w1 = 0.15f, w2 = 0.05f;
};

// ---- sgemm: C[M][N] = A[M][K] * B[K][N], A stored transposed (At[K][M]) ------------------------
// 128 x 128 block tile, K-tile 16, 256 threads, 8 x 8 accumulators per thread (two 4 x 4 quadrants
// in each direction, 32 and 16 apart), float4 shared-memory reads from interleaved lanes
// (compute.cuh sgemm_thread). A stage holds At[k0:k0+16][m0:m0+128] and B[k0:k0+16][n0:n0+128]:
// two boxes of 8 KiB. K-tile 16 rather than 8 halves the waits and CTA barriers per FMA: the
// sgemm lab (bench/results/h200-2026-12-06-session39/sgemm_lab/, H100, 8192^3, tma) measured
// 44.9 TFLOP/s at K-tile 8 and 48.8 at 16 with the same lanes and loop.
namespace sgemm_shape {
constexpr int threads = 256;
constexpr int bm = 128, bn = 128, bk = 16;
using a_box = porter::box<float, bk, bm>;
using b_box = porter::box<float, bk, bn>;
constexpr double flops_per_stage = 2.0 * bm * bn * bk;
// The swizzled form (impl "porter-swizzled"): each operand's K-tile as a 3D box [bk][4][32] of a
// view (K, M / 32, 32) of the matrix, in the 128 B swizzle (a 512-byte row cannot take it: the
// swizzle span is 128 B). Landed row r = 4 k + g holds columns 32 g .. 32 g + 31 of K-row k, its
// 16-byte chunk c at chunk c ^ (r % 8). The same bytes as a_box, permuted; M and N multiples of 32.
constexpr int group = 32;
using a_box_swizzled = porter::swizzled<porter::box<float, bk, bm / group, group>, porter::swizzle::b128>;
using b_box_swizzled = porter::swizzled<porter::box<float, bk, bn / group, group>, porter::swizzle::b128>;
template <bool Swizzled> using a_box_of = std::conditional_t<Swizzled, a_box_swizzled, a_box>;
template <bool Swizzled> using b_box_of = std::conditional_t<Swizzled, b_box_swizzled, b_box>;
}  // namespace sgemm_shape

// ---- smallgemm: C[M][N] = A[M][K] * B[K][N], all row-major, with the small tiles of the CUDA
// sample globalToShmemAsyncCopy (its multistage matrix multiply): a 16 x 16 output tile per CTA of
// 256 threads, one C element per thread (thread t: row t / 16, column t % 16), K-step 16. A stage
// holds A[m0:m0+16][k0:k0+16] and B[k0:k0+16][n0:n0+16]: two boxes of 1 KiB, so the copies and the
// pipeline's synchronisation, not the arithmetic (16 FMAs per thread per stage), set the pace.
namespace smallgemm_shape {
constexpr int threads = 256;
constexpr int tile = 16;                         // output tile: tile x tile elements per CTA
constexpr int bk = 16;                           // K-step: columns of A / rows of B per stage
using a_box = porter::box<float, tile, bk>;      // rows m0.., columns k0.. of A
using b_box = porter::box<float, bk, tile>;      // rows k0.., columns n0.. of B
constexpr double flops_per_stage = 2.0 * tile * tile * bk;
/// M = N = K of porter-bench's problem (bench/README.md says why 2048 and not 4096).
constexpr int size = 2048;
static_assert(threads == tile * tile, "one C element per thread");
}  // namespace smallgemm_shape

// ---- copy2d: y = x over an h x w fp32 grid, global -> shared -> global (async_copy, async_store) ---
// 16 x 256 tiles (16 KiB, 1 KiB rows: TMA's widest box row of fp32); each tile is copied in, then
// stored from the landed stage. H200, session 26 (9 rounds interleaved with cudaMemcpy, median
// ratios; bench/results/h200-2026-12-03-session26): 16 x 256 against 32 x 128 at 4 CTAs per SM:
// tma 0.9999x (128 threads) / 0.9956x (256), cp_async 1.0026 / 1.0009x, staged 1.0021 / 0.9986x
// (256). The tma configuration measured 0.998x in three later runs: within run-to-run spread.
namespace copy2d_shape {
/// CTA size per path: on tma one thread issues the tile's copy and store and the others only wait
/// (fewer waiting warps per SM); cp_async and staged move the bytes with every thread.
template <class Path>
inline constexpr int threads_of = Path::id == porter::path_id::tma ? 128 : 256;
constexpr int tile_h = 16, tile_w = 256;
using box = porter::box<float, tile_h, tile_w>;
constexpr int size = 16384;  // 16384 x 16384 fp32: 1 GiB read, 1 GiB written
}  // namespace copy2d_shape

// ---- transpose: y = x^T (x is h x w, y is w x h, fp32), 32 x 32 tiles of 128-byte rows ------------
// A column-reading consumer: warp g reads the 16-byte chunk of columns 4g..4g+3 in every row (lane l:
// row l), so a warp's 32 loads touch one chunk position in 32 rows: 32-way bank conflicts when dense
// (each 128-byte row starts in bank 0), none with the 128 B swizzle (8 chunk positions x 4 banks
// cover all 32 banks every 8 rows: 4 wavefronts, the minimum for 512 bytes). It then writes 4 rows
// of y, each 32 consecutive floats (coalesced).
namespace transpose_shape {
constexpr int threads = 256;
constexpr int tile = 32;
template <porter::swizzle S>
using box = std::conditional_t<S == porter::swizzle::none, porter::box<float, tile, tile>, porter::swizzled<porter::box<float, tile, tile>, S>>;
constexpr int size = 16384;
static_assert(threads == 32 * (tile / 4), "one warp per 4 columns");
}  // namespace transpose_shape

// ---- bf16gemm: C[M][N] (fp32) = A[M][K] (bf16) * B[N][K]^T (bf16), "TN": both operands K-major -----
// Tensor cores through mma.sync.m16n8k16 (kernels/mma_consumer.cuh) fed by porter::load_fragments.
// CTA tile 128 x 256, K-tile 64 (128-byte rows: one 128 B swizzle span), 256 threads = 8 warps in a
// 2 (M) x 4 (N) grid, warp tile 64 x 64 (4 x 8 mma tiles of 16 x 8: 128 fp32 accumulators per
// thread). A stage holds A[m0:+128][k0:+64] (16 KiB) and B[n0:+256][k0:+64] (32 KiB), both landed
// 128 B-swizzled, so every ldmatrix phase (8 rows x 16 B of one chunk column) hits 8 different bank
// groups: conflict-free. 3 stages by default: 144 KiB of ring (+ 1 KiB barrier header, 1 KiB
// alignment slack), which fits sm_80's 163 KiB per CTA as well as sm_90's 227 KiB; 4 stages (194 KiB)
// fit sm_90 only (the stage sweep has 1..4).
namespace bf16gemm_shape {
using element = __nv_bfloat16;
constexpr int threads = 256;
constexpr int bm = 128, bn = 256, bk = 64;       // CTA tile (elements)
constexpr int warps_m = 2, warps_n = 4;          // warp grid
constexpr int wm = bm / warps_m, wn = bn / warps_n;  // warp tile: 64 x 64
constexpr int mt = wm / 16, nt = wn / 8;         // mma tiles per warp: 4 (M) x 8 (N)
constexpr int ksteps = bk / 16;                  // mma k-steps per stage: 4
constexpr int group_m = 8;                       // tile rows per rasterization group (bf16gemm_grouped_origin)
/// pb_bf16gemm issues a stage's refill behind this k-step's MMAs (-1: right after the wait, before
/// any fragment load). H200, 8192^3, S = 3 (session 31, bench/results/h200-2026-12-04-session31):
/// refill -1 / 0 / 1 / 2 ran tma at 421.8 / 432.7 / 433.2 / 425.4 TFLOP/s and cp_async at
/// 307.3 / 325.7 / 333.1 / 331.3: the copies issued behind k-step 1's MMAs (the second k-step) no
/// longer delay the stage's first fragment loads (cp_async: +8%), and issued later they leave fewer
/// steps in flight.
constexpr int refill_kstep = 1;
static_assert(refill_kstep >= -1 && refill_kstep < ksteps, "refill_kstep: -1 (right after the wait) or a k-step of the stage");
using a_box = porter::swizzled<porter::box<element, bm, bk>, porter::swizzle::b128>;  // rows m, columns k
using b_box = porter::swizzled<porter::box<element, bn, bk>, porter::swizzle::b128>;  // rows n, columns k
constexpr double flops_per_stage = 2.0 * bm * bn * bk;
/// The lowest compute capability of the consumer (mma.sync with bf16 operands), whatever the path.
constexpr int min_cc = 80;
static_assert(threads == 32 * warps_m * warps_n, "one warp per warp tile");
static_assert(wm % 16 == 0 && wn % 16 == 0 && bk % 16 == 0, "warp tiles are whole m16n8k16 tiles, B loaded two n8 tiles at a time");
}  // namespace bf16gemm_shape

// ---- bf16gemm, warpgroup consumer (sm_90a): the same GEMM and boxes as bf16gemm_shape, computed with
// wgmma.mma_async (kernels/wgmma_consumer.cuh) by two consumer warpgroups while one producer
// warpgroup fills the ring through a porter::role_pipeline. CTA tile 128 x 256, K-tile 64; consumer
// warpgroup c owns rows 64 c .. 64 c + 63 (one m64n256k16 per 16 columns of K: 4 per stage, 128 fp32
// accumulators per thread). 4 stages x 48 KiB = 192 KiB of ring (sm_90's 227 KiB per CTA).
// Registers: without reallocation every path fits the 168 that 384 threads leave each (ptxas 13.0:
// tma 162, cp_async 156, staged 159, no spill). roles_setmaxnreg (producers 40, consumers 232:
// 64,512 of 65,536) is a tma row of its own: on cp_async and staged the producers' thread copies
// spill at 40 (136 and 1,696 bytes).
// Tiles are visited in groups of group_m tile rows (the order Triton's tutorial matmul uses), so the
// CTAs resident at one time share A and B blocks in L2.
namespace bf16gemm_wgmma_shape {
using element = __nv_bfloat16;
using roles = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>>;  // every path: 162 / 156 / 159 registers, no spill
using roles_setmaxnreg = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>, porter::registers<40, 232>>;  // tma only
constexpr int threads = int(roles::threads);          // 384
constexpr int bm = bf16gemm_shape::bm, bn = bf16gemm_shape::bn, bk = bf16gemm_shape::bk;
constexpr int wg_m = 64;                              // rows per consumer warpgroup (wgmma M)
constexpr int ksteps = bk / 16;                       // wgmma k-steps per stage: 4
constexpr int group_m = bf16gemm_shape::group_m;      // tile rows per rasterization group
using a_box = bf16gemm_shape::a_box;
using b_box = bf16gemm_shape::b_box;
constexpr double flops_per_stage = bf16gemm_shape::flops_per_stage;
/// wgmma is an sm_90a feature: the kernel is built for sm_90a only and needs a 9.0 device.
constexpr int min_cc = 90;
static_assert(bm == 2 * wg_m && bn == 256, "two consumer warpgroups of m64n256");
}  // namespace bf16gemm_wgmma_shape

// ---- bf16gemm, mma.sync consumers with producer/consumer roles (sm_90a): pb_bf16gemm_roles, the
// MMA warps of bf16gemm_shape fed by one producer warpgroup through a porter::role_pipeline.
// 384 threads hold 168 registers each (the CTA's pool: 64,512), and the MMA warps need 208 or more
// (pb_bf16gemm: 208-219 on tma and cp_async), so every row reallocates (setmaxnreg), within the pool:
// P x 128 + C x 256 <= 64,512 (porter::roles checks it; 96 / 208 = 65,536 hung in setmaxnreg.inc).
// The split is the path's; ptxas 13.0 (sm_90a):
//   tma       40 / 232: no spill (one thread issues the two boxes; 12 B of stores are CALL return
//             addresses of the 64-bit tile division);
//   cp_async  88 / 208: 36 B spill, in the producers' chunk walk (72 / 216: 56 B; 56 / 224 and
//             40 / 232 more); 104 / 200 and 120 / 192 spill nothing (session 35: the consumers fit
//             in 192, so the spill that grows as the producers get fewer registers is theirs);
//   staged    88 / 208: no spill (56 / 224: 120 B; the producers hold a stage's loads in registers).
// Measured on the H200 (session 31, porter-bench --only bf16gemm, 8192^3, cuBLAS 673.7 TFLOP/s):
// tma 40 / 232 S = 3 456.4 TFLOP/s against the CTA-collective kernel's 433.2; cp_async 88 / 208
// S = 3 396.7 (72 / 216: 391.4) against 333.1; staged 88 / 208 149.1 (72 / 216: 147.5) against 86.9.
// Until porter's tma role protocol fenced the async proxy before each consumer release (session
// 31), tma S = 4 computed wrong C at 8192^3 in 20 of 20 runs, in the warps that share
// sub-partition 0 with the issuing producer thread. With the fence it ran 0 of 20
// (backends/tma/porter/tma/role_protocol.hpp; bench/results/h200-2026-12-04-session31/NOTES.md).
// Final run (8192^3, cuBLAS 683.3): tma S = 3 / 4 449.0 / 449.2, cp_async 393.5 / 393.3, staged 149.0.
// Session 36 (H200, 8 runs of porter-bench --only bf16gemm, S = 3, TFLOP/s): cp_async 104 / 200
// 409.1-414.6 against 88 / 208's 395.3-399.9 at 8192^3 (+3.5 to +4.7%), 432.6-440.3 against
// 382.2-403.4 at 4096^3 x2; 120 / 192 395.7-399.1 and 391.5-410.1 (no gain: the consumers at 192
// registers lose what the producers gain). staged was not measured at 104 / 200.
namespace bf16gemm_roles_shape {
template <int P, int C>
using roles_of = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>, porter::registers<P, C>>;
using roles_tma = roles_of<40, 232>;
using roles_cp_async = roles_of<104, 200>;  // the producer threads copy
using roles_staged = roles_of<88, 208>;     // the producer threads load and store
constexpr int threads = int(roles_tma::threads);  // 384
static_assert(int(roles_cp_async::threads) == threads && int(roles_staged::threads) == threads &&
                  int(roles_tma::consumer_threads) == bf16gemm_shape::threads,
              "the consumers are bf16gemm_shape's 8 MMA warps");
/// setmaxnreg is an sm_90a feature: the kernel is built for sm_90a only and needs a 9.0 device.
constexpr int min_cc = 90;
}  // namespace bf16gemm_roles_shape

/// Stage count each workload uses outside the stage sweep (compiled for every target).
constexpr int default_stages_stream = 4;
constexpr int default_stages_stencil = 3;
constexpr int default_stages_sgemm = 4;
constexpr int default_stages_smallgemm = 4;  // the sample's maxPipelineStages
/// copy2d's stages per path: occupancy beats depth. Measured on the H200 (session 25, one 32 x 128
/// tile per CTA, 16 KiB stages; build-scratch experiment, bench/results/h200-2026-12-03-session25;
/// the 16 x 256 tiles of session 26 have the same 16 KiB stages):
/// S = 2 / 3 / 4 ran tma at 0.99 / 1.00 / 0.96x cudaMemcpy (6 / 4 / 3 CTAs per SM), cp_async at
/// 0.99 / 1.00 / 0.97x, staged at 1.00 / 0.95 / 0.88x (4 / 4 / 3 CTAs per SM; staged keeps one
/// stage's loads in registers, so more stages add barriers, not bytes in flight).
template <class Path>
inline constexpr int default_stages_copy2d_of = Path::id == porter::path_id::staged ? 2 : 3;
constexpr int default_stages_copy2d = 3;  ///< the workload's fallback; every copy2d row states its own (kernel_desc::default_stages)
constexpr int default_stages_transpose = 4;
constexpr int default_stages_bf16gemm = 3;   // 3 x 48 KiB fits an A100's 163 KiB per CTA too (4 fits only sm_90's 227 KiB)
constexpr int default_stages_bf16gemm_wgmma = 4;  // sm_90a only: 4 x 48 KiB of sm_90's 227 KiB

}  // namespace pb
