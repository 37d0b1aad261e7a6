// porter/grid/control.hpp — grid-level control (thread-block clusters, programmatic dependent
// launch), NVIDIA flavour. Reached by porter/cluster.hpp through the include path; mirrored by
// backends/grid/amd/porter/grid/control.hpp (same type, same members).
//
// sm_90 and newer: the PTX of porter/ptx/cluster.hpp. Older targets have neither clusters nor
// dependent launches, and the host refuses both for code compiled for them (launch.cluster_binary,
// launch.pdl_binary), so such a grid always runs as clusters of one CTA after its predecessor has
// completed: rank 0 of 1, cluster_sync is the CTA barrier, and the dependency controls are
// nothing. Those are the exact semantics there, not an approximation.
#pragma once
#include <cstdint>

#include "porter/config.hpp"
#include "porter/ptx/cluster.hpp"

namespace porter::backend {

struct grid_control {
  /// The instructions in words (docs, messages).
  static constexpr const char* instructions = "%cluster_ctarank, barrier.cluster, griddepcontrol (sm_90)";
#if PORTER_GPU_COMPILER
  PORTER_DEVICE PORTER_FORCEINLINE static unsigned cluster_rank() {
    if constexpr (arch::has_clusters) return ptx::cluster_ctarank();
    else return 0;
  }
  PORTER_DEVICE PORTER_FORCEINLINE static unsigned cluster_size() {
    if constexpr (arch::has_clusters) return ptx::cluster_nctarank();
    else return 1;
  }
  PORTER_DEVICE PORTER_FORCEINLINE static void cluster_sync() {
    if constexpr (arch::has_clusters) {
      ptx::barrier_cluster_arrive();
      ptx::barrier_cluster_wait();
    } else {
      __syncthreads();
    }
  }
  PORTER_DEVICE PORTER_FORCEINLINE static void wait_prior_grid() {
    if constexpr (arch::has_clusters) ptx::griddepcontrol_wait();
  }
  PORTER_DEVICE PORTER_FORCEINLINE static void launch_dependents() {
    if constexpr (arch::has_clusters) ptx::griddepcontrol_launch_dependents();
  }
#endif
};

}  // namespace porter::backend
