// porter/fragments/load.hpp — warp-level fragment loads (shared memory -> registers), NVIDIA flavour:
// one ldmatrix per load (sm_75+; porter's oldest target is sm_75, so every CUDA target has it).
//
// Mirrors the AMD flavour (backends/fragments/amd/porter/fragments/load.hpp) member for member: same
// file name, same type (porter::backend::fragment_loads), same operations. The build puts this folder
// on the include path (CMakeLists.txt); the HIP build puts the AMD one there instead. The neutral
// API (porter/fragment.hpp) is the only user: it decides which elements form the fragment (the
// tile, its swizzle, the matrices' positions) and hands this layer an addressing function.
//
// Contract of `load<N, Trans>(r, at)`, called by all 32 lanes of a warp together (converged):
//   at(m, row, col) -> const unsigned char*: the shared-memory address of element (row, col),
//   0 <= row, col < 8, of matrix m (0 <= m < N), an 8 x 8 matrix of 2-byte elements whose every row
//   is 8 contiguous elements (16 bytes) starting on a 16-byte boundary;
//   r[m] = elements (l/4, 2(l%4)) | (l/4, 2(l%4)+1) << 16 of matrix m for lane l (Trans: of the
//   transposed matrix: (2(l%4), l/4) | (2(l%4)+1, l/4) << 16). PTX ISA 9.7.14.5.15 "ldmatrix".
#pragma once
#include <cstdint>

#include "porter/config.hpp"
#include "porter/ptx/ldmatrix.hpp"

namespace porter::backend {

struct fragment_loads {
  /// The instruction in words (docs, messages).
  static constexpr const char* instruction = "ldmatrix.sync.aligned.m8n8.b16";
#if PORTER_GPU_COMPILER
  /// Load N = 1, 2 or 4 8x8 b16 matrices into r[0..N) (see the file comment).
  template <int N, bool Trans, class At>
  PORTER_DEVICE PORTER_FORCEINLINE static void load(std::uint32_t (&r)[N], const At& at) {
    // Lane l supplies row l % 8 of matrix l / 8; lanes past the N matrices repeat valid addresses.
    const std::uint32_t lane = ptx::lane_id();
    const void* row = at(int((lane / 8) % unsigned(N)), int(lane % 8), 0);
    if constexpr (N == 1 && !Trans) ptx::ldmatrix_m8n8_x1_b16(r, row);
    else if constexpr (N == 2 && !Trans) ptx::ldmatrix_m8n8_x2_b16(r, row);
    else if constexpr (N == 4 && !Trans) ptx::ldmatrix_m8n8_x4_b16(r, row);
    else if constexpr (N == 1) ptx::ldmatrix_m8n8_x1_trans_b16(r, row);
    else if constexpr (N == 2) ptx::ldmatrix_m8n8_x2_trans_b16(r, row);
    else ptx::ldmatrix_m8n8_x4_trans_b16(r, row);
  }
  /// The 32-bit shared-window address of a pointer into shared memory (what a wgmma matrix
  /// descriptor holds, >> 4).
  PORTER_DEVICE PORTER_FORCEINLINE static std::uint32_t shared_address(const void* p) { return ptx::smem_addr(p); }
#endif
};

}  // namespace porter::backend
