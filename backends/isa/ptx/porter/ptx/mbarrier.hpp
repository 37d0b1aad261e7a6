// porter/ptx/mbarrier.hpp — mbarrier instruction wrappers, one variant per function.
//
// Source: PTX ISA 8.x, section 9.7.13.15 "Parallel Synchronization and Communication Instructions:
// mbarrier". mbarrier.* on shared::cta needs sm_80; expect_tx and try_wait need sm_90. On targets
// without the instruction each wrapper traps with a message (its callers refuse those targets on
// the host first; see porter::launch).
#pragma once
#include <cstdint>

#include "porter/ptx/common.hpp"

namespace porter::ptx {
#if defined(__CUDACC__)

/// mbarrier.init.shared::cta.b64 [bar], count;   (PTX 9.7.13.15.9, sm_80)
/// Phase 0, pending arrivals = count (1 .. 2^20-1), transaction count 0.
PORTER_DEVICE PORTER_FORCEINLINE void mbarrier_init(std::uint64_t* bar, std::uint32_t count) {
#if PORTER_ARCH_HAS_MBARRIER
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
#else
  trap_with("mbarrier.init needs sm_80 or newer");
#endif
}

/// fence.mbarrier_init.release.cluster;   (PTX 9.7.13.4, sm_90)
/// Makes a preceding mbarrier.init visible to the async proxy (TMA complete_tx) and the cluster.
PORTER_DEVICE PORTER_FORCEINLINE void fence_mbarrier_init() {
#if PORTER_ARCH_HAS_TMA
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/// fence.proxy.async.shared::cta;   (PTX 9.7.13.4, sm_90)
/// Orders this thread's generic-proxy shared-memory accesses with later async-proxy ones.
PORTER_DEVICE PORTER_FORCEINLINE void fence_proxy_async_shared_cta() {
#if PORTER_ARCH_HAS_TMA
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/// mbarrier.arrive.shared::cta.b64 state, [bar];   (PTX 9.7.13.15.13, sm_80)
/// Release semantics at CTA scope (the default .release.cta): this thread's prior shared-memory
/// writes are visible to threads that observe the phase complete.
PORTER_DEVICE PORTER_FORCEINLINE void mbarrier_arrive(std::uint64_t* bar) {
#if PORTER_ARCH_HAS_MBARRIER
  asm volatile("{\n\t.reg .b64 state;\n\tmbarrier.arrive.shared::cta.b64 state, [%0];\n\t}" ::"r"(smem_addr(bar)) : "memory");
#else
  trap_with("mbarrier.arrive needs sm_80 or newer");
#endif
}

/// mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], tx_bytes;   (PTX 9.7.13.15.11, sm_90)
/// Raises the current phase's expected transaction count by tx_bytes (< 2^20).
PORTER_DEVICE PORTER_FORCEINLINE void mbarrier_expect_tx(std::uint64_t* bar, std::uint32_t tx_bytes) {
#if PORTER_ARCH_HAS_TMA
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(tx_bytes)
               : "memory");
#else
  trap_with("mbarrier.expect_tx needs sm_90 or newer");
#endif
}

/// One probe of phase completion with acquire semantics at CTA scope.
/// sm_90: mbarrier.try_wait.parity.shared::cta.b64 (may suspend for a system-defined time);
/// sm_80: mbarrier.test_wait.parity.shared::cta.b64 (returns at once).   (PTX 9.7.13.15.16)
/// `parity` is the parity of the phase waited for: true once that phase has completed.
PORTER_DEVICE PORTER_FORCEINLINE bool mbarrier_try_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
#if PORTER_ARCH_HAS_TMA
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
#elif PORTER_ARCH_HAS_MBARRIER
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
#else
  trap_with("mbarrier waits need sm_80 or newer");
#endif
  return done != 0;
}

/// mapa.shared::cluster.u32 remote, [bar], cta;  mbarrier.arrive.shared::cluster.b64 _, [remote];
/// (PTX ISA 8.x, "mapa" and 9.7.13.15.13 "mbarrier.arrive"; sm_90, PTX 8.0)
/// One arrival on the mbarrier at the same shared offset as `bar` in the CTA of cluster rank `cta`
/// (this CTA's own rank included), with the instruction's default semantics: release at CTA scope.
/// The CTA of rank `cta` must not have exited.
/// What it is for: releasing a stage this thread has finished READING in its own CTA's shared
/// memory to a peer whose producer will then write it (a multicast refill). The release orders
/// this thread's prior reads before the arrival, so their values are bound before the peer can
/// observe the phase complete and issue the write; CUTLASS's ClusterBarrier::arrive(cta_id, pred)
/// (cutlass/arch/barrier.h) releases multicast stages with the same instruction. It does NOT
/// publish this thread's writes to threads of other CTAs: that needs
/// mbarrier.arrive.release.cluster, which ptxas 13.0 compiles to MEMBAR.ALL.CTA, MEMBAR.ALL.GPU,
/// ERRBAR and CGAERRBAR ahead of the SYNCS.ARRIVE (this form: the SYNCS.ARRIVE alone). Measured
/// on the H200 (session 36, bench/results/h200-2026-12-05-session36/NOTES.md): with the
/// release.cluster form behind every consumer warp's remote arrival the role-pipeline multicast
/// GEMMs ran at 0.72x their kernels without clusters; with this form at 0.96-1.02x.
PORTER_DEVICE PORTER_FORCEINLINE void mbarrier_arrive_cluster(std::uint64_t* bar, std::uint32_t cta) {
#if PORTER_ARCH_HAS_CLUSTERS
  asm volatile(
      "{\n\t.reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}" ::"r"(smem_addr(bar)),
      "r"(cta)
      : "memory");
#else
  (void)bar;
  (void)cta;
  trap_with("mbarrier.arrive on a cluster peer needs sm_90 or newer");
#endif
}

/// mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64   (PTX 9.7.13.15.16, sm_90)
/// As mbarrier_try_wait_parity, with acquire semantics at cluster scope: what the threads of other
/// CTAs did before their release.cluster arrivals on this phase is ordered before what this
/// thread does after it observes the phase complete (ptxas 13.0 adds CCTL.IVALL, an L1
/// invalidation, after a successful wait; the CTA-scope wait has none).
PORTER_DEVICE PORTER_FORCEINLINE bool mbarrier_try_wait_parity_cluster(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
#if PORTER_ARCH_HAS_CLUSTERS
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
#else
  (void)bar;
  (void)parity;
  trap_with("a cluster-scope mbarrier wait needs sm_90 or newer");
#endif
  return done != 0;
}

#endif  // __CUDACC__
}  // namespace porter::ptx
