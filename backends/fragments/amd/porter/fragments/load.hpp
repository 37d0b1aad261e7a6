// porter/fragments/load.hpp — warp-level fragment loads (shared memory -> registers), AMD flavour:
// each lane reads its own elements with ds_read (LDS has no cross-lane matrix load on gfx9).
//
// Mirrors the NVIDIA flavour (backends/fragments/nvidia/porter/fragments/load.hpp) member for
// member: same file name, same type (porter::backend::fragment_loads), same contract, the same
// registers bit for bit. The HIP build (cmake/hip) puts this folder on the include path.
//
// Contract of `load<N, Trans>(r, at)`: as the NVIDIA flavour's. Lane l here is the lane modulo 32,
// so on a 64-lane wavefront (gfx9/CDNA) both halves receive the same fragment.
// Lowering per matrix: without Trans, the lane's two elements are adjacent (columns 2(l%4) and
// +1 of one row, 4-byte aligned): one ds_read_b32. With Trans they come from two rows (rows
// 2(l%4) and +1 of column l/4): two ds_read_u16, packed low then high. No barrier: the loads are
// complete when their registers are used (s_waitcnt lgkmcnt, inserted by the compiler).
#pragma once
#include <cstdint>

#include "porter/amdgcn/memory.hpp"
#include "porter/config.hpp"

namespace porter::backend {

struct fragment_loads {
  /// The instruction in words (docs, messages).
  static constexpr const char* instruction = "ds_read_b32 / ds_read_u16";
#if PORTER_GPU_COMPILER
  /// Load N = 1, 2 or 4 8x8 b16 matrices into r[0..N) (see the NVIDIA flavour's file comment).
  template <int N, bool Trans, class At>
  PORTER_DEVICE PORTER_FORCEINLINE static void load(std::uint32_t (&r)[N], const At& at) {
    const int lane = int(__lane_id() % 32u);
    const int i = lane / 4, j = 2 * (lane % 4);
    PORTER_UNROLL
    for (int m = 0; m < N; ++m) {
      if constexpr (!Trans) {
        r[m] = amdgcn::load_lds<4>(at(m, i, j));
      } else {
        const std::uint32_t lo = amdgcn::load_lds<2>(at(m, j, i));
        const std::uint32_t hi = amdgcn::load_lds<2>(at(m, j + 1, i));
        r[m] = lo | hi << 16;
      }
    }
  }
#endif
};

}  // namespace porter::backend
