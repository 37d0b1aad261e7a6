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

}  // namespace pb::ports

namespace pb {
struct registry;
namespace ports {
// Each "before" translation unit adds its kernel to its pair (bench/ports/before_*.cu).
void register_before_asm_cp_async(registry& r);
void register_before_cuda_barrier(registry& r);
void register_before_cooperative_groups(registry& r);
}  // namespace ports
}  // namespace pb
