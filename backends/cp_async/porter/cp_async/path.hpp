// porter/cp_async/path.hpp — the cp_async path tag: what the cp_async lowering is, as a type.
//
// Plain C++ (host and device): the host rules (core/src/rules/cp_async.cpp), porter::launch and
// the lowering itself read the same facts from here.
#pragma once
#include "porter/path.hpp"

namespace porter::path {
/// Ampere asynchronous copies: every thread issues 16-, 8- or 4-byte cp.async chunks with a
/// source-size operand that zero-fills out-of-bounds bytes; completion through cp.async groups and
/// one CTA barrier per step. Needs compute capability 8.0 and an NVIDIA GPU.
/// Protocol: backends/cp_async/porter/cp_async/protocol.hpp.
struct cp_async {
  static constexpr path_id id = path_id::cp_async;
  static constexpr const char* name = "cp_async";
  static constexpr porter::completion completion = porter::completion::async_group;
  static constexpr int min_compute_capability = 80;
  static constexpr bool nvidia_only = true;   ///< an NVIDIA instruction family (refused on AMD GPUs)
  /// Compute capability a porter::role_pipeline on this path needs (role_protocol.hpp: cp.async
  /// copies completing on FULL/EMPTY mbarriers): the path's own.
  static constexpr int role_min_compute_capability = 80;
};
}  // namespace porter::path
