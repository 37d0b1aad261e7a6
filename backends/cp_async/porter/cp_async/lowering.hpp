// porter/cp_async/lowering.hpp — the cp_async lowering: its path tag, copies and protocol in one type.
//
// The NVIDIA registry (backends/registry/nvidia/porter/lowerings.hpp) lists this type; the neutral
// API reaches it only through the registry.
#pragma once
#include "porter/cp_async/copy.hpp"
#include "porter/cp_async/path.hpp"
#include "porter/cp_async/protocol.hpp"
#include "porter/cp_async/role_protocol.hpp"
#include "porter/staged/store.hpp"

namespace porter::backend {

/// The cp_async lowering (see porter/cp_async/protocol.hpp for how a stage completes). Its stores
/// are the staged lowering's thread stores: sm_80 has no asynchronous shared -> global copy.
struct cp_async : cp_async_copy, staged_store {
  using path = porter::path::cp_async;
  template <class Ring> using protocol = cp_async_protocol<Ring>;
  /// The protocol of a ring split into producer and consumer roles (porter::role_pipeline).
  template <class Ring, class Roles> using role_protocol = cp_async_role_protocol<Ring, Roles>;
};

}  // namespace porter::backend
