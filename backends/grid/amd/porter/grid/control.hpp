// porter/grid/control.hpp — grid-level control, AMD flavour (HIP). Mirrors
// backends/grid/nvidia/porter/grid/control.hpp member for member.
//
// HIP has neither thread-block clusters nor programmatic dependent launch, and porter::launch
// refuses both there (launch.cluster_vendor, launch.pdl_vendor): every workgroup is a cluster of
// one, launched after its predecessor in the stream has completed. So rank 0 of 1, cluster_sync
// is the workgroup barrier, and the dependency controls are nothing: the exact semantics.
#pragma once
#include "porter/config.hpp"

namespace porter::backend {

struct grid_control {
  /// The instructions in words (docs, messages).
  static constexpr const char* instructions = "none (HIP has no clusters or dependent launch; s_barrier for cluster_sync)";
#if PORTER_GPU_COMPILER
  PORTER_DEVICE PORTER_FORCEINLINE static unsigned cluster_rank() { return 0; }
  PORTER_DEVICE PORTER_FORCEINLINE static unsigned cluster_size() { return 1; }
  PORTER_DEVICE PORTER_FORCEINLINE static void cluster_sync() { __syncthreads(); }
  PORTER_DEVICE PORTER_FORCEINLINE static void wait_prior_grid() {}
  PORTER_DEVICE PORTER_FORCEINLINE static void launch_dependents() {}
#endif
};

}  // namespace porter::backend
