// porter/detail/reuse_guard.hpp — when a CTA-collective ring needs a CTA barrier before a stage is
// overwritten (the write-after-read hazard every lowering's protocol shares).
//
// A released stage may still be read by slower threads of the CTA. Before the producer writes it
// again (copy engine, cp.async or plain stores), every thread's reads of it must be ordered before
// those writes. In a CTA-collective ring a CTA barrier that every thread reaches AFTER releasing the
// stage does that (PTX ISA 9.7.13.1, bar.sync: memory ordering among participating threads; the
// copy engine's writes are issued after the barrier in the issuing thread's program order, as in
// CUTLASS's multistage mainloops). Most protocols already run such a barrier once per step (the
// cp_async and staged waits end with one), so the guard only adds one when none has passed:
//
//   acquire number a (= pass * S + stage) refills the stage released by release number a - S.
//   That release is covered when the last CTA barrier came after it: a - S < released_at_barrier,
//   kept as one threshold, a < first_unsafe = released_at_barrier + S.
//
// Per-thread state, uniform across the CTA (every thread makes the same calls in the same order).
#pragma once
#include "porter/config.hpp"

namespace porter::detail {

/// Bookkeeping of releases and CTA barriers for one ring of `Stages` stages (see file comment).
template <int Stages>
struct reuse_guard {
  unsigned released = 0;                 ///< stages released so far by this thread
  unsigned first_unsafe = unsigned(Stages);  ///< the first acquire number whose refill is not covered: S + `released` at the last CTA barrier

#if PORTER_GPU_COMPILER
  /// A CTA barrier every thread passed has just completed (called by the protocol after it).
  PORTER_DEVICE PORTER_FORCEINLINE void on_barrier() { first_unsafe = released + unsigned(Stages); }
  /// This thread has released one more stage.
  PORTER_DEVICE PORTER_FORCEINLINE void on_release() { ++released; }
  /// Before acquire (stage, pass): run a CTA barrier if the stage's last release is not yet
  /// covered by one. Collective (the condition is uniform across the CTA). One compare: acquire
  /// a is covered iff a - S < released-at-barrier, i.e. a < first_unsafe (the first pass, a < S,
  /// is covered from the start: first_unsafe starts at S).
  PORTER_DEVICE PORTER_FORCEINLINE void before_acquire(unsigned stage, unsigned pass) {
    before_acquire(stage, pass, [] { __syncthreads(); });
  }
  /// As above with another barrier over every thread that reads the ring (`barrier()`, collective
  /// over that set). (A cluster-multicast ring on tma does not use the guard: its EMPTY mbarrier
  /// counts every warp's release, porter/tma/protocol.hpp.)
  template <class Barrier>
  PORTER_DEVICE PORTER_FORCEINLINE void before_acquire(unsigned stage, unsigned pass, Barrier&& barrier) {
    const unsigned a = pass * unsigned(Stages) + stage;  // this acquire's number (stage < Stages)
    if (a >= first_unsafe) {
      barrier();
      on_barrier();
    }
  }
#endif
};

}  // namespace porter::detail
