// bench/ports/public_bf16gemm.cuh — the port of a public tensor-core kernel: NVIDIA cuda-samples
// Samples/3_CUDA_Features/bf16TensorCoreGemm, kernel compute_bf16gemm_async_copy (commit c94ff366),
// written from porter-port's report on the sample and docs/porting.md only. The sample's code is not
// in this repository (bench/README.md, "ports", says how porter-bench times it against the original).
//
// D = alpha (A B) + beta C (ports.hpp, bf16gemm): A m x k row-major bf16, B stored n x k (column-major
// k x n) bf16, C and D m x n row-major fp32. A CTA of 8 warps walks 128 x 128 tiles of D on a
// persistent grid (tile t = blockIdx.x, + gridDim.x, ...; row-major over the tiles); warp w computes
// the 32 x 64 block at rows 32 (w / 2), columns 64 (w % 2) of the tile as 2 x 4 wmma accumulators.
//
// What moved to porter (the data movement only):
//   * A and B: the sample's thread-scope cuda::pipeline of 16-byte cuda::memcpy_async chunks (16 per
//     lane per K chunk, each acquired and committed alone, then wait_prior<0> and __syncthreads) is a
//     porter::pipeline<Path, S, ab_box, ab_box> whose step holds a 128-row box of A at (m0, k0) and one
//     of B at (n0, k0). The box is 128 x (128 + 16): it reads the 16 columns past the chunk too, so the
//     tile lands with the sample's skewed row pitch of 144 bf16 (288 B) and the wmma loads keep their
//     leading dimension and their conflict-free banks (porter lands boxes dense; a box 16 columns wider
//     is how a dense box gets the padded pitch, for 12.5 % more bytes from L2; past k they read zero).
//     Pitch = 128 (impl `porter-dense`) is the plain dense box with ldm 128, for comparison.
//   * C: the sample's 16 chunks per lane into a 128 x 128 fp32 staging tile are a second, 2-stage ring
//     of 16 x 128 fp32 boxes (8 steps per tile); warp w loads its accumulators from step 2 (w / 2) + i.
//     The two rings share the dynamic shared memory through porter::shared_layout.
//   * Shared memory to registers: the sample's wmma::load_matrix_sync / store_matrix_sync of its
//     shared tiles are porter::load_matrix_sync / store_matrix_sync (porter/wmma.hpp): the same
//     fragments, read with the shared state space. nvcc 13 emits the sample's operand loads as
//     generic wmma.load, which ptxas lowers to generic LD through the LSU's local/global path: the
//     sample spends 29% of its warp-stall samples on "lg throttle" there (ncu, H100, session 48).
//     PorterLoads = false (impl `porter-nvcuda-loads`) keeps nvcuda's loads, for comparison; the
//     kernel calls them through wmma_access (wmma_access.cuh), which picks one or the other.
// What did not move (the compute, unchanged): nvcuda::wmma fragments, mma_sync in the sample's order
// (K chunks in order, k_step 0..7, i then j), the beta / alpha scaling, and the epilogue (the
// accumulators stored into shared memory, then 16-byte stores of whole rows to D). So D is
// bit-identical to the sample's on the same data.
//
// Shared memory: the epilogue stages the 128 x 128 fp32 D tile (64 KiB) in the last K step's landed
// stage (both buffers, contiguous), then releases it with porter::stage_written.
// Preconditions (checked on the host, public_bf16gemm.cu): k >= 1, n % 4 == 0 (16-byte rows of C
// and D), every pointer 16-byte aligned. Sizes need not be multiples of 128: boxes read zeros outside
// A, B and C, and the stores of D are bounds-checked by rows and 4-column chunks. Needs bf16 tensor
// cores (sm_80+): the translation unit is built only for such targets, never with an arch #if here.
#pragma once
#include <cuda_bf16.h>
#include <mma.h>

#include <porter/porter.hpp>
#include <porter/shared_layout.hpp>
#include <porter/wmma.hpp>

#include "ports.hpp"
#include "wmma_access.cuh"

namespace pb::ports {
namespace bf16gemm {
/// A 128-row slab of A or B for one K chunk, `Pitch` bf16 per row (144: the sample's skewed pitch;
/// 128: dense). Its first 128 columns are the chunk.
template <int Pitch>
using ab_box = porter::box<__nv_bfloat16, block_tile, Pitch>;
/// 16 rows of the CTA's 128 x 128 C tile, fp32 (8 KiB).
using c_box = porter::box<float, c_rows, block_tile>;
/// The two rings of a CTA: S stages of {A slab, B slab}, 2 stages of C rows.
template <class Path, int S, int Pitch>
struct rings {
  using ab = porter::pipeline<Path, S, ab_box<Pitch>, ab_box<Pitch>>;
  using c = porter::pipeline<Path, 2, c_box>;
  using layout = porter::shared_layout<ab, c>;
};
}  // namespace bf16gemm

/// The port of compute_bf16gemm_async_copy on path `Path` with `S` stages of A and B (1: the
/// sample's; 2: overlapped), shared row pitch `Pitch` (144 or 128 bf16) and the fragments read by
/// porter::load_matrix_sync (PorterLoads) or by nvcuda::wmma's own loads. 256 threads; dynamic
/// shared memory rings<Path, S, Pitch>::layout::bytes. See the file comment.
template <class Path, int S, int Pitch, bool PorterLoads = true>
__global__ void __launch_bounds__(bf16gemm::threads)
    pb_port_bf16gemm(const __grid_constant__ porter::tiled_source<bf16gemm::ab_box<Pitch>> A,
                     const __grid_constant__ porter::tiled_source<bf16gemm::ab_box<Pitch>> B,
                     const __grid_constant__ porter::tiled_source<bf16gemm::c_box> C, float* __restrict__ D, int m, int n,
                     int k, float alpha, float beta) {
  using namespace nvcuda;
  using namespace bf16gemm;
  static_assert(Pitch >= chunk_k && Pitch % 16 == 0, "the shared row pitch holds the chunk and keeps rows 32-byte aligned");
  using R = rings<Path, S, Pitch>;
  using frag = wmma_access<PorterLoads>;  // porter::load_matrix_sync / store_matrix_sync, or nvcuda's (file comment)
  static_assert(R::ab::ring::buffer_offset(1) == ab_box<Pitch>::bytes && 2 * ab_box<Pitch>::bytes >= sizeof(float) * block_tile * block_tile,
                "the epilogue stages the 128 x 128 fp32 D tile across a stage's two buffers");
  extern __shared__ __align__(128) unsigned char smem[];
  typename R::ab ab(R::layout::template part<0>(smem));
  typename R::c cring(R::layout::template part<1>(smem));

  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int tiles_n = (n + block_tile - 1) / block_tile;
  const int tiles = (m + block_tile - 1) / block_tile * tiles_n;
  const int chunks = (k + chunk_k - 1) / chunk_k;
  const int wrow = (warp / 2) * 32, wcol = (warp % 2) * 64;  // this warp's block of the tile
  beta /= alpha;  // the sample's: C is scaled by beta / alpha, the sum by alpha at the end

  for (int t = int(blockIdx.x); t < tiles; t += int(gridDim.x)) {
    const int m0 = t / tiles_n * block_tile, n0 = t % tiles_n * block_tile;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[2][4];

    // C: 8 steps of 16 rows; warp w takes its accumulators c[i][*] from step 2 (w / 2) + i.
    porter::run_pipeline(
        cring, block_tile / c_rows,
        [&](auto& slot, int s) { porter::async_copy(porter::buffer<0>(slot), C, porter::coord<2>{m0 + s * c_rows, n0}); },
        [&](auto& ready, int s) {
          const float* rows = ready.template tile<0>().data();
#pragma unroll
          for (int i = 0; i < 2; ++i) {
            if (wrow / 16 + i != s) continue;
#pragma unroll
            for (int j = 0; j < 4; ++j) {
              frag::load(c[i][j], rows + wcol + j * 16, block_tile, wmma::mem_row_major);
#pragma unroll
              for (int e = 0; e < c[i][j].num_elements; e++) c[i][j].x[e] *= beta;
            }
          }
        });

    // A and B: one step per K chunk, S - 1 steps ahead; the refill of the stage released one step
    // earlier is issued right after the wait (whose barrier covers the stage's reuse).
    int issued = 0;
    auto issue = [&] {
      auto slot = ab.producer_acquire();
      porter::async_copy(porter::buffer<0>(slot), A, porter::coord<2>{m0, issued * chunk_k});
      porter::async_copy(porter::buffer<1>(slot), B, porter::coord<2>{n0, issued * chunk_k});
      ab.producer_commit(slot);
      ++issued;
    };
    while (issued < chunks && issued < S - 1) issue();
    for (int kc = 0; kc < chunks; ++kc) {
      if (S == 1) issue();
      auto ready = ab.consumer_wait();
      if (S > 1 && issued < chunks) issue();
      const __nv_bfloat16* as = ready.template tile<0>().data();
      const __nv_bfloat16* bs = ready.template tile<1>().data();
#pragma unroll
      for (int k_step = 0; k_step < chunk_k / wmma_tile; k_step++) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[2];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b[4];
#pragma unroll
        for (int i = 0; i < 2; i++) {
          frag::load(a[i], as + (wrow + i * 16) * Pitch + k_step * wmma_tile, Pitch);
#pragma unroll
          for (int j = 0; j < 4; j++) {
            if (i == 0) frag::load(b[j], bs + (wcol + j * 16) * Pitch + k_step * wmma_tile, Pitch);
            wmma::mma_sync(c[i][j], a[i], b[j], c[i][j]);
          }
        }
      }
      if (kc + 1 < chunks) {
        ab.consumer_release(ready);
        continue;
      }
      // Epilogue, in the landed last stage (porter/shared_layout.hpp, "Writing into a landed stage").
      __syncthreads();  // every warp has read the stage's A and B
      float* stage = reinterpret_cast<float*>(const_cast<unsigned char*>(ready.template bytes<0>()));
#pragma unroll
      for (int i = 0; i < 2; i++) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
#pragma unroll
          for (int e = 0; e < c[i][j].num_elements; e++) c[i][j].x[e] *= alpha;
          frag::store(stage + (wrow + i * 16) * block_tile + wcol + j * 16, c[i][j], block_tile, wmma::mem_row_major);
        }
      }
      __syncthreads();
      // Warp w stores rows 16 w .. 16 w + 15 of the tile, lane l the 16 bytes at column 4 l.
#pragma unroll
      for (int r = 0; r < wmma_tile; r++) {
        const int row = warp * wmma_tile + r, col = 4 * lane;
        if (m0 + row < m && n0 + col < n)
          *reinterpret_cast<int4*>(D + static_cast<long long>(m0 + row) * n + n0 + col) =
              *reinterpret_cast<const int4*>(stage + row * block_tile + col);
      }
      __syncthreads();
      ab.consumer_release(ready, porter::stage_written);
    }
  }
}

}  // namespace pb::ports
