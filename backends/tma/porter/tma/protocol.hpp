// porter/tma/protocol.hpp — how a tma stage completes (Hopper, sm_90+).
//
// PROTOCOL (CTA-collective: every thread calls every operation, in the same order):
//   header    one FULL mbarrier per stage (8 bytes each, at the start of the ring), initialised by
//             thread 0 with arrival count 1, then fence.mbarrier_init (PTX ISA 9.7.13.15.9, 9.7.13.4).
//   acquire   if no CTA barrier has passed since the stage to be refilled was released, one CTA
//             barrier (porter/detail/reuse_guard.hpp): every thread's reads of the old contents are
//             then ordered before thread 0 issues the copy engine's writes. No mbarrier traffic.
//   copy      thread 0 raises FULL's expected transaction bytes (mbarrier.expect_tx) by the bytes of
//             the copy and issues cp.async.bulk / cp.async.bulk.tensor completing on FULL
//             (complete_tx::bytes). Boxes TMA cannot take (inner coordinate not 16-byte aligned;
//             unaligned heads and tails of byte ranges) move with thread loads, followed by
//             fence.proxy.async and a CTA barrier (porter/tma/copy.hpp).
//   commit    thread 0 arrives on FULL, once: the phase completes when that arrival has happened and
//             every expected byte has landed. FULL never sees per-thread arrivals.
//   wait      every thread waits for FULL's phase of this pass (mbarrier.try_wait.parity, parity =
//             pass & 1; acquire semantics: the landed bytes are visible to the waiting thread).
//             Debug builds give up after PORTER_DEBUG_WAIT_CYCLES and trap naming stage and pass.
//   release   no instruction: the next refill's acquire runs the CTA barrier if needed.
// CLUSTER MULTICAST (porter::pipeline(smem, porter::cluster_multicast), launched in clusters of
// more than one CTA; every CTA of the cluster makes the same calls with the same arguments):
//   init      as above, plus one EMPTY mbarrier per stage (the header's second half) with one
//             arrival per CTA of the cluster, then a cluster barrier (barrier.cluster.arrive +
//             wait): every CTA's barriers are initialised (fence.mbarrier_init.release.cluster)
//             before any peer arrives on them or multicasts into them.
//   acquire   the CTA's own reuse barrier as above (every thread of this CTA is done reading the
//             stage's previous pass), then, from pass 1 on, thread 0 arrives on the stage's EMPTY
//             in every CTA of the cluster, its own included (mapa + mbarrier.arrive.shared::cluster,
//             release at CTA scope: it hands over reads, porter/ptx/mbarrier.hpp says why not
//             release.cluster), and waits for EMPTY's phase of the previous pass in its own CTA
//             (acquire at cluster scope): every CTA has released the stage, so a multicast may land
//             in all of them. Only thread 0 waits; the other threads go on to the next CTA barrier.
//   copy      async_copy(..., porter::multicast): thread 0 of every CTA expects the box's bytes on
//             its own FULL; thread 0 of the issuing CTA issues the box with .multicast::cluster to
//             every CTA (porter/tma/copy.hpp copy_box_multicast). Boxes copied without the tag are
//             each CTA's own, as above.
//   exit      a peer may arrive on this CTA's EMPTY, or multicast into it, until its last step: end
//             the kernel with porter::cluster_sync() in every thread.
//   Each CTA's own commit arrival keeps its phase open until its own expect_tx has been posted, so
//   a peer's bytes landing first cannot complete it early.
//   EMPTY counts arrivals, not who made them; the waits of every CTA keep that sound. A CTA sends
//   its arrival for pass p of a stage only after its own EMPTY completed pass p - 1, which needs
//   every CTA's arrival count to reach p; so no CTA is ever more than one arrival ahead of the
//   slowest, a phase completes only when every CTA has released that pass, and no phase runs two
//   ahead of a waiter (its parity would alias). Only the issuing CTA's wait protects data (its
//   multicast lands in every CTA); the others' waits are what bound the counts, and they are needed:
//   a step whose box does not go out as a multicast (a 1D box, or an innermost coordinate that is
//   not 16-byte aligned, which every CTA copies with thread loads) does not couple the CTAs through
//   FULL, so without them a fast CTA's arrivals ran ahead and a later issuer waited for ever (the
//   issuer-only form hung in the device matrix's Multicast/tma.box2d on an H100, session 37).
//   Why not a cluster barrier as the reuse barrier (the form before session 37): every thread of
//   every CTA meets at it and it releases at cluster scope; measured on an H100 (session 37,
//   bench/results/h200-2026-12-05-session37/NOTES.md) the multicast GEMM ran 0.77x its kernel
//   without clusters with it, 1.02-1.03x with EMPTY.
// Why a phase cannot be confused with the next one: pass n+1 of a stage is only issued after a
// CTA barrier that every thread reached after its wait for pass n, so no thread still waits for the
// parity of pass n when pass n+1 completes.
// Cost per step of porter::run_pipeline (S >= 2): one expect_tx and one copy per box and one
// arrive, all by thread 0; one try_wait per thread; one CTA barrier. A cluster-multicast ring adds,
// on thread 0, one remote arrival per CTA of the cluster and one EMPTY wait.
// Source: PTX ISA 8.x 9.7.13.15 (mbarrier: phases, arrival count, tx-count), 9.7.9.25.4/5 (bulk
// copies); CUTLASS sm90_pipeline.hpp (PipelineTmaAsync: producer arms FULL with expect_tx; with
// clusters, consumers release EMPTY on every CTA that receives the multicast).
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/cache_hint.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/reuse_guard.hpp"
#include "porter/detail/trap.hpp"
#include "porter/ptx/cluster.hpp"
#include "porter/ptx/mbarrier.hpp"
#include "porter/ptx/role_ring.hpp"  // ptx::wait_phase
#include "porter/source.hpp"
#include "porter/tma/copy.hpp"

#if !defined(PORTER_DEBUG_WAIT_CYCLES)
/// Debug builds: cycles a thread may spin on one mbarrier phase before trapping (~2 s at 2 GHz).
#  define PORTER_DEBUG_WAIT_CYCLES (4000000000LL)
#endif

namespace porter::backend {

/// The tma protocol for a ring (porter::stage_ring<S, Boxes...>); see the file comment.
template <class Ring>
class tma_protocol {
 public:
  static constexpr int stages = Ring::stages;

#if defined(__CUDACC__)
  /// Initialise the FULL barriers in `header` (thread 0). Collective; the pipeline follows it with
  /// a CTA barrier. Traps on a compile target without TMA (porter::launch refuses that on the host).
  PORTER_DEVICE void init(unsigned char* header, unsigned thread, unsigned nthreads) {
    if constexpr (arch::device_pass && !arch::has_tma)
      detail::trap("path tma was compiled for a target without TMA (needs sm_90); porter::launch refuses this on the host");
    full_ = reinterpret_cast<std::uint64_t*>(header);
    thread_ = thread;
    nthreads_ = nthreads;
    if (thread == 0) {
      for (int s = 0; s < stages; ++s) ptx::mbarrier_init(full_ + s, 1);
      if (empty_ != nullptr)
        for (int s = 0; s < stages; ++s) ptx::mbarrier_init(empty_ + s, mc_.size);
      ptx::fence_mbarrier_init();
    }
  }
  /// As init, for a cluster-multicast ring (see CLUSTER MULTICAST above): EMPTY[s] (after the
  /// FULL barriers in `header`) counts one arrival per CTA of the cluster, and a cluster barrier
  /// ends it (every CTA's barriers are initialised before a peer arrives on them or multicasts into
  /// this CTA). Collective over every thread of the cluster. Without clusters (a cluster of one
  /// CTA, or a target without them) the ring is an ordinary one.
  PORTER_DEVICE void init_cluster(unsigned char* header, unsigned thread, unsigned nthreads) {
    mc_.init();
    if (mc_.size > 1) empty_ = reinterpret_cast<std::uint64_t*>(header) + stages;
    init(header, thread, nthreads);
    if constexpr (arch::has_clusters) {
      ptx::barrier_cluster_arrive();
      ptx::barrier_cluster_wait();
    }
  }
  /// Make stage `stage` of pass `pass` writable. Collective (see CLUSTER MULTICAST for a
  /// cluster-multicast ring).
  PORTER_DEVICE PORTER_FORCEINLINE void acquire(unsigned stage, unsigned pass) {
    if (mc_.size > 1) {
      guard_.before_acquire(stage, pass);  // this CTA's reads of the stage's previous pass are done
      mc_.advance();
      if (pass != 0 && thread_ == 0) {
        for (unsigned r = 0; r < mc_.size; ++r) ptx::mbarrier_arrive_cluster(empty_ + stage, r);
        wait_empty(stage, pass);  // every CTA, not only the issuer: see "EMPTY counts arrivals" above
      }
    } else {
      guard_.before_acquire(stage, pass);
    }
  }
  /// Copy a box that every CTA of the cluster copies with the same arguments into buffer I of
  /// `stage`: one CTA issues it with .multicast::cluster (see CLUSTER MULTICAST). In a ring that is
  /// not a cluster-multicast one, or in a cluster of one CTA, copy_box. Collective.
  template <int I, class Box, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_box_multicast(unsigned stage, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                           const coord<Box::rank>& at) {
    mc_.copy_box<Box, H>(dst, src, at, ctx(stage));
  }
  /// Copy a box into buffer I of `stage`. Collective. The source must allow tma (tma_copy::copy_box
  /// says what happens when a launch bypassed porter::launch's check).
  template <int I, class Box, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_box(unsigned stage, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                 const coord<Box::rank>& at) {
    tma_copy::copy_box<Box, H>(dst, src, at, ctx(stage));
  }
  /// Copy `bytes` contiguous bytes into buffer I of `stage`. Collective.
  template <int I, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_bytes(unsigned stage, void* dst, const void* src, std::size_t bytes) {
    tma_copy::copy_bytes<H>(dst, src, bytes, ctx(stage));
  }
  /// Thread 0's one arrival on FULL: the stage's copies are all issued. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void commit(unsigned stage, unsigned /*pass*/) {
    if (thread_ == 0) ptx::mbarrier_arrive(full_ + stage);
  }
  /// Wait for FULL's phase of pass `pass`. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void wait(unsigned stage, unsigned pass, unsigned /*pending_after*/) {
    ptx::wait_phase</*Cluster=*/false, /*Counters=*/false>(
        full_ + stage, pass & 1u,
        "consumer_wait: the stage never landed (full-barrier wait timed out: a thread skipped the call, or a copy never "
        "completed)",
        stage, pass);
  }
  /// This thread is done reading the stage. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void release(unsigned /*stage*/, unsigned /*pass*/) { guard_.on_release(); }

 private:
  /// Thread 0, before a refill of (stage, pass >= 1) in a cluster-multicast ring: wait for this
  /// CTA's EMPTY phase of pass - 1 (every CTA of the cluster has released the stage), acquire at
  /// cluster scope.
  PORTER_DEVICE PORTER_FORCEINLINE void wait_empty(unsigned stage, unsigned pass) {
    ptx::wait_phase</*Cluster=*/true, /*Counters=*/false>(
        empty_ + stage, (pass - 1u) & 1u,
        "producer_acquire: a CTA of the cluster never released the stage (EMPTY wait timed out: a CTA made fewer pipeline "
        "calls than its peers, or exited early)",
        stage, pass);
  }
  PORTER_DEVICE PORTER_FORCEINLINE detail::copy_context ctx(unsigned stage) const {
    return detail::copy_context{full_ + stage, thread_, nthreads_};
  }
#endif  // __CUDACC__

  std::uint64_t* full_ = nullptr;
  std::uint64_t* empty_ = nullptr;  // a cluster-multicast ring in a cluster of more than one CTA only
  detail::reuse_guard<Ring::stages> guard_{};
  unsigned thread_ = 0, nthreads_ = 0;
  multicast_group mc_{};  // a cluster-multicast ring's place in its cluster (init_cluster); size 1 otherwise
};

}  // namespace porter::backend
