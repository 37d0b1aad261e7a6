// porter/staged/role_protocol.hpp (NVIDIA flavour) — how a staged stage completes when the CTA is
// split into producer and consumer roles (porter::role_pipeline, porter/roles.hpp; sm_80+).
//
// The producer threads load through registers and store to shared memory; the stage completes on
// an mbarrier, so the consumers never wait for a CTA barrier the producers would have to join:
//   header    FULL[s] with one arrival per producer thread, EMPTY[s] with one per consumer thread
//             (porter/ptx/role_ring.hpp), initialised by thread 0 before the roles begin.
//   acquire   (producers) wait for EMPTY's phase of the previous pass (nothing on pass 0).
//   copy      (producers) plain loads and shared-memory stores by the producer threads
//             (porter/staged/copy.hpp), synchronous: nothing is deferred.
//   commit    (producers) every producer thread arrives on FULL (mbarrier.arrive, or the counter's
//             atomic add below sm_80; release at CTA scope: its stores are visible to the consumers
//             that observe the phase complete).
//   wait      (consumers) every consumer thread waits for FULL's phase of this pass (acquire).
//   release   (consumers) every consumer thread arrives on EMPTY (porter/ptx/role_ring.hpp).
// mbarrier needs sm_80: compiled for sm_75, FULL and EMPTY are shared-memory phase counters
// instead (porter/ptx/smem_counter.hpp: atom.release.cta.shared.add per arrival, a polled
// ld.acquire.cta.shared per wait), with the same counts and parities, so the staged role pipeline
// runs on every NVIDIA target porter builds for (path::staged::role_min_compute_capability = 0).
// Source: PTX ISA 8.x 9.7.13.15 (mbarrier arrive: release; try_wait / test_wait: acquire),
// 9.7.12.5 (atom .release), 9.7.9.8 (ld .acquire).
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/cache_hint.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/trap.hpp"
#include "porter/ptx/mbarrier.hpp"
#include "porter/ptx/role_ring.hpp"
#include "porter/roles.hpp"
#include "porter/source.hpp"
#include "porter/staged/copy.hpp"

#if !defined(PORTER_STAGED_ROLE_COUNTERS)
/// 1: the staged role protocol completes on shared-memory phase counters (porter/ptx/smem_counter.hpp)
/// on every target, not only where there is no mbarrier (sm_75). For tests: it lets a GPU with
/// mbarriers run the sm_75 protocol. Affects path staged only; the same value in every translation
/// unit that instantiates the same staged role kernels.
#  define PORTER_STAGED_ROLE_COUNTERS 0
#endif

namespace porter::backend {

/// The staged protocol for a ring (porter::stage_ring<S, Boxes...>) split by `Roles`.
template <class Ring, class Roles>
class staged_role_protocol {
 public:
  static constexpr int stages = Ring::stages;

#if defined(__CUDACC__)
  /// Initialise the barriers (thread 0) and record this thread's role. Collective over the CTA; the
  /// pipeline follows it with a CTA barrier. sm_75 (no mbarrier): shared-memory phase counters.
  PORTER_DEVICE void init(unsigned char* header, unsigned thread, unsigned /*nthreads*/) {
    ring_.init(header, thread, Roles::producer_threads);
    rank_ = thread < Roles::producer_threads ? thread : thread - Roles::producer_threads;
  }
  /// Producers: make stage `stage` of pass `pass` writable.
  PORTER_DEVICE PORTER_FORCEINLINE void acquire(unsigned stage, unsigned pass) { ring_.producer_acquire(stage, pass); }
  /// Producers: copy a box into buffer I of `stage` (loads and stores by the producer threads).
  template <int I, class Box, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_box(unsigned /*stage*/, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                 const coord<Box::rank>& at) {
    staged_copy::copy_box<Box>(dst, src, at, ctx());
  }
  /// Producers: copy `bytes` contiguous bytes into buffer I of `stage`.
  template <int I, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_bytes(unsigned /*stage*/, void* dst, const void* src, std::size_t bytes) {
    staged_copy::copy_bytes(dst, src, bytes, ctx());
  }
  /// Producers: this thread's stores of the stage are done (one arrival on FULL).
  PORTER_DEVICE PORTER_FORCEINLINE void commit(unsigned stage, unsigned /*pass*/) { ring_.producer_arrive(stage, Roles::producer_threads); }
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
  /// Consumers: this warp is done reading the stage.
  PORTER_DEVICE PORTER_FORCEINLINE void release(unsigned stage, unsigned /*pass*/) { ring_.consumer_release(stage); }

 private:
  PORTER_DEVICE PORTER_FORCEINLINE detail::copy_context ctx() const {
    return detail::copy_context{nullptr, rank_, Roles::producer_threads, true};
  }
#endif  // __CUDACC__

  // Phase counters instead of mbarriers below sm_80, and everywhere in a translation unit built with
  // PORTER_STAGED_ROLE_COUNTERS=1 (so that the H200's device tests run the sm_75 protocol too).
  using ring_type = ptx::role_ring<Ring::stages, Roles::consumer_threads, !arch::has_mbarrier || PORTER_STAGED_ROLE_COUNTERS != 0>;
  ring_type ring_{};
  unsigned rank_ = 0;
};

}  // namespace porter::backend
