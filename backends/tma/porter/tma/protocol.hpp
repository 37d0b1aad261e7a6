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
//   init      as above, plus one EMPTY mbarrier per stage (the header's second half) counting one
//             arrival per warp of every CTA of the cluster (warps x cluster size), then a cluster
//             barrier (barrier.cluster.arrive + wait): every CTA's barriers are initialised
//             (fence.mbarrier_init.release.cluster) before any peer arrives on them or multicasts
//             into them.
//   acquire   from pass 1 on, thread 0 waits for EMPTY's phase of the previous pass in its own CTA
//             (acquire at cluster scope): every thread of every CTA has released the stage, so a
//             multicast may land in all of them and this CTA's own copies may overwrite it. Only
//             thread 0 waits; the other warps run on (warp 0's other lanes wait for thread 0). No CTA barrier: EMPTY counts this CTA's
//             threads as well. The thread-load fallbacks, which every thread stores, first run a
//             CTA barrier (copy_context::stores_need_barrier; porter/tma/copy.hpp).
//   copy      async_copy(..., porter::multicast): thread 0 of every CTA expects the box's bytes on
//             its own FULL; thread 0 of the issuing CTA, rank (pass x S + stage) mod cluster size,
//             issues the box with .multicast::cluster to every CTA (porter/tma/copy.hpp
//             copy_box_multicast). Boxes copied without the tag are each CTA's own, as above.
//   release   (warp-collective) every thread runs fence.proxy.async.shared::cta (its generic-proxy
//             reads before the refill's async-proxy writes: porter/tma/role_protocol.hpp says why
//             the mbarrier handover needs it); after __syncwarp, lane r < cluster size arrives on
//             CTA r's EMPTY, its own CTA's included (a last warp with fewer lanes than the cluster
//             has CTAs: its lanes share them out) (mapa + mbarrier.arrive.shared::cluster, release
//             at CTA scope: porter/ptx/mbarrier.hpp says why not release.cluster). One arrival per
//             warp and CTA: with one per thread on its own CTA (the role rings' form, kept there for
//             compute-sanitizer racecheck, porter/ptx/role_ring.hpp) the bf16 mma.sync GEMM's
//             multicast ring ran at 384 TFLOP/s, with one per warp at 403 (H100, 8192^3, session
//             45). compute-sanitizer racecheck does not follow this order (lane r's reads, __syncwarp,
//             lane 0's arrival, thread 0's wait): it reported every byte of a 1D box's cp.async.bulk
//             refill as a WAR hazard (H100, session 46); none on the tensor copies of 2D-5D boxes.
//             1D boxes, like the thread-store fallbacks, take a CTA barrier first in such a ring
//             (porter/tma/copy.hpp). The arrival is made
//             when the stage is released, not when it is refilled: a CTA may run up to S - D - 1
//             steps ahead of its slowest peer when it copies D steps ahead (porter::run_pipeline),
//             instead of meeting it at every refill, which is what the form before session 45 did
//             (thread 0 arrived for its whole CTA at the refill, after a CTA reuse barrier).
//             Measured (H100, session 45, bench/results/h100-2026-12-07-session45): the SIMT GEMM
//             of bench/ports (short, compute-bound steps) 0.79x -> 0.91x its kernel without
//             clusters, its barrier stall 39.9% -> 0.7%; the bf16 mma.sync GEMM (long steps)
//             0.99-1.07x -> 0.94-0.96x its kernel without clusters (403 against 412-418 TFLOP/s).
//   exit      a peer may arrive on this CTA's EMPTY, or multicast into it, until its last step: end
//             the kernel with porter::cluster_sync() in every thread.
//   Each CTA's own commit arrival keeps its phase open until its own expect_tx has been posted, so
//   a peer's bytes landing first cannot complete it early.
//   EMPTY counts arrivals, not who made them; the waits of every CTA's thread 0 keep that sound. A
//   warp arrives for pass p of a stage only after its CTA's FULL of pass p completed, which needs
//   its thread 0's commit, after that thread 0 saw its EMPTY complete pass p - 1. So the first
//   arrival for pass p anywhere in the cluster comes after some EMPTY collected every warp's
//   arrival for pass p - 1 (each warp's count is capped at p until then): every reader of the
//   cluster has released pass p - 1 before any arrival for pass p exists. A phase that a pass-p
//   arrival completes in place of a pass-(p - 1) arrival still in flight is therefore safe to act
//   on, and no phase runs two ahead of its waiter (pass p + 1 needs this CTA's own warps, who wait
//   for FULL of p + 1 first), so no parity aliases. Every CTA's wait is needed, not only the
//   issuer's: a step whose box does not go out as a multicast (a 1D box, or an innermost coordinate
//   that is not 16-byte aligned, which every CTA copies with thread loads) does not couple the CTAs
//   through FULL, and an issuer-only form hung in the device matrix's Multicast/tma.box2d on an H100
//   (session 37).
//   Why not a cluster barrier as the reuse barrier (the form before session 37): every thread of
//   every CTA meets at it and it releases at cluster scope; measured on an H100 (session 37,
//   bench/results/h200-2026-12-05-session37/NOTES.md) the multicast GEMM ran 0.77x its kernel
//   without clusters with it.
// Why a phase cannot be confused with the next one: pass n+1 of a stage is only issued after a
// CTA barrier that every thread reached after its wait for pass n (in a cluster-multicast ring,
// after thread 0's EMPTY wait, which needs every warp's arrival, made after the __syncwarp that
// every lane reaches after its wait for pass n), so no thread still waits for the parity of pass n
// when pass n+1 completes.
// Cost per step of porter::run_pipeline (S >= 2): one expect_tx and one copy per box and one
// arrive, all by thread 0; one try_wait per thread; one CTA barrier. A cluster-multicast ring has
// no CTA barrier (but on a step whose copy falls back to thread stores, or copies a 1D box or a
// byte range: porter/tma/copy.hpp); it adds one EMPTY wait on
// thread 0, a proxy fence per thread, and per warp a __syncwarp and one arrival per CTA of the
// cluster.
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
    const unsigned lanes = nthreads - (thread & ~31u);  // threads of this thread's warp, from lane 0
    warp_lanes_ = lanes >= 32u ? 32u : lanes;
    warp_mask_ = lanes >= 32u ? 0xffffffffu : (1u << lanes) - 1u;
    if (thread == 0) {
      for (int s = 0; s < stages; ++s) ptx::mbarrier_init(full_ + s, 1);
      if (empty_ != nullptr)  // one arrival per warp of every CTA of the cluster (release)
        for (int s = 0; s < stages; ++s) ptx::mbarrier_init(empty_ + s, (nthreads + 31u) / 32u * mc_.size);
      ptx::fence_mbarrier_init();
    }
  }
  /// As init, for a cluster-multicast ring (see CLUSTER MULTICAST above): EMPTY[s] (after the
  /// FULL barriers in `header`) counts one arrival per warp of every CTA of the cluster, and a
  /// cluster barrier ends it (every CTA's barriers are initialised before a peer arrives on them or
  /// multicasts into this CTA). Collective over every thread of the cluster. Without clusters (a cluster of one
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
      mc_.advance();
      // Every CTA's thread 0, not only the issuer's: see "EMPTY counts arrivals" above. No CTA
      // barrier: EMPTY counts this CTA's warps too.
      if (pass != 0 && thread_ == 0) wait_empty(stage, pass);
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
  /// This thread is done reading the stage. Collective. In a cluster-multicast ring: a proxy fence
  /// and the arrivals on every CTA's EMPTY (see CLUSTER MULTICAST).
  PORTER_DEVICE PORTER_FORCEINLINE void release(unsigned stage, unsigned /*pass*/) {
    if (mc_.size > 1) {
      ptx::fence_proxy_async_shared_cta();
      __syncwarp(warp_mask_);
      // Lane r arrives on CTA r's EMPTY, its own included; in a last warp of fewer lanes than the
      // cluster has CTAs, lane r also on CTAs r + lanes, r + 2 lanes, ...
      for (unsigned r = thread_ & 31u; r < mc_.size; r += warp_lanes_) ptx::mbarrier_arrive_cluster(empty_ + stage, r);
    } else {
      guard_.on_release();
    }
  }

 private:
  /// Thread 0, before a refill of (stage, pass >= 1) in a cluster-multicast ring: wait for this
  /// CTA's EMPTY phase of pass - 1 (every CTA of the cluster has released the stage), acquire at
  /// cluster scope.
  PORTER_DEVICE PORTER_FORCEINLINE void wait_empty(unsigned stage, unsigned pass) {
    ptx::wait_phase</*Cluster=*/true, /*Counters=*/false>(
        empty_ + stage, (pass - 1u) & 1u,
        "producer_acquire: a CTA of the cluster never released the stage (EMPTY wait timed out: a CTA made fewer pipeline "
        "calls than its peers, a warp skipped consumer_release, or a CTA exited early)",
        stage, pass);
  }
  PORTER_DEVICE PORTER_FORCEINLINE detail::copy_context ctx(unsigned stage) const {
    detail::copy_context c{full_ + stage, thread_, nthreads_};
    c.stores_need_barrier = mc_.size > 1;  // only thread 0 waited for EMPTY (acquire)
    return c;
  }
#endif  // __CUDACC__

  std::uint64_t* full_ = nullptr;
  std::uint64_t* empty_ = nullptr;  // a cluster-multicast ring in a cluster of more than one CTA only
  detail::reuse_guard<Ring::stages> guard_{};
  unsigned thread_ = 0, nthreads_ = 0;
  unsigned warp_mask_ = 0xffffffffu;  // the lanes of this thread's warp that exist (release's __syncwarp)
  unsigned warp_lanes_ = 32;          // how many (release's arrivals)
  multicast_group mc_{};  // a cluster-multicast ring's place in its cluster (init_cluster); size 1 otherwise
};

}  // namespace porter::backend
