// porter/cp_async/protocol.hpp — how a cp_async stage completes (Ampere, sm_80+).
//
// PROTOCOL (CTA-collective: every thread produces and consumes, in the same order), the multistage
// loop of hand-written cp.async kernels (CUTLASS "multistage" mainloops, the CUDA samples):
//   header    nothing: no mbarrier is initialised, armed or waited on.
//   acquire   if no CTA barrier has passed since the stage to be refilled was released, one CTA
//             barrier (porter/detail/reuse_guard.hpp).
//   copy      every thread issues its cp.async chunks (porter/cp_async/copy.hpp); copies of sources
//             aligned below 4 bytes move with plain loads and stores.
//   commit    cp.async.commit_group: one group per stage and thread.
//   wait      cp.async.wait_group N, N = the groups this thread committed after the stage's own,
//             capped to S-1 or S-2 (the counts a ring of S stages reaches; a smaller count is
//             always correct and only waits longer), then one CTA barrier: every thread's copies of
//             the stage are visible to every thread (cp.async writes are the issuing thread's,
//             complete at wait_group; PTX ISA 9.7.9.25.3.3), and every thread is done with the stage
//             released before (the barrier also serves the reuse guard).
//   release   no instruction.
// So a step of porter::run_pipeline (S >= 2) costs one commit, one wait_group and ONE CTA barrier,
// as the hand-written loop does. Split producer/consumer roles (an mbarrier form with
// cp.async.mbarrier.arrive.noinc) are not part of this CTA-collective protocol.
// Source: PTX ISA 8.x 9.7.9.25.3 (cp.async, commit_group, wait_group); CUDA C++ Programming Guide,
// "Asynchronous Data Copies", multi-stage pipelining with __pipeline_wait_prior.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/cp_async/copy.hpp"
#include "porter/cache_hint.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/reuse_guard.hpp"
#include "porter/detail/trap.hpp"
#include "porter/ptx/cp_async.hpp"
#include "porter/source.hpp"

namespace porter::backend {

/// The cp_async protocol for a ring (porter::stage_ring<S, Boxes...>); see the file comment.
template <class Ring>
class cp_async_protocol {
 public:
  static constexpr int stages = Ring::stages;

#if defined(__CUDACC__)
  /// Record this thread's place in the CTA. Collective; the pipeline follows it with a CTA barrier.
  /// Traps on a compile target without cp.async (porter::launch refuses that on the host).
  PORTER_DEVICE void init(unsigned char* /*header*/, unsigned thread, unsigned nthreads) {
    if constexpr (arch::device_pass && !arch::has_cp_async)
      detail::trap("path cp_async was compiled for a target without cp.async (needs sm_80); porter::launch refuses this on the host");
    thread_ = thread;
    nthreads_ = nthreads;
  }
  /// Called by the pipeline right after init when it was built with porter::cta_threads<N>: the
  /// copies may rely on nthreads being that constant (copy_context::fixed_nthreads).
  PORTER_DEVICE PORTER_FORCEINLINE void fixed_cta_size() { fixed_ = true; }
  /// Make stage `stage` of pass `pass` writable. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void acquire(unsigned stage, unsigned pass) { guard_.before_acquire(stage, pass); }
  /// Copy a box into buffer I of `stage`. Collective.
  template <int I, class Box, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_box(unsigned /*stage*/, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                 const coord<Box::rank>& at) {
    cp_async_copy::copy_box<Box, H>(dst, src, at, ctx());
  }
  /// Copy `bytes` contiguous bytes into buffer I of `stage`. Collective.
  template <int I, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_bytes(unsigned /*stage*/, void* dst, const void* src, std::size_t bytes) {
    cp_async_copy::copy_bytes<H>(dst, src, bytes, ctx());
  }
  /// Close this thread's cp.async group of the stage. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void commit(unsigned /*stage*/, unsigned /*pass*/) { ptx::cp_async_commit_group(); }
  /// Wait for this thread's group of the stage, then a CTA barrier. `pending_after`: groups this
  /// thread committed after the stage's. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void wait(unsigned /*stage*/, unsigned /*pass*/, unsigned pending_after) {
    if constexpr (stages >= 3) {
      if (pending_after >= unsigned(stages - 1)) ptx::cp_async_wait_group<stages - 1>();
      else if (pending_after >= unsigned(stages - 2)) ptx::cp_async_wait_group<stages - 2>();
      else ptx::cp_async_wait_group<0>();
    } else if constexpr (stages == 2) {
      if (pending_after >= 1u) ptx::cp_async_wait_group<1>();
      else ptx::cp_async_wait_group<0>();
    } else {
      (void)pending_after;
      ptx::cp_async_wait_group<0>();
    }
    __syncthreads();
    guard_.on_barrier();
  }
  /// This thread is done reading the stage. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void release(unsigned /*stage*/, unsigned /*pass*/) { guard_.on_release(); }

 private:
  PORTER_DEVICE PORTER_FORCEINLINE detail::copy_context ctx() const { return detail::copy_context{nullptr, thread_, nthreads_, false, fixed_}; }
#endif  // __CUDACC__

  detail::reuse_guard<Ring::stages> guard_{};
  unsigned thread_ = 0, nthreads_ = 0;
  bool fixed_ = false;  // fixed_cta_size() was called
};

}  // namespace porter::backend
