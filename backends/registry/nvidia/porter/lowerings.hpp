// porter/lowerings.hpp — the NVIDIA registry: every lowering a CUDA build has, in one list.
//
// The neutral API (porter::pipeline, porter::async_copy, porter::launch) reaches the lowerings only
// through `porter::lowerings::all` and `porter::lowering_for<Path>`. Adding a lowering is one folder
// under backends/ plus one entry in this list (and its host rules: core/src/rules/).
// The HIP build puts backends/registry/amd on the include path instead of this folder.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/cp_async/lowering.hpp"
#include "porter/detail/lowering_list.hpp"
#include "porter/staged/lowering.hpp"
#include "porter/tma/lowering.hpp"

namespace porter {
namespace lowerings {
/// The lowerings of this vendor. porter::launch<path::automatic> chooses among them on the host.
using all = list<backend::tma, backend::cp_async, backend::staged>;
}  // namespace lowerings

namespace detail {
template <class Path> struct lowering_for {
  using type = lowerings::find_t<Path, lowerings::all>;
  static_assert(!std::is_void_v<type>, "porter: no lowering in the NVIDIA registry owns this path tag.");
};
}  // namespace detail

/// The lowering that implements concrete path `Path` in this build.
template <class Path> using lowering_for = typename detail::lowering_for<Path>::type;

namespace detail {
#if PORTER_GPU_COMPILER
/// Bytes to add to `smem` (a pointer into this CTA's shared memory) to reach the next multiple of
/// `alignment` (a power of two). Computed from the shared-window offset (cvta.to.shared, 32 bits),
/// which has the generic address's low bits (the window is 4 GiB-aligned) and, unlike the generic
/// address, folds into the later shared-space addresses of the ring's barriers and stages: a
/// kernel then does not rebuild the generic window (SR_SWINHI, SR_CgaCtaId) every step.
/// Source: PTX ISA 8.x 6.4.1 (generic addressing, the shared window), 9.7.9.21 (cvta).
PORTER_DEVICE PORTER_FORCEINLINE std::size_t shared_alignment_pad(const void* smem, std::size_t alignment) {
  const std::uint32_t a = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  return std::size_t((std::uint32_t(alignment) - (a & std::uint32_t(alignment - 1))) & std::uint32_t(alignment - 1));
}
#endif
}  // namespace detail

}  // namespace porter
