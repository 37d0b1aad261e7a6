// porter/fragments/wmma.hpp — nvcuda::wmma fragments loaded from and stored to shared memory with
// the shared state space, NVIDIA flavour (the only one: wmma fragments are NVIDIA's; the AMD
// flavour of this file is an #error that names rocWMMA).
//
// The neutral API (porter/wmma.hpp) is the only user. This layer maps a fragment type (use, shape,
// element type, layout) to its instruction in porter/ptx/wmma.hpp and moves the registers into the
// fragment's storage, which is exactly the instruction's registers (nvcuda's mma.hpp passes
// `(int*)&fragment` to its own load builtins the same way).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "porter/config.hpp"
#include "porter/ptx/wmma.hpp"

namespace porter::backend {

struct wmma_access {
  /// The instructions in words (docs, messages).
  static constexpr const char* instruction = "wmma.load / wmma.store with .shared";

  /// True for the operand fragments this layer loads: matrix_a or matrix_b, m16n16k16, m32n8k16 or
  /// m8n32k16, __half or __nv_bfloat16, row_major or col_major.
  template <class Use, int M, int N, int K, class T, class Layout>
  static constexpr bool operand_supported =
      (std::is_same_v<Use, nvcuda::wmma::matrix_a> || std::is_same_v<Use, nvcuda::wmma::matrix_b>) &&
      ((M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) || (M == 8 && N == 32 && K == 16)) &&
      (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) &&
      (std::is_same_v<Layout, nvcuda::wmma::row_major> || std::is_same_v<Layout, nvcuda::wmma::col_major>);
  /// True for the accumulator shapes this layer loads and stores (float elements).
  template <int M, int N, int K>
  static constexpr bool accumulator_supported =
      (M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) || (M == 8 && N == 32 && K == 16);

#if PORTER_GPU_COMPILER
  /// Load operand fragment `f` from the shared address `p` (32-bit window address) with leading
  /// dimension `ldm` elements. Requires operand_supported.
  template <class Use, int M, int N, int K, class T, class Layout>
  PORTER_DEVICE PORTER_FORCEINLINE static void load(nvcuda::wmma::fragment<Use, M, N, K, T, Layout>& f, std::uint32_t p,
                                                    std::uint32_t ldm) {
    constexpr bool a = std::is_same_v<Use, nvcuda::wmma::matrix_a>;
    constexpr bool row = std::is_same_v<Layout, nvcuda::wmma::row_major>;
    constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
    constexpr int regs = int(sizeof(f.x) / 4);
    static_assert(sizeof(f.x) % 4 == 0 && (regs == 2 || regs == 4 || regs == 8), "a wmma operand fragment is 2, 4 or 8 registers");
    std::uint32_t r[regs];
#define PORTER_WMMA_PICK(SHAPE, MM, NN)                                                         \
  if constexpr (M == MM && N == NN) {                                                           \
    if constexpr (bf16) {                                                                       \
      if constexpr (a && row) ptx::wmma_load_a_##SHAPE##_row_bf16(r, p, ldm);                    \
      else if constexpr (a) ptx::wmma_load_a_##SHAPE##_col_bf16(r, p, ldm);                      \
      else if constexpr (row) ptx::wmma_load_b_##SHAPE##_row_bf16(r, p, ldm);                    \
      else ptx::wmma_load_b_##SHAPE##_col_bf16(r, p, ldm);                                       \
    } else {                                                                                    \
      if constexpr (a && row) ptx::wmma_load_a_##SHAPE##_row_f16(r, p, ldm);                     \
      else if constexpr (a) ptx::wmma_load_a_##SHAPE##_col_f16(r, p, ldm);                       \
      else if constexpr (row) ptx::wmma_load_b_##SHAPE##_row_f16(r, p, ldm);                     \
      else ptx::wmma_load_b_##SHAPE##_col_f16(r, p, ldm);                                        \
    }                                                                                           \
  }
    PORTER_WMMA_PICK(m16n16k16, 16, 16)
    else PORTER_WMMA_PICK(m32n8k16, 32, 8) else PORTER_WMMA_PICK(m8n32k16, 8, 32)
#undef PORTER_WMMA_PICK
    std::memcpy(&f.x[0], r, sizeof r);
  }

  /// Load accumulator fragment `f` (float) from shared address `p`, `ldm` elements between rows
  /// (row) or columns (!row). Requires accumulator_supported.
  template <int M, int N, int K>
  PORTER_DEVICE PORTER_FORCEINLINE static void load(nvcuda::wmma::fragment<nvcuda::wmma::accumulator, M, N, K, float>& f,
                                                    std::uint32_t p, std::uint32_t ldm, bool row) {
    static_assert(sizeof(f.x) == 8 * sizeof(float), "a float wmma accumulator fragment is 8 registers");
    float r[8];
    if constexpr (M == 16 && N == 16) {
      if (row) ptx::wmma_load_c_m16n16k16_row_f32(r, p, ldm);
      else ptx::wmma_load_c_m16n16k16_col_f32(r, p, ldm);
    } else if constexpr (M == 32 && N == 8) {
      if (row) ptx::wmma_load_c_m32n8k16_row_f32(r, p, ldm);
      else ptx::wmma_load_c_m32n8k16_col_f32(r, p, ldm);
    } else {
      if (row) ptx::wmma_load_c_m8n32k16_row_f32(r, p, ldm);
      else ptx::wmma_load_c_m8n32k16_col_f32(r, p, ldm);
    }
    std::memcpy(&f.x[0], r, sizeof r);
  }

  /// Store accumulator fragment `f` (float) to shared address `p`. Requires accumulator_supported.
  template <int M, int N, int K>
  PORTER_DEVICE PORTER_FORCEINLINE static void store(std::uint32_t p, const nvcuda::wmma::fragment<nvcuda::wmma::accumulator, M, N, K, float>& f,
                                                     std::uint32_t ldm, bool row) {
    static_assert(sizeof(f.x) == 8 * sizeof(float), "a float wmma accumulator fragment is 8 registers");
    float r[8];
    std::memcpy(r, &f.x[0], sizeof r);
    if constexpr (M == 16 && N == 16) {
      if (row) ptx::wmma_store_d_m16n16k16_row_f32(p, r, ldm);
      else ptx::wmma_store_d_m16n16k16_col_f32(p, r, ldm);
    } else if constexpr (M == 32 && N == 8) {
      if (row) ptx::wmma_store_d_m32n8k16_row_f32(p, r, ldm);
      else ptx::wmma_store_d_m32n8k16_col_f32(p, r, ldm);
    } else {
      if (row) ptx::wmma_store_d_m8n32k16_row_f32(p, r, ldm);
      else ptx::wmma_store_d_m8n32k16_col_f32(p, r, ldm);
    }
  }

  /// The 32-bit shared-window address of a pointer into shared memory.
  PORTER_DEVICE PORTER_FORCEINLINE static std::uint32_t shared_address(const void* p) { return ptx::smem_addr(p); }
#endif
};

}  // namespace porter::backend
