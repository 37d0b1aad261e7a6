// bench/kernels/mma_consumer.cuh — the tensor-core consumer of porter-bench's bf16 GEMM: one warp-level
// mma.sync, fed by porter::load_fragments. The ONLY inline PTX of the bench kernels (bench/README.md):
// the kernels that use it (bf16gemm.cuh) stay free of PTX and architecture conditionals.
//
// Instruction (PTX ISA 9.7.14.5.14 "mma"; sm_80+, PTX 7.0):
//   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3};
// D (16 x 8, fp32) = A (16 x 16, bf16, row) * B (16 x 8, bf16, col) + C (16 x 8, fp32), one per warp,
// all 32 lanes converged (.sync.aligned). Products of bf16 are exact in fp32; the sum is fp32.
//
// Fragment layouts it expects (PTX ISA 9.7.14.5.8, "Matrix Fragments for mma.m16n8k16 with floating
// point type"), lane l, g = l / 4, t = l % 4; each 32-bit register holds two bf16, the lower column
// (A) or the lower k (B) in bits 0-15:
//   A  a0 = A(g, 2t..2t+1)   a1 = A(g+8, 2t..2t+1)   a2 = A(g, 2t+8..2t+9)   a3 = A(g+8, 2t+8..2t+9)
//   B  b0 = B(k = 2t..2t+1, n = g)                   b1 = B(k = 2t+8..2t+9, n = g)
//   C  c0, c1 = C(g, 2t), C(g, 2t+1)                 c2, c3 = C(g+8, 2t), C(g+8, 2t+1)
// These are exactly what porter::load_fragments hands out (porter/fragment.hpp: 8x8 matrices taken
// down the columns first, ldmatrix's per-lane layout): load_fragments<16, 16>(tile, m0, k0) of a
// row-major [m][k] tile is A (a0..a3 = reg[0..3]); load_fragments<8, 16>(tile, n0, k0) of a K-major
// [n][k] tile is B (b0, b1 = reg[0], reg[1]); load_fragments<16, 16>(tile, n0, k0) of the same
// [n][k] tile taken along the rows (porter::along_rows) is B of the two n8 tiles n0 and n0 + 8 at
// once, each in adjacent registers (b_fragment below splits it). No other
// load is needed: both operands of a TN GEMM are K-major and read with non-transposed ldmatrix.
//
// Below sm_80 (sm_75 is one of the bench's targets) the instruction does not exist: the function
// compiles to a trap stub with a message there (porter::arch::has_mma_bf16), and porter-bench
// refuses the bf16gemm rows on such a device before launch (their min_cc is 80).
#pragma once
#include <porter/config.hpp>
#include <porter/detail/trap.hpp>
#include <porter/fragment.hpp>

namespace pb {

/// acc += A * B for one m16n8k16 tile: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
/// (PTX ISA 9.7.14.5.14; sm_80+). `a`: A's 16 x 16 bf16 fragment (load_fragments<16, 16> of a
/// [m][k] tile), `b`: B's 16 (k) x 8 (n) bf16 fragment (load_fragments<8, 16> of a [n][k] tile, or
/// b_fragment of a <16, 16> load along the rows), `acc`: the 16 x 8 fp32 accumulators in the C layout above.
/// Warp-collective: all 32 lanes, converged. Below sm_80: traps ("mma.sync bf16 needs sm_80").
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&acc)[4], const porter::fragment<4>& a, const porter::fragment<2>& b) {
  // The preprocessor guard (config.hpp's capability macro), not only `if constexpr`: a HIP compile
  // (which parses every bench header) checks the PTX constraints of a discarded branch too.
#if PORTER_ARCH_HAS_MMA_BF16
  // Not volatile: no side effects, so the compiler may schedule it among the fragment loads.
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a.reg[0]), "r"(a.reg[1]), "r"(a.reg[2]), "r"(a.reg[3]), "r"(b.reg[0]), "r"(b.reg[1]));
#else
  (void)acc, (void)a, (void)b;
  porter::detail::trap("mma.sync.aligned.m16n8k16 with bf16 operands needs sm_80 or newer");
#endif
}

/// B fragment of n8 tile j (0: rows n0..n0+7, 1: rows n0+8..n0+15) out of one
/// load_fragments<16, 16>(tile, n0, k0, porter::along_rows) of a K-major [n][k] tile: its matrices
/// are (n0, k0), (n0, k0+8), (n0+8, k0), (n0+8, k0+8), so tile j's b0, b1 are reg[2j], reg[2j + 1]:
/// adjacent, the register pair mma reads (no copy between the load and the mma). Registers only.
__device__ __forceinline__ porter::fragment<2> b_fragment(const porter::fragment<4>& pair, int j) {
  return porter::fragment<2>{{pair.reg[2 * j], pair.reg[2 * j + 1]}};
}

}  // namespace pb
