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
  /// Compute capability a porter::role_pipeline on this path needs: none beyond the path's own. The
  /// staged role protocol completes its stages on FULL/EMPTY mbarriers from sm_80 and on
  /// shared-memory phase counters below (sm_75; staged/nvidia/porter/staged/role_protocol.hpp), and
  /// on LDS phase counters on AMD (staged/amd/...).
  static constexpr int role_min_compute_capability = 0;
};
}  // namespace porter::path
