// porter/ptx/role_ring.hpp — the FULL and EMPTY mbarriers of a role-split ring (porter::roles),
// shared by the NVIDIA lowerings' role protocols (tma, cp_async, staged).
//
// Header: FULL[s] at header + 8 s, EMPTY[s] at header + 8 (S + s) (stage_ring reserves 16 bytes
// per stage). FULL's arrival count is the lowering's (the producer threads on every NVIDIA path;
// on tma producer thread 0 also arms it with expect_tx); EMPTY's is the consumer threads: every
// consumer thread arrives once per release (mbarrier.arrive has release semantics at CTA scope, so
// each thread's own reads of the stage are ordered before the producers' later generic-proxy
// writes, which follow their acquire wait on EMPTY; a TMA refill writes through the async proxy and
// also needs fence.proxy.async before the arrival: porter/tma/role_protocol.hpp). Why not one arrival per warp after __syncwarp: by the
// memory model that is enough too, but compute-sanitizer racecheck does not follow one lane's
// arrival for its warp's other lanes, and reported every thread-load refill of a stage as a WAR
// hazard (59,911 on the tma role fallback on the H200, 2026-12-01; 0 with per-thread arrivals).
// CUTLASS's PipelineAsync counts its consumers per thread the same way.
//
//   producer: acquire = wait EMPTY[s] for the release of pass - 1 (nothing on pass 0)
//   consumer: wait    = wait FULL[s] phase `pass`;  release = one arrival per thread on EMPTY[s]
// Parities: the phase of pass n has parity n & 1. A producer waits for EMPTY's phase n - 1 only
// after it filled pass n - 1, and the consumers release pass n only after waiting for it, so no
// wait can see a phase two ahead of the one it names.
// Named barriers for a role's own threads: id 1 for the producers, id 2 for the consumers
// (porter::role_pipeline::sync_role); a kernel using named barriers of its own takes ids 3..15.
// consumer_release must be called by every consumer thread (a thread that skips it leaves EMPTY
// short: the producers' next acquire times out, and traps in debug builds).
// Source: PTX ISA 8.x 9.7.13.15 (mbarrier), 9.7.13.1 (bar.sync with a thread count); CUTLASS
// sm90_pipeline.hpp (PipelineTmaAsync / PipelineAsync: FULL and EMPTY barriers per stage).
#pragma once
#include <cstdint>

#include "porter/detail/trap.hpp"
#include "porter/ptx/barrier.hpp"
#include "porter/ptx/common.hpp"
#include "porter/ptx/mbarrier.hpp"
#include "porter/ptx/smem_counter.hpp"

#if !defined(PORTER_DEBUG_WAIT_CYCLES)
/// Debug builds: cycles a thread may spin on one mbarrier phase before trapping (~2 s at 2 GHz).
#  define PORTER_DEBUG_WAIT_CYCLES (4000000000LL)
#endif

namespace porter::ptx {

/// Named barrier id of the producer threads of a role pipeline, and of its consumer threads.
inline constexpr unsigned producer_barrier_id = 1;
inline constexpr unsigned consumer_barrier_id = 2;

#if defined(__CUDACC__)
/// Spin until the phase of parity `parity` of `bar` has completed (acquire, CTA scope). Debug
/// builds trap after PORTER_DEBUG_WAIT_CYCLES naming `what`, the stage and the pass. Cluster: acquire
/// at cluster scope (a phase that threads of other CTAs of the cluster complete; sm_90). Below sm_80
/// `bar` holds a shared-memory phase counter (porter/ptx/smem_counter.hpp), polled with nanosleep.
template <bool Cluster = false, bool Counters = !arch::has_mbarrier>
PORTER_DEVICE PORTER_FORCEINLINE void wait_phase(std::uint64_t* bar, unsigned parity, const char* what, unsigned stage, unsigned pass) {
  auto probe = [&] {
    if constexpr (Counters) {
      if (smem_counter_test(reinterpret_cast<std::uint32_t*>(bar), parity)) return true;
      smem_counter_backoff();
      return false;
    } else if constexpr (Cluster) {
      return mbarrier_try_wait_parity_cluster(bar, parity);
    } else {
      return mbarrier_try_wait_parity(bar, parity);
    }
  };
#if PORTER_DEBUG
  const long long t0 = clock64();
  while (!probe())
    if (clock64() - t0 > PORTER_DEBUG_WAIT_CYCLES) detail::trap_stage(what, stage, pass);
#else
  (void)what;
  (void)stage;
  (void)pass;
  while (!probe()) {
  }
#endif
}

#endif  // __CUDACC__

/// The FULL / EMPTY barriers of a role-split ring of `Stages` stages with `ConsumerThreads`
/// consumer threads (see the file comment). Per-thread object; every operation is called by the role's
/// threads only. With `Counters` (the default on a target without mbarrier, sm_75) each barrier is
/// a shared-memory phase counter in the low word of its 8-byte slot (porter/ptx/smem_counter.hpp)
/// with the same arrival counts and parities; only the staged lowering's role protocol runs that
/// way (tma and cp_async complete through mbarrier transactions and cp.async arrivals).
template <int Stages, unsigned ConsumerThreads, bool Counters = !arch::has_mbarrier>
struct role_ring {
  std::uint64_t* full = nullptr;
  std::uint64_t* empty = nullptr;
#if defined(__CUDACC__)
  static PORTER_DEVICE PORTER_FORCEINLINE std::uint32_t* counter(std::uint64_t* bar) { return reinterpret_cast<std::uint32_t*>(bar); }

  /// Point at the header; thread 0 initialises FULL with `full_count` arrivals and EMPTY with one
  /// per consumer thread, plus, in a cluster-multicast ring of `ctas` CTAs (1 otherwise), one per
  /// consumer warp of each of the ctas - 1 peers (consumer_release_cluster). The caller follows
  /// with a CTA barrier (with a cluster barrier when ctas > 1: no peer may arrive before this CTA
  /// initialised them).
  PORTER_DEVICE void init(unsigned char* header, unsigned thread, unsigned full_count, unsigned ctas = 1) {
    full = reinterpret_cast<std::uint64_t*>(header);
    empty = full + Stages;
    if (thread == 0) {
      for (int s = 0; s < Stages; ++s) {
        if constexpr (!Counters) {
          mbarrier_init(full + s, full_count);
          mbarrier_init(empty + s, ConsumerThreads + ConsumerThreads / 32u * (ctas - 1u));
        } else {
          smem_counter_init(counter(full + s));
          smem_counter_init(counter(empty + s));
        }
      }
      if constexpr (!Counters) fence_mbarrier_init();  // counters: the constructor's CTA barrier publishes them
    }
  }
  /// Producer: this thread's arrival on FULL[stage] (release at CTA scope: its stores of the stage
  /// are visible to the consumers that observe the phase complete); `full_count`: init's, FULL's
  /// arrivals per phase (a counter completes its phase itself). The lowerings whose copies arrive by
  /// themselves (cp.async.mbarrier.arrive, expect_tx) arrive their own way.
  PORTER_DEVICE PORTER_FORCEINLINE void producer_arrive(unsigned stage, unsigned full_count) const {
    if constexpr (!Counters) mbarrier_arrive(full + stage);
    else smem_counter_arrive(counter(full + stage), full_count);
  }
  /// Producer: stage `stage` may be written for pass `pass` (its release of pass - 1 is complete).
  PORTER_DEVICE PORTER_FORCEINLINE void producer_acquire(unsigned stage, unsigned pass) const {
    if (pass != 0)
      wait_phase<false, Counters>(empty + stage, (pass - 1) & 1u,
                 "producer_acquire: the consumers never released the stage (EMPTY wait timed out: a consumer warp skipped "
                 "consumer_release)",
                 stage, pass);
  }
  /// As producer_acquire in a cluster-multicast ring: the EMPTY phase collects the consumers of
  /// every CTA of the cluster (consumer_release_cluster), so the wait acquires at cluster scope.
  PORTER_DEVICE PORTER_FORCEINLINE void producer_acquire_cluster(unsigned stage, unsigned pass) const {
    if (pass != 0)
      wait_phase<true>(empty + stage, (pass - 1) & 1u,
                       "producer_acquire: the consumers of the cluster never released the stage (EMPTY wait timed out: a "
                       "consumer warp of some CTA skipped consumer_release, or a CTA of the cluster exited)",
                       stage, pass);
  }
  /// Consumer: the stage's pass `pass` has landed.
  PORTER_DEVICE PORTER_FORCEINLINE void consumer_wait(unsigned stage, unsigned pass) const {
    wait_phase<false, Counters>(full + stage, pass & 1u,
               "consumer_wait: the stage never landed (FULL wait timed out: a producer skipped producer_commit, or a copy never "
               "completed)",
               stage, pass);
  }
  /// Begin a role of `Roles`: setmaxnreg.dec / .inc to the roles' register budgets where asked
  /// (porter::registers) and the target has it; nothing otherwise.
  template <class Roles>
  static PORTER_DEVICE PORTER_FORCEINLINE void enter_role(bool producer) {
    if constexpr (Roles::reallocates) {
      if (producer) setmaxnreg_dec<Roles::producer_registers>();
      else setmaxnreg_inc<Roles::consumer_registers>();
    }
  }
  /// Barrier among the threads of one role of `Roles` (named barrier 1 or 2).
  template <class Roles>
  static PORTER_DEVICE PORTER_FORCEINLINE void sync_role(bool producer) {
    if (producer) named_barrier_sync<producer_barrier_id>(Roles::producer_threads);
    else named_barrier_sync<consumer_barrier_id>(Roles::consumer_threads);
  }
  /// Consumer: this thread is done reading the stage (every consumer thread calls it).
  PORTER_DEVICE PORTER_FORCEINLINE void consumer_release(unsigned stage) const {
    if constexpr (!Counters) mbarrier_arrive(empty + stage);
    else smem_counter_arrive(counter(empty + stage), ConsumerThreads);
  }
  /// Consumer, in a cluster-multicast ring of `ctas` CTAs of which this is rank `self`: this
  /// thread's arrival on its own CTA's EMPTY, as in consumer_release (per thread, release at CTA
  /// scope: compute-sanitizer racecheck follows that form), then its warp's arrival on each peer's
  /// EMPTY: after __syncwarp (every lane's reads, and its proxy fence, ordered before lane 0's
  /// arrival) lane 0 arrives on each peer (mapa + mbarrier.arrive.shared::cluster, release at CTA
  /// scope: what it releases is reads, whose values are bound before the arrival; the
  /// release.cluster form put a GPU-scope MEMBAR behind every warp's arrival and ran the multicast
  /// GEMMs at 0.72x, session 36; porter/ptx/mbarrier.hpp mbarrier_arrive_cluster). One remote
  /// arrival per warp and peer, not per thread: measured on the H200 (session 32), 256 remote
  /// arrivals per stage per CTA (one per consumer thread) ran the wgmma GEMM at 0.71x the same
  /// kernel without clusters.
  /// Warp-collective: every lane of the warp calls it together. `lane`: this thread's lane (0..31).
  PORTER_DEVICE PORTER_FORCEINLINE void consumer_release_cluster(unsigned stage, unsigned self, unsigned ctas, unsigned lane) const {
    mbarrier_arrive(empty + stage);
    __syncwarp();
    if (lane == 0)
      for (unsigned r = 0; r < ctas; ++r)
        if (r != self) mbarrier_arrive_cluster(empty + stage, r);
  }
#endif  // __CUDACC__
};

}  // namespace porter::ptx
