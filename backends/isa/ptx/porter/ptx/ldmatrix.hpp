// porter/ptx/ldmatrix.hpp — warp-level matrix loads from shared memory to registers, one variant per
// function, and the lane id they are addressed by.
//
// The instruction layer (backends/isa/ptx): below the fragment loads of backends/fragments/nvidia,
// its only user.
//
// Source: PTX ISA 9.x, 9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix" (sm_75, PTX 6.5).
//   ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16 r, [p];
// The warp loads 1, 2 or 4 matrices of 8 x 8 b16 elements. Lane l supplies in `p` the shared address
// of row (l % 8) of matrix (l / 8); .x1 reads the addresses of lanes 0-7, .x2 of lanes 0-15, .x4 of
// all 32 (the others are ignored, but every lane must execute the instruction: .sync.aligned). Each
// row is 8 contiguous b16 = 16 bytes, and each row address must be 16-byte aligned. Lane l receives,
// per matrix m, one 32-bit register r[m] holding the elements (row l / 4, columns 2 (l % 4) and
// 2 (l % 4) + 1) of matrix m, the lower column in the low 16 bits. With .trans it receives those
// elements of the transposed matrix: (rows 2 (l % 4) and 2 (l % 4) + 1, column l / 4) of the
// matrix as stored.
//
// No "memory" clobber: ldmatrix is a synchronous load (CUTLASS's SM75_U32x*_LDSM_N wrappers have
// none either); the stores it reads are ordered before it by the CTA barrier that publishes them.
#pragma once
#include <cstdint>

#include "porter/ptx/common.hpp"

namespace porter::ptx {
#if defined(__CUDACC__)

/// mov.u32 r, %laneid;   (PTX ISA 10.3 "%laneid", every target) — this thread's lane in its warp, 0..31.
PORTER_DEVICE PORTER_FORCEINLINE std::uint32_t lane_id() {
  std::uint32_t l;
  asm("mov.u32 %0, %%laneid;" : "=r"(l));  // not volatile: the same value at every read, so it may be shared
  return l;
}

/// ldmatrix.sync.aligned.m8n8.x1.shared.b16 {r0}, [row];   (sm_75) `row`: lanes 0-7's row addresses.
PORTER_DEVICE PORTER_FORCEINLINE void ldmatrix_m8n8_x1_b16(std::uint32_t (&r)[1], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(smem_addr(row)));
}

/// ldmatrix.sync.aligned.m8n8.x2.shared.b16 {r0, r1}, [row];   (sm_75) lanes 0-15 address.
PORTER_DEVICE PORTER_FORCEINLINE void ldmatrix_m8n8_x2_b16(std::uint32_t (&r)[2], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr(row)));
}

/// ldmatrix.sync.aligned.m8n8.x4.shared.b16 {r0, r1, r2, r3}, [row];   (sm_75) all 32 lanes address.
PORTER_DEVICE PORTER_FORCEINLINE void ldmatrix_m8n8_x4_b16(std::uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(row)));
}

/// ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {r0}, [row];   (sm_75) the transposed matrix.
PORTER_DEVICE PORTER_FORCEINLINE void ldmatrix_m8n8_x1_trans_b16(std::uint32_t (&r)[1], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(smem_addr(row)));
}

/// ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {r0, r1}, [row];   (sm_75)
PORTER_DEVICE PORTER_FORCEINLINE void ldmatrix_m8n8_x2_trans_b16(std::uint32_t (&r)[2], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(smem_addr(row)));
}

/// ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {r0, r1, r2, r3}, [row];   (sm_75)
PORTER_DEVICE PORTER_FORCEINLINE void ldmatrix_m8n8_x4_trans_b16(std::uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(row)));
}

#endif  // __CUDACC__
}  // namespace porter::ptx
