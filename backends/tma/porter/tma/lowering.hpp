// porter/tma/lowering.hpp — the tma lowering: its path tag, copies and protocol in one type.
//
// The NVIDIA registry (backends/registry/nvidia/porter/lowerings.hpp) lists this type; the neutral
// API reaches it only through the registry.
#pragma once
#include "porter/tma/copy.hpp"
#include "porter/tma/path.hpp"
#include "porter/tma/protocol.hpp"
#include "porter/tma/role_protocol.hpp"
#include "porter/tma/store.hpp"

namespace porter::backend {

/// The tma lowering (see porter/tma/protocol.hpp for how a stage completes, porter/tma/store.hpp
/// for stores).
struct tma : tma_copy, tma_store {
  using path = porter::path::tma;
  template <class Ring> using protocol = tma_protocol<Ring>;
  /// The protocol of a ring split into producer and consumer roles (porter::role_pipeline).
  template <class Ring, class Roles> using role_protocol = tma_role_protocol<Ring, Roles>;
};

}  // namespace porter::backend
