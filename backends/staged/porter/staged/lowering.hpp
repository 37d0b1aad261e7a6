// porter/staged/lowering.hpp — the staged lowering: its path tag, copies and protocol in one type.
//
// The registry (backends/registry/<vendor>/porter/lowerings.hpp) lists this type; the neutral API
// (porter::pipeline, porter::async_copy) reaches it only through the registry. The copies come from
// the flavour on the include path (backends/staged/nvidia or backends/staged/amd).
#pragma once
#include "porter/staged/copy.hpp"
#include "porter/staged/path.hpp"
#include "porter/staged/protocol.hpp"
#include "porter/staged/role_protocol.hpp"
#include "porter/staged/store.hpp"

namespace porter::backend {

/// The staged lowering (see porter/staged/protocol.hpp for how a stage completes, porter/staged/
/// store.hpp for stores).
struct staged : staged_copy, staged_store {
  using path = porter::path::staged;
  template <class Ring> using protocol = staged_protocol<Ring>;
  /// The protocol of a ring split into producer and consumer roles (porter::role_pipeline).
  template <class Ring, class Roles> using role_protocol = staged_role_protocol<Ring, Roles>;
};

}  // namespace porter::backend
