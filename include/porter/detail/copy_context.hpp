// porter/detail/copy_context.hpp — what a backend needs to issue one copy into a stage.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/config.hpp"

namespace porter::detail {

/// Handed by a lowering's protocol to its copy_box / copy_bytes. Every thread of the copying set
/// (the CTA, or a role pipeline's producer threads) calls the copy with the same arguments;
/// `thread` tells them apart.
struct copy_context {
  std::uint64_t* barrier; ///< the stage's completion mbarrier where the lowering has one (tma), else nullptr
  unsigned thread;       ///< index of this thread in the copying set, 0..nthreads-1
  unsigned nthreads;     ///< threads in the copying set (all of them take part)
  /// false: the copying set is the CTA (a copy that must order its threads' stores before the
  /// stage completes runs the CTA barrier); true: a role pipeline's producers
  /// (porter/role_pipeline.hpp), who each arrive on the stage's barrier themselves, so no barrier
  /// among them is needed.
  bool role_producers = false;
  /// true: nthreads is a compile-time constant of the kernel (porter::cta_threads<N>, or a role's
  /// producer count), so a test on it folds away; a copy may then take a form whose run-time test
  /// and extra code would cost where the count is read from blockDim (cp_async's interior loop).
  bool fixed_nthreads = false;
  /// true: of the copying set only thread 0 has waited for the stage's previous pass to be released
  /// by every reader (a cluster-multicast ring on tma, porter/tma/protocol.hpp: thread 0 waits for
  /// EMPTY, the other threads run on). A copy that stores into the stage with thread stores first
  /// runs a CTA barrier, after which every thread may overwrite it. A tensor copy thread 0 issues
  /// alone needs nothing more; a 1D box or byte range (cp.async.bulk) takes the barrier too, for
  /// compute-sanitizer racecheck, which does not see the order otherwise (porter/tma/copy.hpp).
  bool stores_need_barrier = false;
};

/// Unsigned integer vector of W bytes (W = 1, 2, 4, 8, 16): the register a W-byte chunk travels in.
template <unsigned W> struct vec;
template <> struct vec<1> { using type = std::uint8_t; };
template <> struct vec<2> { using type = std::uint16_t; };
template <> struct vec<4> { using type = std::uint32_t; };
template <> struct vec<8> { struct alignas(8) type { std::uint32_t x, y; }; };
template <> struct vec<16> { struct alignas(16) type { std::uint32_t x, y, z, w; }; };
template <unsigned W> using vec_t = typename vec<W>::type;

#if PORTER_GPU_COMPILER
/// Store `bytes` zero bytes at shared `dst` (any alignment), one byte per thread per step.
/// Called by all threads of the CTA (used for the out-of-bounds part of 1D TMA boxes).
PORTER_DEVICE inline void fill_zero(void* dst, std::size_t bytes, const copy_context& ctx) {
  unsigned char* d = static_cast<unsigned char*>(dst);
  for (std::size_t i = ctx.thread; i < bytes; i += ctx.nthreads) d[i] = 0;
}
#endif

}  // namespace porter::detail
