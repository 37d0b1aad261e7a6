// porter/cp_async/role_protocol.hpp — how a cp_async stage completes when the CTA is split into
// producer and consumer roles (porter::role_pipeline, porter/roles.hpp; Ampere, sm_80+).
//
// The CTA-collective protocol (porter/cp_async/protocol.hpp) completes with wait_group and a CTA
// barrier, which a split CTA cannot run. Split, each stage completes on an mbarrier instead:
//   header    FULL[s] with one arrival per producer thread, EMPTY[s] with one per consumer thread
//             (porter/ptx/role_ring.hpp), initialised by thread 0 before the roles begin.
//   acquire   (producers) wait for EMPTY's phase of the previous pass (nothing on pass 0).
//   copy      (producers) every producer thread issues its cp.async chunks (porter/cp_async/copy.hpp).
//   commit    (producers) every producer thread makes ONE arrival on FULL:
//             cp.async.mbarrier.arrive.noinc, counted when its cp.async copies have landed; or, in a
//             stage where this thread also stored bytes itself (the below-4-byte fallback, which
//             the protocol detects from the same alignment test the copy makes), commit_group +
//             wait_group 0 (= wait_all) and a plain mbarrier.arrive (release: it publishes those stores and the landed
//             copies). One arrival per thread and phase keeps compute-sanitizer synccheck quiet: a
//             thread arriving twice on one phase without waiting is reported as "missing wait".
//   wait      (consumers) every consumer thread waits for FULL's phase of this pass (acquire).
//   release   (consumers) every consumer thread arrives on EMPTY (porter/ptx/role_ring.hpp).
// A cp.async group is committed only on that path, and no CTA barrier runs.
// Source: PTX ISA 8.x 9.7.9.25.3.5 (cp.async.mbarrier.arrive), 9.7.13.15 (mbarrier); CUDA C++
// Programming Guide, "Asynchronous Data Copies" (cuda::barrier with memcpy_async).
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/cp_async/copy.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/cache_hint.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/trap.hpp"
#include "porter/ptx/cp_async.hpp"
#include "porter/ptx/mbarrier.hpp"
#include "porter/ptx/role_ring.hpp"
#include "porter/roles.hpp"
#include "porter/source.hpp"

namespace porter::backend {

/// The cp_async protocol for a ring (porter::stage_ring<S, Boxes...>) split by `Roles`.
template <class Ring, class Roles>
class cp_async_role_protocol {
 public:
  static constexpr int stages = Ring::stages;

#if defined(__CUDACC__)
  /// Initialise the barriers (thread 0) and record this thread's role. Collective over the CTA; the
  /// pipeline follows it with a CTA barrier. Traps on a compile target without cp.async.
  PORTER_DEVICE void init(unsigned char* header, unsigned thread, unsigned /*nthreads*/) {
    if constexpr (arch::device_pass && !arch::has_cp_async)
      detail::trap("path cp_async was compiled for a target without cp.async (needs sm_80); porter::launch refuses this on the host");
    ring_.init(header, thread, Roles::producer_threads);
    rank_ = thread < Roles::producer_threads ? thread : thread - Roles::producer_threads;
  }
  /// Producers: make stage `stage` of pass `pass` writable.
  PORTER_DEVICE PORTER_FORCEINLINE void acquire(unsigned stage, unsigned pass) { ring_.producer_acquire(stage, pass); }
  /// Producers: copy a box into buffer I of `stage`.
  template <int I, class Box, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_box(unsigned /*stage*/, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                 const coord<Box::rank>& at) {
    plain_stores_ |= detail::box_chunk_bytes<Box>(src, at) < 4u;  // cp_async_copy's own test for its plain-load fallback
    cp_async_copy::copy_box<Box, H>(dst, src, at, ctx());
  }
  /// Producers: copy `bytes` contiguous bytes into buffer I of `stage`.
  template <int I, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_bytes(unsigned /*stage*/, void* dst, const void* src, std::size_t bytes) {
    // cp_async_copy::copy_bytes moves the bytes past the last whole chunk of the widest width both
    // addresses allow (>= 4) with plain loads; below 4-byte alignment, all of them.
    const unsigned w = detail::widest_access(reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst));
    plain_stores_ |= bytes != 0 && (w < 4u || bytes % w != 0);
    cp_async_copy::copy_bytes<H>(dst, src, bytes, ctx());
  }
  /// Producers: this thread's copies of the stage are issued: its one arrival on FULL.
  PORTER_DEVICE PORTER_FORCEINLINE void commit(unsigned stage, unsigned /*pass*/) {
    if (plain_stores_) {
      // wait_group counts committed groups only: commit this thread's copies first (= wait_all).
      ptx::cp_async_commit_group();
      ptx::cp_async_wait_group<0>();
      ptx::mbarrier_arrive(ring_.full + stage);
      plain_stores_ = false;
    } else {
      ptx::cp_async_mbarrier_arrive_noinc(ring_.full + stage);
    }
  }
  /// Producers: commit after this thread also wrote into the stage with ordinary stores.
  PORTER_DEVICE PORTER_FORCEINLINE void commit_written(unsigned stage, unsigned pass) {
    plain_stores_ = true;
    commit(stage, pass);
  }
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
    return detail::copy_context{nullptr, rank_, Roles::producer_threads, true, true};
  }
#endif  // __CUDACC__

  using ring_type = ptx::role_ring<Ring::stages, Roles::consumer_threads>;
  ring_type ring_{};
  unsigned rank_ = 0;
  bool plain_stores_ = false;  ///< this thread stored bytes itself in the stage being filled
};

}  // namespace porter::backend
