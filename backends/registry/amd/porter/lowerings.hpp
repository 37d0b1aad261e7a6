// porter/lowerings.hpp — the AMD registry: every lowering a HIP build has, in one list.
//
// AMD GPUs run the staged lowering (its AMD flavour, backends/staged/amd). The NVIDIA path tags
// (tma, cp_async) are known here, so that porter::launch can refuse them with a sentence, but they
// have no lowering: a pipeline forced to one of them is a compile error, or, in a program built with
// PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH=1 that instantiates every path on purpose, a lowering that
// traps (porter::launch refuses it on the host before it could run).
// The CUDA build puts backends/registry/nvidia on the include path instead of this folder.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/cache_hint.hpp"
#include "porter/cp_async/path.hpp"
#include "porter/destination.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/lowering_list.hpp"
#include "porter/detail/trap.hpp"
#include "porter/source.hpp"
#include "porter/staged/lowering.hpp"
#include "porter/tma/path.hpp"

namespace porter {
namespace lowerings {
/// The lowerings of this vendor. porter::launch<path::automatic> chooses among them on the host.
using all = list<backend::staged>;
}  // namespace lowerings

namespace detail {
#if PORTER_GPU_COMPILER
/// Bytes to add to `smem` (a pointer into this workgroup's LDS) to reach the next multiple of
/// `alignment` (a power of two), from the pointer's own bits (the LDS aperture is aligned far
/// beyond any ring alignment). The NVIDIA registry computes the same from the shared-window offset.
PORTER_DEVICE PORTER_FORCEINLINE std::size_t shared_alignment_pad(const void* smem, std::size_t alignment) {
  return (alignment - (reinterpret_cast<std::uintptr_t>(smem) & (alignment - 1))) & (alignment - 1);
}
#endif
}  // namespace detail

namespace backend {
/// The stand-in for an NVIDIA path in a HIP program built with PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH:
/// porter::launch refuses it on the host (rule launch.path_vendor); if launched anyway, init traps.
template <class Path>
struct refused_on_amd {
  using path = Path;
#if PORTER_GPU_COMPILER
  // Stores: the same refusal (porter::launch refuses the launch on the host first).
  static PORTER_DEVICE void trap_store() {
    detail::trap("an NVIDIA path (tma or cp_async) was launched on an AMD GPU; porter::launch refuses this on the host");
  }
  template <class Box>
  static PORTER_DEVICE void store_box(const tiled_destination<Box>&, const typename Box::element_type*, const coord<Box::rank>&,
                                      const detail::copy_context&) { trap_store(); }
  template <reduce_op Op, class Box>
  static PORTER_DEVICE void reduce_box(const tiled_destination<Box>&, const typename Box::element_type*, const coord<Box::rank>&,
                                       const detail::copy_context&) { trap_store(); }
  static PORTER_DEVICE void store_bytes(void*, const void*, std::size_t, const detail::copy_context&) { trap_store(); }
  static PORTER_DEVICE void store_commit(const detail::copy_context&) {}
  template <int N> static PORTER_DEVICE void store_wait_read(const detail::copy_context&) {}
  template <int N> static PORTER_DEVICE void store_wait_read_before_release(const detail::copy_context&) {}
  template <int N> static PORTER_DEVICE void store_wait_write(const detail::copy_context&) {}
  static PORTER_DEVICE void after_generic_writes() {}
  static PORTER_DEVICE void before_async_proxy_reads() {}
#endif
  template <class Ring>
  struct protocol {
    static constexpr int stages = Ring::stages;
#if PORTER_GPU_COMPILER
    PORTER_DEVICE void init(unsigned char*, unsigned, unsigned) {
      detail::trap("an NVIDIA path (tma or cp_async) was launched on an AMD GPU; porter::launch refuses this on the host");
    }
    PORTER_DEVICE void acquire(unsigned, unsigned) {}
    template <int I, class Box, cache_hint H = cache_hint::none>
    PORTER_DEVICE void copy_box(unsigned, typename Box::element_type*, const tiled_source<Box>&, const coord<Box::rank>&) {}
    template <int I, cache_hint H = cache_hint::none>
    PORTER_DEVICE void copy_bytes(unsigned, void*, const void*, std::size_t) {}
    PORTER_DEVICE void commit(unsigned, unsigned) {}
    PORTER_DEVICE void wait(unsigned, unsigned, unsigned) {}
    PORTER_DEVICE void release(unsigned, unsigned) {}
#endif
  };
  /// Role-split rings: the same refusal (init traps; porter::launch refuses the path on the host).
  template <class Ring, class Roles>
  struct role_protocol : protocol<Ring> {
#if PORTER_GPU_COMPILER
    PORTER_DEVICE void commit_written(unsigned, unsigned) {}
    PORTER_DEVICE void enter_role(bool) {}
    PORTER_DEVICE void sync_role(bool) {}
#endif
  };
};
}  // namespace backend

namespace detail {
template <class Path> struct lowering_for {
  static constexpr bool nvidia = Path::nvidia_only;
  static_assert(!nvidia || PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH,
                "porter::pipeline: the tma and cp_async paths are NVIDIA instructions; under HIP use porter::path::staged "
                "(a program that instantiates every path builds with -DPORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH=1: "
                "porter::launch then refuses them).");
  using type = std::conditional_t<nvidia, backend::refused_on_amd<Path>, lowerings::find_t<Path, lowerings::all>>;
};
}  // namespace detail

/// The lowering that implements concrete path `Path` in this build.
template <class Path> using lowering_for = typename detail::lowering_for<Path>::type;

}  // namespace porter
