// porter/tma/path.hpp — the tma path tag: what the tma lowering is, as a compile-time type.
//
// Plain C++ (host and device): the host rules (core/src/rules/tma.cpp), porter::launch and the
// lowering itself read the same facts from here.
#pragma once
#include "porter/path.hpp"

namespace porter::path {
/// Hopper tensor memory accelerator: one elected thread issues bulk copies (cp.async.bulk for 1D,
/// cp.async.bulk.tensor for 2D-5D) that complete on the stage's mbarrier with transaction bytes.
/// Needs compute capability 9.0 and an NVIDIA GPU. Protocol: backends/tma/porter/tma/protocol.hpp.
struct tma {
  static constexpr path_id id = path_id::tma;
  static constexpr const char* name = "tma";
  static constexpr porter::completion completion = porter::completion::mbarrier_tx;
  static constexpr int min_compute_capability = 90;
  static constexpr bool nvidia_only = true;   ///< an NVIDIA instruction family (refused on AMD GPUs)
  /// Compute capability a porter::role_pipeline on this path needs (role_protocol.hpp: TMA copies
  /// completing on FULL/EMPTY mbarriers): the path's own.
  static constexpr int role_min_compute_capability = 90;
};
}  // namespace porter::path
