// porter/ptx/cache_policy.hpp — L2 cache eviction policies (createpolicy), the operand of every
// instruction variant with .L2::cache_hint (porter/ptx/bulk.hpp; cp.async has no hinted wrapper:
// porter/cp_async/copy.hpp says why).
//
// Source: PTX ISA 8.x, "createpolicy" (PTX 7.4, sm_80): a fraction-based policy applies its
// primary priority to `fraction` of the accessed lines (1.0 here: all of them). The 64-bit policy
// is opaque; nothing in porter reads its bits.
#pragma once
#include <cstdint>

#include "porter/cache_hint.hpp"
#include "porter/ptx/common.hpp"

namespace porter::ptx {
#if defined(__CUDACC__)

/// createpolicy.fractional.L2::<H>.b64 policy, 1.0;   (sm_80; H = evict_normal, evict_first or
/// evict_last). Not volatile: it reads nothing, so the compiler may hoist it or merge repeats.
/// Below sm_80: traps (no lowering asks for it there: cp.async and TMA need sm_80 / sm_90).
template <cache_hint H>
PORTER_DEVICE PORTER_FORCEINLINE std::uint64_t l2_policy() {
  static_assert(H != cache_hint::none, "ptx::l2_policy: cache_hint::none has no policy (issue the unhinted instruction)");
  std::uint64_t p = 0;
#if PORTER_ARCH_HAS_CP_ASYNC
  if constexpr (H == cache_hint::evict_first) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  else if constexpr (H == cache_hint::evict_last) asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  else asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(p));
#else
  trap_with("createpolicy needs sm_80 or newer");
#endif
  return p;
}

#endif  // __CUDACC__
}  // namespace porter::ptx
