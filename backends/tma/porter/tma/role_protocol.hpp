// porter/tma/role_protocol.hpp — how a tma stage completes when the CTA is split into producer and
// consumer roles (porter::role_pipeline, porter/roles.hpp; Hopper, sm_90+).
//
// PROTOCOL (each operation called by every thread of ONE role, in the same order):
//   header    FULL[s] with one arrival per producer thread, EMPTY[s] with one arrival per consumer
//             thread (porter/ptx/role_ring.hpp), initialised by thread 0 before the roles begin.
//   acquire   (producers) wait for EMPTY's phase of the previous pass (nothing on pass 0).
//   copy      (producers) producer thread 0 raises FULL's transaction bytes and issues
//             cp.async.bulk(.tensor) completing on FULL (porter/tma/copy.hpp). The thread-load
//             fallbacks run on the producer threads and end with fence.proxy.async, without a
//             barrier: each producer's own arrival at commit publishes its stores.
//   commit    (producers) every producer thread arrives on FULL (release): thread 0 after its
//             expect_tx, so the phase waits for the bytes too. Why not one arrival, as the
//             CTA-collective tma protocol has: producer threads may have stored bytes of the stage
//             themselves (thread-load fallbacks, or a kernel's own writes before the copy); their
//             own release arrival publishes them to the consumers directly. (Measured: with one
//             arrival from thread 0 after the producers' named barrier, compute-sanitizer racecheck
//             reports those stores as RAW hazards against the consumers' reads, 382,188 on the device
//             matrix; with one arrival per producer thread, none.)
//   wait      (consumers) every consumer thread waits for FULL's phase of this pass.
//   release   (consumers) every consumer thread runs fence.proxy.async.shared::cta, then arrives on
//             EMPTY (per thread, not per warp: porter/ptx/role_ring.hpp says why). The consumers
//             read the stage through the generic proxy (ld.shared, ldmatrix) and the refill writes
//             it through the async proxy (the tensor copy): accesses to the same bytes through two
//             proxies are ordered only by a proxy fence (PTX ISA 8.x 9.7.13.4, "async proxy"); the
//             mbarrier release/acquire orders the generic proxy alone. Measured without it
//             (porter-bench's pb_bf16gemm_roles on the H200, tma, 4 stages, mma.sync consumers at 232
//             registers, 8192^3): wrong C in 20 of 20 runs, always in the consumer warps that share
//             sub-partition 0 with the issuing producer thread; with it 0 of 12, and 0 of 20 on the
//             final tree (bench/results/h200-2026-12-04-session31/NOTES.md). A 64-cycle spin in its
//             place also hid the failure: the fence is what the memory model asks for, the figures
//             are what was seen. Its cost is not yet separated from the run-to-run spread (the
//             same kernel at S = 3: -1.6% at 8192^3, -13% at 4096^3; NOTES.md).
// CLUSTER MULTICAST (porter::role_pipeline(smem, porter::cluster_multicast), launched in clusters
// of more than one CTA; every CTA of the cluster makes the same calls with the same arguments):
//   init      as above, but EMPTY[s] also counts the consumer WARPS of every peer CTA
//             (consumer_threads + consumer warps x (cluster size - 1)), then a cluster barrier
//             (barrier.cluster.arrive + wait): no peer arrives on, or multicasts into, a CTA whose
//             barriers are not yet set.
//   acquire   (producers) wait for EMPTY's previous phase with acquire at cluster scope: every
//             consumer of every CTA has released the stage, so a refill may land in all of them.
//   copy      async_copy(..., porter::multicast): producer thread 0 of every CTA expects the box's
//             bytes on its own FULL; producer thread 0 of the CTA of rank (pass x S + stage) mod
//             cluster size (a counter; the duty rotates) issues it with .multicast::cluster to every
//             CTA (porter/tma/copy.hpp copy_box_multicast). Untagged boxes are each CTA's own.
//   release   (consumers, warp-collective) the proxy fence and the thread's own arrival on its CTA's
//             EMPTY as usual, then __syncwarp and one arrival of lane 0 on each peer's EMPTY (mapa +
//             mbarrier.arrive.shared::cluster, release at CTA scope: it releases reads;
//             porter/ptx/role_ring.hpp says why per warp and why not release.cluster). No cluster
//             barrier per step: the CTAs are coupled only through EMPTY.
//   exit      a consumer may arrive on a peer's EMPTY, and a peer may multicast into this CTA, until
//             the last stage: end the kernel with porter::cluster_sync() in every thread, producers
//             included, so that no CTA exits while a peer may still touch its shared memory.
//   EMPTY counts arrivals, not who made them: a fast peer warp's arrival for the next pass may stand
//   in for a slow one's remote arrival. That is safe: a warp releases pass p + 1 only after its FULL
//   of p + 1 completed, which needs the multicast that itself waited for every warp's release of p;
//   on a pass without a multicast nothing is written across CTAs, and a CTA's own consumer threads
//   always arrive themselves.
//   Each CTA's FULL phase also waits for its own producers' arrivals, so a peer's bytes landing
//   before this CTA's expect_tx (the transaction count below zero for a while) cannot complete it
//   early; the next pass of a stage is issued only after every consumer of the cluster released the
//   previous one, after waiting for it, so no FULL phase is confused with the next.
// So a stage costs: one expect_tx per copy (producer thread 0), one arrival per producer thread,
// one EMPTY wait per producer thread, one FULL wait per consumer thread, one proxy fence and one
// arrival per consumer thread. No CTA barrier.
// Source: PTX ISA 8.x 9.7.13.15 (mbarrier), 9.7.9.25.4/5 (bulk copies); CUTLASS sm90_pipeline.hpp
// (PipelineTmaAsync: the producer arms FULL with expect_tx, consumers release EMPTY).
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/cache_hint.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/trap.hpp"
#include "porter/ptx/cluster.hpp"
#include "porter/ptx/mbarrier.hpp"
#include "porter/ptx/role_ring.hpp"
#include "porter/roles.hpp"
#include "porter/source.hpp"
#include "porter/tma/copy.hpp"

namespace porter::backend {

/// The tma protocol for a ring (porter::stage_ring<S, Boxes...>) split by `Roles` (porter::roles).
template <class Ring, class Roles>
class tma_role_protocol {
 public:
  static constexpr int stages = Ring::stages;

#if defined(__CUDACC__)
  /// Initialise the barriers (thread 0) and record this thread's role. Collective over the CTA; the
  /// pipeline follows it with a CTA barrier. Traps on a compile target without TMA.
  PORTER_DEVICE void init(unsigned char* header, unsigned thread, unsigned /*nthreads*/) {
    if constexpr (arch::device_pass && !arch::has_tma)
      detail::trap("path tma was compiled for a target without TMA (needs sm_90); porter::launch refuses this on the host");
    ring_.init(header, thread, Roles::producer_threads);
    rank_ = thread < Roles::producer_threads ? thread : thread - Roles::producer_threads;
  }
  /// As init, for a cluster-multicast ring (porter::cluster_multicast; see CLUSTER MULTICAST above):
  /// EMPTY counts this CTA's consumer threads and the consumer warps of every peer, and a cluster barrier ends it
  /// (every CTA's barriers are initialised before any peer arrives on them or multicasts into this
  /// CTA). Collective over every thread of the cluster. In a launch without clusters (or a cluster
  /// of one CTA) the ring is an ordinary one.
  PORTER_DEVICE void init_cluster(unsigned char* header, unsigned thread, unsigned /*nthreads*/) {
    if constexpr (arch::device_pass && !arch::has_tma)
      detail::trap("path tma was compiled for a target without TMA (needs sm_90); porter::launch refuses this on the host");
    mc_.init();
    ring_.init(header, thread, Roles::producer_threads, mc_.size);
    rank_ = thread < Roles::producer_threads ? thread : thread - Roles::producer_threads;
    if constexpr (arch::has_clusters) {
      ptx::barrier_cluster_arrive();
      ptx::barrier_cluster_wait();
    }
  }
  /// Producers: make stage `stage` of pass `pass` writable.
  PORTER_DEVICE PORTER_FORCEINLINE void acquire(unsigned stage, unsigned pass) {
    if (mc_.size > 1) {
      ring_.producer_acquire_cluster(stage, pass);
      mc_.advance();
    } else {
      ring_.producer_acquire(stage, pass);
    }
  }
  /// Producers: copy a box that every CTA of the cluster copies with the same arguments into buffer
  /// I of `stage`: producer thread 0 of every CTA expects the box's bytes on its own FULL, and the
  /// one of the issuing CTA (rotating step by step) issues it with .multicast::cluster to every CTA
  /// (tma_copy::copy_box_multicast). In a ring that is not a cluster one, copy_box.
  template <int I, class Box, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_box_multicast(unsigned stage, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                           const coord<Box::rank>& at) {
    mc_.copy_box<Box, H>(dst, src, at, ctx(stage));
  }
  /// Producers: copy a box into buffer I of `stage`. The source must allow tma (tma_copy::copy_box
  /// says what happens when a launch bypassed porter::launch's check).
  template <int I, class Box, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_box(unsigned stage, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                 const coord<Box::rank>& at) {
    tma_copy::copy_box<Box, H>(dst, src, at, ctx(stage));
  }
  /// Producers: copy `bytes` contiguous bytes into buffer I of `stage`.
  template <int I, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_bytes(unsigned stage, void* dst, const void* src, std::size_t bytes) {
    tma_copy::copy_bytes<H>(dst, src, bytes, ctx(stage));
  }
  /// Producers: this thread's arrival on FULL (thread 0's after its expect_tx and copies).
  PORTER_DEVICE PORTER_FORCEINLINE void commit(unsigned stage, unsigned /*pass*/) { ptx::mbarrier_arrive(ring_.full + stage); }
  /// Producers: commit after this thread also wrote into the stage with ordinary stores.
  PORTER_DEVICE PORTER_FORCEINLINE void commit_written(unsigned stage, unsigned pass) { commit(stage, pass); }
  /// Begin this thread's role (register budgets of Roles, where asked and available).
  PORTER_DEVICE PORTER_FORCEINLINE void enter_role(bool producer) { ring_type::template enter_role<Roles>(producer); }
  /// Barrier among the threads of this thread's role.
  PORTER_DEVICE PORTER_FORCEINLINE void sync_role(bool producer) { ring_type::template sync_role<Roles>(producer); }
  /// Consumers: wait for FULL's phase of pass `pass`.
  PORTER_DEVICE PORTER_FORCEINLINE void wait(unsigned stage, unsigned pass, unsigned /*pending_after*/) {
    ring_.consumer_wait(stage, pass);
  }
  /// Consumers: this thread is done reading the stage: a proxy fence (its generic-proxy reads before
  /// the refill's async-proxy writes), then its arrival on EMPTY.
  PORTER_DEVICE PORTER_FORCEINLINE void release(unsigned stage, unsigned /*pass*/) {
    ptx::fence_proxy_async_shared_cta();
    if (mc_.size > 1) ring_.consumer_release_cluster(stage, mc_.rank, mc_.size, rank_ & 31u);
    else ring_.consumer_release(stage);
  }

 private:
  PORTER_DEVICE PORTER_FORCEINLINE detail::copy_context ctx(unsigned stage) const {
    return detail::copy_context{ring_.full + stage, rank_, Roles::producer_threads, true};
  }
#endif  // __CUDACC__

  using ring_type = ptx::role_ring<Ring::stages, Roles::consumer_threads>;
  ring_type ring_{};
  unsigned rank_ = 0;
  multicast_group mc_{};  // a cluster-multicast ring's place in its cluster (init_cluster); size 1 otherwise
};

}  // namespace porter::backend
