// porter/lowerings.hpp — the NVIDIA registry: every lowering a CUDA build has, in one list.
//
// The neutral API (porter::pipeline, porter::async_copy, porter::launch) reaches the lowerings only
// through `porter::lowerings::all` and `porter::lowering_for<Path>`. Adding a lowering is one folder
// under backends/ plus one entry in this list (and its host rules: core/src/rules/).
// The HIP build puts backends/registry/amd on the include path instead of this folder.
#pragma once
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

}  // namespace porter
