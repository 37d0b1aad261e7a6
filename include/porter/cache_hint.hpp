// porter/cache_hint.hpp — L2 eviction priority hints for async_copy (vocabulary: no backend, no PTX).
//
//   porter::async_copy(porter::buffer<0>(slot), a, at, porter::evict_last);   // reused: keep in L2
//   porter::async_copy(porter::buffer<1>(slot), x, at, porter::evict_first);  // streamed once
//
// A hint says how long the bytes a copy reads should stay in L2 relative to other lines; it never
// changes which bytes land, when the copy completes, or any result. It is a compile-time option,
// so an unhinted copy is the same code as before the option existed.
// Lowering (each lowering's copy.hpp says the same for its own path):
//   tma      (sm_90)  the copy's cp.async.bulk / cp.async.bulk.tensor (multicast too) with
//                     .L2::cache_hint and a policy from createpolicy.fractional (fraction 1.0)
//   cp_async (sm_80+) nothing: the hinted cp.async raised cudaErrorIllegalInstruction on the H200 in
//                     some kernel shapes (measured, not understood: porter/cp_async/copy.hpp says
//                     which), and it measured no gain where it ran
//   staged, and the thread-load fallbacks of tma: nothing. Their loads are the
//                     compiler's ordinary vector loads (ld.global / ld.global.nc, the same source
//                     as the AMD flavour); a hinted load would be inline PTX in the portable path.
//   HIP (AMD): nothing (the staged flavour).
// Source: PTX ISA 8.x, "createpolicy" (fraction-based policies: .L2::evict_first / evict_last /
// evict_normal), 9.7.9.25.3 (cp.async .L2::cache_hint), 9.7.9.25.4-5 (cp.async.bulk and
// cp.async.bulk.tensor .L2::cache_hint); CUDA C++ Programming Guide, "Device Memory L2 Access
// Management" (the streaming / persisting access properties are the same priorities).
#pragma once

namespace porter {

/// L2 eviction priority of the lines a copy reads (PTX createpolicy's primary priority).
///   none          no hint: the copy's instruction carries no cache policy (the default)
///   evict_normal  the default priority, stated explicitly (cancels a kernel-wide access policy)
///   evict_first   evicted before normal lines: data read once (streams, the operand of a GEMM
///                 that no other CTA reads again)
///   evict_last    evicted after normal lines: data many CTAs read again soon (a GEMM operand
///                 shared by a wave of CTAs, a lookup table)
enum class cache_hint : unsigned char { none, evict_normal, evict_first, evict_last };

/// Printable name of a hint ("none", "evict_normal", "evict_first", "evict_last").
constexpr const char* cache_hint_name(cache_hint h) {
  return h == cache_hint::evict_normal ? "evict_normal"
         : h == cache_hint::evict_first ? "evict_first"
         : h == cache_hint::evict_last  ? "evict_last"
                                        : "none";
}

/// Tag carrying a hint at compile time: the last argument of porter::async_copy.
template <cache_hint H>
struct l2_hint_t {
  static constexpr cache_hint value = H;
};
inline constexpr l2_hint_t<cache_hint::evict_normal> evict_normal{};  ///< see cache_hint::evict_normal
inline constexpr l2_hint_t<cache_hint::evict_first> evict_first{};    ///< see cache_hint::evict_first
inline constexpr l2_hint_t<cache_hint::evict_last> evict_last{};      ///< see cache_hint::evict_last

}  // namespace porter
