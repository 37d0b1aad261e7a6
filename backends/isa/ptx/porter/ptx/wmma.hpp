// porter/ptx/wmma.hpp — wmma fragment loads and stores that name the shared state space, one
// function per instruction variant.
//
// The instruction layer (backends/isa/ptx): below the wmma fragment access of
// backends/fragments/nvidia (porter/fragments/wmma.hpp), its only user.
//
// Source: PTX ISA 9.x, section 9.7.14.4 "Matrix multiply-accumulate operation using wmma
// instructions": "wmma.load" and "wmma.store" (f16: sm_70, PTX 6.0; bf16: sm_80, PTX 7.0).
//   wmma.load.{a,b}.sync.aligned.{row,col}.{m16n16k16,m32n8k16,m8n32k16}.shared.{f16,bf16} r, [p], ldm;
//   wmma.load.c.sync.aligned.{row,col}.{shape}.shared.f32 r, [p], ldm;
//   wmma.store.d.sync.aligned.{row,col}.{shape}.shared.f32 [p], r, ldm;
// Warp-collective (.sync.aligned: all 32 lanes, converged, the same p and ldm). `p` is the 32-bit
// shared-window address of the matrix's first element, 32-byte aligned; `ldm` is the distance
// between consecutive rows (row) or columns (col) in elements, a multiple of 16 bytes. The
// registers hold the fragment in the layout the instruction defines for that shape, type and
// layout, which does not depend on the state space: the same registers as the generic form that
// nvcuda::wmma::load_matrix_sync emits for operands (nvcc 13 passes their pointer as a generic
// address even when it points into a __shared__ array, and ptxas then emits generic LD
// instructions, which queue in the LSU's local/global path). Registers per lane: f16 a and b 8 (f16x2); bf16 a/b: m16n16k16 4
// and 4, m32n8k16 8 and 2, m8n32k16 2 and 8; f32 c and d 8.
//
// Loads: volatile (kept in order with the pipeline's waits, which are volatile too), no "memory"
// clobber, like ldmatrix (porter/ptx/ldmatrix.hpp): the stores they read are ordered before them by
// the barrier that publishes them. Stores: volatile with a "memory" clobber, so that no later read
// of that shared memory is moved above them.
#pragma once
#include <cstdint>

#include "porter/ptx/common.hpp"

namespace porter::ptx {
#if defined(__CUDACC__)

// One load function per variant: NAME(std::uint32_t (&r)[N], std::uint32_t p, std::uint32_t ldm).
#define PORTER_PTX_WMMA_LOAD2(NAME, INSTR)                                                                \
  PORTER_DEVICE PORTER_FORCEINLINE void NAME(std::uint32_t (&r)[2], std::uint32_t p, std::uint32_t ldm) { \
    asm volatile(INSTR " {%0, %1}, [%2], %3;" : "=r"(r[0]), "=r"(r[1]) : "r"(p), "r"(ldm));              \
  }
#define PORTER_PTX_WMMA_LOAD4(NAME, INSTR)                                                                \
  PORTER_DEVICE PORTER_FORCEINLINE void NAME(std::uint32_t (&r)[4], std::uint32_t p, std::uint32_t ldm) { \
    asm volatile(INSTR " {%0, %1, %2, %3}, [%4], %5;"                                                     \
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])                                         \
                 : "r"(p), "r"(ldm));                                                                     \
  }
#define PORTER_PTX_WMMA_LOAD8(NAME, INSTR)                                                                \
  PORTER_DEVICE PORTER_FORCEINLINE void NAME(std::uint32_t (&r)[8], std::uint32_t p, std::uint32_t ldm) { \
    asm volatile(INSTR " {%0, %1, %2, %3, %4, %5, %6, %7}, [%8], %9;"                                     \
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),   \
                   "=r"(r[7])                                                                             \
                 : "r"(p), "r"(ldm));                                                                     \
  }
// bf16 needs sm_80: below it the function traps (the instruction does not exist there).
#if PORTER_ARCH_HAS_MMA_BF16
#define PORTER_PTX_WMMA_LOAD_BF16(N, NAME, INSTR) PORTER_PTX_WMMA_LOAD##N(NAME, INSTR)
#else
#define PORTER_PTX_WMMA_LOAD_BF16(N, NAME, INSTR)                                                         \
  PORTER_DEVICE PORTER_FORCEINLINE void NAME(std::uint32_t (&r)[N], std::uint32_t, std::uint32_t) {     \
    for (int i = 0; i < N; ++i) r[i] = 0;                                                                 \
    trap_with(INSTR ": bf16 wmma needs sm_80 or newer");                                                  \
  }
#endif

// f16 operands: 8 registers (f16x2) for every shape.
#define PORTER_PTX_WMMA_F16(USE, LAYOUT, SHAPE) \
  PORTER_PTX_WMMA_LOAD8(wmma_load_##USE##_##SHAPE##_##LAYOUT##_f16, "wmma.load." #USE ".sync.aligned." #LAYOUT "." #SHAPE ".shared.f16")
PORTER_PTX_WMMA_F16(a, row, m16n16k16)
PORTER_PTX_WMMA_F16(a, col, m16n16k16)
PORTER_PTX_WMMA_F16(b, row, m16n16k16)
PORTER_PTX_WMMA_F16(b, col, m16n16k16)
PORTER_PTX_WMMA_F16(a, row, m32n8k16)
PORTER_PTX_WMMA_F16(a, col, m32n8k16)
PORTER_PTX_WMMA_F16(b, row, m32n8k16)
PORTER_PTX_WMMA_F16(b, col, m32n8k16)
PORTER_PTX_WMMA_F16(a, row, m8n32k16)
PORTER_PTX_WMMA_F16(a, col, m8n32k16)
PORTER_PTX_WMMA_F16(b, row, m8n32k16)
PORTER_PTX_WMMA_F16(b, col, m8n32k16)
#undef PORTER_PTX_WMMA_F16

// bf16 operands: the register count depends on the shape and the operand.
#define PORTER_PTX_WMMA_BF16(N, USE, LAYOUT, SHAPE)                  \
  PORTER_PTX_WMMA_LOAD_BF16(N, wmma_load_##USE##_##SHAPE##_##LAYOUT##_bf16, \
                            "wmma.load." #USE ".sync.aligned." #LAYOUT "." #SHAPE ".shared.bf16")
PORTER_PTX_WMMA_BF16(4, a, row, m16n16k16)
PORTER_PTX_WMMA_BF16(4, a, col, m16n16k16)
PORTER_PTX_WMMA_BF16(4, b, row, m16n16k16)
PORTER_PTX_WMMA_BF16(4, b, col, m16n16k16)
PORTER_PTX_WMMA_BF16(8, a, row, m32n8k16)
PORTER_PTX_WMMA_BF16(8, a, col, m32n8k16)
PORTER_PTX_WMMA_BF16(2, b, row, m32n8k16)
PORTER_PTX_WMMA_BF16(2, b, col, m32n8k16)
PORTER_PTX_WMMA_BF16(2, a, row, m8n32k16)
PORTER_PTX_WMMA_BF16(2, a, col, m8n32k16)
PORTER_PTX_WMMA_BF16(8, b, row, m8n32k16)
PORTER_PTX_WMMA_BF16(8, b, col, m8n32k16)
#undef PORTER_PTX_WMMA_BF16

// f32 accumulators: 8 registers for every shape, loaded (c) and stored (d).
#define PORTER_PTX_WMMA_F32(LAYOUT, SHAPE)                                                                        \
  PORTER_DEVICE PORTER_FORCEINLINE void wmma_load_c_##SHAPE##_##LAYOUT##_f32(float (&r)[8], std::uint32_t p,       \
                                                                             std::uint32_t ldm) {                   \
    asm volatile("wmma.load.c.sync.aligned." #LAYOUT "." #SHAPE ".shared.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8], %9;" \
                 : "=f"(r[0]), "=f"(r[1]), "=f"(r[2]), "=f"(r[3]), "=f"(r[4]), "=f"(r[5]), "=f"(r[6]), "=f"(r[7])  \
                 : "r"(p), "r"(ldm));                                                                               \
  }                                                                                                                 \
  PORTER_DEVICE PORTER_FORCEINLINE void wmma_store_d_##SHAPE##_##LAYOUT##_f32(std::uint32_t p, const float (&r)[8], \
                                                                              std::uint32_t ldm) {                  \
    asm volatile("wmma.store.d.sync.aligned." #LAYOUT "." #SHAPE ".shared.f32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8}, %9;" \
                 :                                                                                                  \
                 : "r"(p), "f"(r[0]), "f"(r[1]), "f"(r[2]), "f"(r[3]), "f"(r[4]), "f"(r[5]), "f"(r[6]), "f"(r[7]),  \
                   "r"(ldm)                                                                                         \
                 : "memory");                                                                                       \
  }
PORTER_PTX_WMMA_F32(row, m16n16k16)
PORTER_PTX_WMMA_F32(col, m16n16k16)
PORTER_PTX_WMMA_F32(row, m32n8k16)
PORTER_PTX_WMMA_F32(col, m32n8k16)
PORTER_PTX_WMMA_F32(row, m8n32k16)
PORTER_PTX_WMMA_F32(col, m8n32k16)
#undef PORTER_PTX_WMMA_F32

#undef PORTER_PTX_WMMA_LOAD_BF16
#undef PORTER_PTX_WMMA_LOAD2
#undef PORTER_PTX_WMMA_LOAD4
#undef PORTER_PTX_WMMA_LOAD8

#endif  // __CUDACC__
}  // namespace porter::ptx
