// porter/path.hpp — the vocabulary of data paths: their run-time ids, completion mechanisms and
// the `automatic` tag. The concrete path tags (porter::path::tma, cp_async, staged) are declared by
// their lowerings (backends/<path>/porter/<path>/path.hpp), which own everything about a path; this
// header only names what every layer shares.
//
//   path        lowers to                                          completes through        needs
//   tma         cp.async.bulk (1D), cp.async.bulk.tensor (2D-5D)   mbarrier transaction     sm_90
//   cp_async    cp.async.{cg,ca}.shared.global, zero-fill operand  cp.async groups + CTA barrier  sm_80
//   staged      vector ld.global + st.shared                       CTA barrier              any GPU
//   automatic   resolved on the HOST per launch, by cost (porter::launch, porter::choose_path)
//
// The architecture and the protocols are described in docs/design.md.
#pragma once
#include <type_traits>

#include "porter/config.hpp"

namespace porter {

/// Run-time name of a concrete path (support masks, host reports, explain(), the launch guard).
/// One enumerator per lowering; the lowering's path tag carries it as `id`.
enum class path_id : int { tma = 0, cp_async = 1, staged = 2 };

/// Number of path ids (the size of a support mask).
inline constexpr int path_count = 3;

/// How the copies of a path signal that bytes have landed in shared memory.
enum class completion {
  mbarrier_tx,   ///< the copy engine counts transaction bytes on the stage's mbarrier (PTX ISA 9.7.13.15)
  async_group,   ///< each thread waits for its cp.async groups (cp.async.wait_group), then a CTA barrier
  cta_barrier,   ///< plain loads and stores, then a CTA barrier (bar.sync / s_barrier)
};

namespace path {
/// The best path for each launch: chosen on the host by porter::launch from the device, the binary,
/// every tiled source's rules and a cost model (porter::choose_path, which explain() quotes). The
/// kernel then runs as that concrete path's instantiation: there is no device-side automatic.
struct automatic {
  static constexpr const char* name = "automatic";
  static constexpr int min_compute_capability = 0;
};
}  // namespace path

/// True for a concrete path tag: a type with `static constexpr path_id id` (declared by a lowering).
template <class P, class = void> struct is_concrete_path : std::false_type {};
template <class P>
struct is_concrete_path<P, std::void_t<decltype(P::id)>>
    : std::bool_constant<std::is_same_v<std::remove_cv_t<decltype(P::id)>, path_id>> {};

/// True for every path tag, concrete or automatic.
template <class P> struct is_path : std::bool_constant<is_concrete_path<P>::value || std::is_same_v<P, path::automatic>> {};

/// The printable name of a path tag: path_name<path::tma> == "tma".
template <class P> inline constexpr const char* path_name = P::name;

/// Printable name of a completion mechanism.
constexpr const char* completion_name(completion c) {
  return c == completion::mbarrier_tx   ? "mbarrier transaction bytes"
         : c == completion::async_group ? "cp.async groups, then a CTA barrier"
                                        : "CTA barrier";
}

/// Bit for a path in a support mask (tiled_source::supported).
PORTER_HOST_DEVICE constexpr unsigned path_bit(path_id p) { return 1u << static_cast<int>(p); }

/// Printable name of a run-time path id ("tma", "cp_async", "staged"), from the host registry of
/// lowerings (core/src/rules/registry.cpp). Host only.
const char* path_id_name(path_id p);

}  // namespace porter
