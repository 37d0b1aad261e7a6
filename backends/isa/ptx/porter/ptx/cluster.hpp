// porter/ptx/cluster.hpp — thread-block cluster and grid-dependency instruction wrappers, one
// variant per function.
//
// Sources: PTX ISA 8.x, "Special Registers" (%cluster_ctarank, %cluster_nctarank: sm_90, PTX 7.8),
// "Parallel Synchronization and Communication Instructions": "barrier.cluster" (arrive / wait:
// sm_90, PTX 7.8) and "griddepcontrol" (wait / launch_dependents: sm_90, PTX 7.8). On
// targets without them each wrapper traps with a message; porter's callers (backends/grid) use
// them only where PORTER_ARCH_HAS_CLUSTERS holds, and the host refuses cluster and dependent
// launches of code older than sm_90 (launch.cluster_binary, launch.pdl_binary).
#pragma once
#include <cstdint>

#include "porter/ptx/common.hpp"

namespace porter::ptx {
#if defined(__CUDACC__)

/// mov.u32 %r, %cluster_ctarank;   (PTX ISA "Special Registers", sm_90)
/// This CTA's rank in its cluster, 0 .. %cluster_nctarank - 1.
PORTER_DEVICE PORTER_FORCEINLINE std::uint32_t cluster_ctarank() {
#if PORTER_ARCH_HAS_CLUSTERS
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
#else
  trap_with("%cluster_ctarank needs sm_90 or newer");
  return 0;
#endif
}

/// mov.u32 %r, %cluster_nctarank;   (PTX ISA "Special Registers", sm_90)
/// CTAs in this CTA's cluster (1 when launched without clusters).
PORTER_DEVICE PORTER_FORCEINLINE std::uint32_t cluster_nctarank() {
#if PORTER_ARCH_HAS_CLUSTERS
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
#else
  trap_with("%cluster_nctarank needs sm_90 or newer");
  return 1;
#endif
}

/// barrier.cluster.arrive;   (PTX ISA "barrier.cluster", sm_90)
/// This thread arrives at the cluster barrier; release semantics at cluster scope (the default).
PORTER_DEVICE PORTER_FORCEINLINE void barrier_cluster_arrive() {
#if PORTER_ARCH_HAS_CLUSTERS
  asm volatile("barrier.cluster.arrive;" ::: "memory");
#else
  trap_with("barrier.cluster.arrive needs sm_90 or newer");
#endif
}

/// barrier.cluster.wait;   (PTX ISA "barrier.cluster", sm_90)
/// Waits until every non-exited thread of the cluster has arrived; acquire semantics (the default).
PORTER_DEVICE PORTER_FORCEINLINE void barrier_cluster_wait() {
#if PORTER_ARCH_HAS_CLUSTERS
  asm volatile("barrier.cluster.wait;" ::: "memory");
#else
  trap_with("barrier.cluster.wait needs sm_90 or newer");
#endif
}

/// griddepcontrol.wait;   (PTX ISA "griddepcontrol", sm_90)
/// Waits until every prerequisite grid in flight has completed and its memory operations are
/// visible to this grid. Returns at once when the grid was not launched as a programmatic dependent.
PORTER_DEVICE PORTER_FORCEINLINE void griddepcontrol_wait() {
#if PORTER_ARCH_HAS_CLUSTERS
  asm volatile("griddepcontrol.wait;" ::: "memory");
#else
  trap_with("griddepcontrol.wait needs sm_90 or newer");
#endif
}

/// griddepcontrol.launch_dependents;   (PTX ISA "griddepcontrol", sm_90)
/// Signals that dependents of this grid (launched with programmatic stream serialization) may be
/// scheduled once every CTA of this grid has signalled or exited. Memory is not made visible by it.
PORTER_DEVICE PORTER_FORCEINLINE void griddepcontrol_launch_dependents() {
#if PORTER_ARCH_HAS_CLUSTERS
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#else
  trap_with("griddepcontrol.launch_dependents needs sm_90 or newer");
#endif
}

#endif  // __CUDACC__
}  // namespace porter::ptx
