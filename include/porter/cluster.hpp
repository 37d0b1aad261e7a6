// porter/cluster.hpp — in the kernel: the thread-block cluster a CTA belongs to, and the two
// controls of a programmatic dependent launch. The host side is porter::launch_options::cluster
// and ::programmatic_dependent_launch (porter/launch.hpp).
//
// Sources: CUDA C++ Programming Guide, "Thread Block Clusters" and "Programmatic Dependent Launch
// and Synchronization"; PTX ISA "griddepcontrol", "barrier.cluster", %cluster_ctarank.
// Lowering (backends/grid/<vendor>/porter/grid/control.hpp): sm_90+ PTX; on older NVIDIA targets
// and under HIP, which have neither, a cluster of one CTA and no dependency control, which is what
// a launch there is (porter::launch refuses clusters and dependent launches for such code).
#pragma once
#include "porter/config.hpp"
#include "porter/grid/control.hpp"

namespace porter {
#if PORTER_GPU_COMPILER

/// This CTA's rank in its thread-block cluster: 0 .. cluster_size() - 1 (0 without clusters).
/// With clusters of (cx, cy, cz) CTAs the rank counts x fastest, like the CTAs of a grid.
PORTER_DEVICE PORTER_FORCEINLINE unsigned cluster_rank() { return backend::grid_control::cluster_rank(); }

/// CTAs in this CTA's cluster (launch_options::cluster's count(); 1 without clusters).
PORTER_DEVICE PORTER_FORCEINLINE unsigned cluster_size() { return backend::grid_control::cluster_size(); }

/// Barrier over every thread of every CTA of the cluster, with release/acquire semantics at
/// cluster scope (barrier.cluster.arrive + wait). Every thread of the cluster must call it. Without
/// clusters it is the CTA barrier.
PORTER_DEVICE PORTER_FORCEINLINE void cluster_sync() { backend::grid_control::cluster_sync(); }

/// In a kernel launched with launch_options::programmatic_dependent_launch(): wait until the
/// previous kernel of the stream has completed and its writes are visible. Call it before the
/// first read of anything that kernel wrote (work before it overlaps that kernel). Returns at once
/// in a kernel launched without the option (stream order has already waited).
PORTER_DEVICE PORTER_FORCEINLINE void wait_prior_grid() { backend::grid_control::wait_prior_grid(); }

/// Let the next kernel of the stream, when launched with programmatic_dependent_launch(), start
/// (once every CTA of this grid has called this or exited). It publishes no memory: the dependent's
/// wait_prior_grid() still waits for this whole grid to complete. Nothing without such a dependent.
PORTER_DEVICE PORTER_FORCEINLINE void launch_dependents() { backend::grid_control::launch_dependents(); }

#endif  // PORTER_GPU_COMPILER
}  // namespace porter
