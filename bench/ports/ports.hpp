// bench/ports/ports.hpp — the measured ports: one problem per idiom, shared by its "before" (the
// hand-written idiom, bench/ports/before_*.cu) and its "after" (the porter port, after.cuh), so
// that a pair differs only in how its bytes reach shared memory. porter-bench's `ports` workload
// (bench/src/workloads.cpp, run_ports) runs each pair on the same fresh random data and compares
// the outputs bit for bit.
#pragma once
#include <porter/box.hpp>

namespace pb::ports {

// ---- asm-cp-async: y = a x + b over n floats, 1D tiles of 4096 floats, S stages ------------------
// The hand-written multistage loop of inline `cp.async.cg` / `commit_group` / `wait_group S-2`
// on a persistent grid (CTA b takes tiles b, b + gridDim.x, ...); the consumer is
// compute.cuh's stream_consume (16-byte reads from the tile, fmaf, 16-byte stores).
namespace axpb {
constexpr int threads = 256;
constexpr int tile = 4096;                  // floats per stage (16 KiB)
constexpr int stages = 4;
using box = porter::box<float, tile>;
constexpr long long n = 1LL << 27;          // 512 MiB per buffer
constexpr float a = 1.5f, b = -0.25f;
}  // namespace axpb

// ---- cuda-barrier: one 5-point Jacobi step (0.25 x the 4 neighbours, zero outside) on h x w ----
// One 32 x 128 output tile per CTA, read as one 34 x 136 halo box (rows r0-1.., columns c0-4..) into
// one stage completed by a block-scoped cuda::barrier; the consumer is compute.cuh's
// stencil_consume<1>. Needs w % 128 == 0 and h % 32 == 0 (the "before" zero-fills by hand, by rows).
namespace jacobi {
constexpr int threads = 256;
constexpr int tile_h = 32, tile_w = 128, halo_w = 4;
constexpr int box_h = tile_h + 2, box_w = tile_w + 2 * halo_w;
using box = porter::box<float, box_h, box_w>;
constexpr int h = 8192, w = 8192;           // 256 MiB per grid
}  // namespace jacobi

// ---- cooperative-groups: the sum of every tile of 4096 floats (a blocked reduction) ----------------
// Double-buffered cg::memcpy_async of whole tiles with cg::wait_prior<1>, persistent grid; the
// consumer (tile_sum, below) sums in one fixed order, so every implementation gives the same bits.
namespace tilesum {
constexpr int threads = 256;
constexpr int tile = 4096;                  // floats per tile (16 KiB)
constexpr int stages = 2;
using box = porter::box<float, tile>;
constexpr long long n = 1LL << 27;          // 512 MiB; n % tile == 0
}  // namespace tilesum

// ---- public-matmul: cuda-samples globalToShmemAsyncCopy, MatrixMulAsyncCopySingleStage --------------------
// C = A B, row-major, A is hA x wA, B is wA x wB; a 16 x 16 C tile per CTA of 16 x 16 threads, one
// C element per thread, K-step 16, one stage (thread-scope cuda::pipeline in the original).
namespace matmul {
constexpr int block = 16;
using a_box = porter::box<float, block, block>;
using b_box = porter::box<float, block, block>;
constexpr int size = 2048;                  // hA = wA = wB
}  // namespace matmul

// ---- public-bf16gemm: cuda-samples bf16TensorCoreGemm, compute_bf16gemm_async_copy -----------------
// D = alpha (A B) + beta C with A (m x k, row-major) and B (stored n x k: column-major k x n) in
// bf16, C and D (m x n, row-major) in fp32, on tensor cores (nvcuda::wmma 16 x 16 x 16, fp32
// accumulate). A CTA of 8 warps computes 128 x 128 tiles of D on a persistent grid; each pipeline
// step brings a 128 x 128 chunk (K = 8 wmma tiles) of A and of B. The sample's sizes are
// compile-time macros: m = n = k = 8192. Box types: public_bf16gemm.cuh (they need cuda_bf16.h).
namespace bf16gemm {
constexpr int wmma_tile = 16;               // wmma M = N = K
constexpr int block_tile = 128;             // D tile per CTA iteration, elements per side
constexpr int chunk_k = 128;                // K elements per step (the sample's CHUNK_K = 8 tiles)
constexpr int skew = 16;                    // the sample's SKEW_BF16: shared row pitch 144 bf16 (288 B)
constexpr int warps = 8, threads = 32 * warps;
constexpr int c_rows = 16;                  // rows of C per step of the C ring (a 16 x 128 fp32 box)
constexpr int size = 8192;                  // m = n = k (the sample's M_GLOBAL, N_GLOBAL, K_GLOBAL)
constexpr float alpha = 1.1f, beta = 1.2f;  // the sample's
}  // namespace bf16gemm

// ---- cutlass: a CuTe sm80 multistage mainloop (cp.async atoms, cp_async_fence / cp_async_wait) ------
// The sgemm workload's problem and compute (kernels/shapes.hpp sgemm_shape, compute.cuh sgemm_mma,
// sgemm_store): C (m x n) = A B with A stored transposed (At, k x m) and B (k x n), row-major fp32;
// a 128 x 128 C tile per CTA of 256 threads, K-tile 8, 4 stages. The "before" (before_cute.cu) moves
// the 8 x 128 tiles of At and B with cute::copy over a TiledCopy of SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>
// atoms; its port is pb_port_cute (after.cuh): the same loop, grid and launch bounds, porter's
// pipeline for the ring, the copies and the waits.
namespace cute_gemm {
constexpr int stages = 4;
constexpr int size = 4096;                  // m = n = k
}  // namespace cute_gemm

}  // namespace pb::ports

namespace pb {
struct registry;
namespace ports {
// Each "before" translation unit adds its kernel to its pair (bench/ports/before_*.cu).
void register_before_asm_cp_async(registry& r);
void register_before_cuda_barrier(registry& r);
void register_before_cooperative_groups(registry& r);
// The CuTe "before" when the build has CUTLASS (PORTER_CUTLASS_DIR), else a note (before_cute.cu).
void register_before_cute(registry& r);
// The bf16 tensor-core port (public_bf16gemm.cu; built for targets >= sm_80 only) and the sample's
// original when PORTER_PORTS_ORIGINAL_BF16GEMM names it (public_original_bf16gemm.cu).
void register_public_bf16gemm_port(registry& r);
void register_public_bf16gemm_original(registry& r);
}  // namespace ports
}  // namespace pb
