// porter/staged/path.hpp — the staged path tag: what the staged lowering is, as a type.
//
// Plain C++ (host and device). The staged lowering has two flavours with the same operation set
// and the same file names: backends/staged/nvidia (CUDA) and backends/staged/amd (HIP); the build
// puts exactly one of them on the include path.
#pragma once
#include "porter/path.hpp"

namespace porter::path {
/// Plain staged loads: vectorized predicated global loads to registers, shared-memory stores, one
/// CTA barrier per step; on NVIDIA the next stage's loads stay in registers while the current stage
/// is consumed. Runs on every CUDA GPU porter builds for (sm_75+) and on AMD GPUs through HIP.
/// Protocol: backends/staged/porter/staged/protocol.hpp.
struct staged {
  static constexpr path_id id = path_id::staged;
  static constexpr const char* name = "staged";
  static constexpr porter::completion completion = porter::completion::cta_barrier;
  static constexpr int min_compute_capability = 0;
  static constexpr bool nvidia_only = false;
  /// Compute capability a porter::role_pipeline on this path needs: 8.0, above the path's own 0,
  /// because the staged role protocol (staged/nvidia/porter/staged/role_protocol.hpp) completes its
  /// stages on FULL/EMPTY mbarriers (sm_80+); on sm_75 it traps. NVIDIA only: the AMD flavour has
  /// no role protocol yet.
  static constexpr int role_min_compute_capability = 80;
};
}  // namespace porter::path
