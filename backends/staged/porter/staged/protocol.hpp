// porter/staged/protocol.hpp — how a staged stage completes (both flavours: NVIDIA and AMD).
//
// PROTOCOL (CTA-collective: every thread produces and consumes, in the same order):
//   init      nothing in shared memory (no barriers in the ring header).
//   acquire   store what is still held in registers (below); then, if no CTA barrier has passed since
//             the stage to be refilled was released, one CTA barrier (porter/detail/reuse_guard.hpp).
//   copy      plain loads and shared-memory stores by every thread. On NVIDIA, a box of at least
//             8 KiB that moves in 16-byte chunks is DEFERRED: each thread loads its first K chunks into registers
//             (staged_copy::deferred_chunks<Box>, up to 64 B per thread) and returns; the rest of
//             the box is stored at once. The held chunks are stored at this thread's next pipeline
//             call (acquire, wait or release), so in porter::run_pipeline, which issues step i+S-1
//             before it consumes step i, the loads stay in flight while the consumer works.
//   commit    nothing.
//   wait      store what is held; one CTA barrier (every thread's stores of the stage are visible,
//             and every thread is done with the stage released before: it also serves the reuse
//             guard).
//   release   store what is held; count the release.
// So a step of run_pipeline costs ONE CTA barrier (S >= 2), like a hand-written multistage loop.
// On AMD the flavour defers nothing (deferred_chunks is 0: not measured on AMD hardware yet), and
// the protocol is the same otherwise (__syncthreads: s_waitcnt lgkmcnt(0) + s_barrier).
// Source: CUDA C++ Programming Guide, "Shared Memory" and __syncthreads; PTX ISA 9.7.13.1 (bar.sync).
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

#include "porter/cache_hint.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/reuse_guard.hpp"
#include "porter/source.hpp"
#include "porter/staged/copy.hpp"

namespace porter::backend {

namespace staged_detail {
/// T, looked up only at instantiation (the deferred operations exist only where a flavour defers).
template <class T, class Dependent> struct late { using type = T; };
/// The chunks a thread holds in registers for buffer I of the stage being filled (K may be 0).
template <int K>
struct held_chunks {
  detail::vec_t<16> v[K > 0 ? K : 1];
  void* dst = nullptr;  ///< the buffer they go to; nullptr: nothing held
};
/// held_chunks for buffers I, I+1, ... of Ring; get<J>() is buffer J's (J >= I).
template <class Ring, int I = 0, bool = (I < Ring::buffers)>
struct held_list {
  held_chunks<staged_copy::deferred_chunks<typename Ring::template box_type<I>>> head;
  held_list<Ring, I + 1> tail;
  template <int J>
  PORTER_HOST_DEVICE PORTER_FORCEINLINE auto& get() {
    if constexpr (J == I) return head;
    else return tail.template get<J>();
  }
};
template <class Ring, int I>
struct held_list<Ring, I, false> {};
}  // namespace staged_detail

/// The staged protocol for a ring (porter::stage_ring<S, Boxes...>); see the file comment.
template <class Ring>
class staged_protocol {
 public:
  static constexpr int stages = Ring::stages;

#if PORTER_GPU_COMPILER
  /// Record this thread's place in the CTA. Collective; the pipeline follows it with a CTA barrier.
  PORTER_DEVICE void init(unsigned char* /*header*/, unsigned thread, unsigned nthreads) {
    thread_ = thread;
    nthreads_ = nthreads;
  }
  /// Make stage `stage` of pass `pass` writable. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void acquire(unsigned stage, unsigned pass) {
    store_held();
    guard_.before_acquire(stage, pass);
  }
  /// Copy a box into buffer I of `stage` (deferred where the flavour can). Collective.
  template <int I, class Box, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_box(unsigned /*stage*/, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                 const coord<Box::rank>& at) {
    constexpr int K = staged_copy::deferred_chunks<Box>;
    if constexpr (K > 0) {
      auto& h = held_.template get<I>();
      if (h.dst) store_one<I>();
      using C = typename staged_detail::late<staged_copy, Box>::type;
      if (C::template load_deferred<Box, K>(h.v, dst, src, at, ctx())) h.dst = dst;
    } else {
      staged_copy::copy_box<Box>(dst, src, at, ctx());
    }
  }
  /// Copy `bytes` contiguous bytes into buffer I of `stage` (synchronous). Collective.
  template <int I, cache_hint H = cache_hint::none>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_bytes(unsigned /*stage*/, void* dst, const void* src, std::size_t bytes) {
    staged_copy::copy_bytes(dst, src, bytes, ctx());
  }
  /// Nothing to close: staged copies have no completion object.
  PORTER_DEVICE PORTER_FORCEINLINE void commit(unsigned /*stage*/, unsigned /*pass*/) {}
  /// Make stage `stage` visible to every thread. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void wait(unsigned /*stage*/, unsigned /*pass*/, unsigned /*pending_after*/) {
    store_held();
    __syncthreads();
    guard_.on_barrier();
  }
  /// This thread is done reading the stage. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void release(unsigned /*stage*/, unsigned /*pass*/) {
    store_held();
    guard_.on_release();
  }

 private:
  PORTER_DEVICE PORTER_FORCEINLINE detail::copy_context ctx() const { return detail::copy_context{nullptr, thread_, nthreads_}; }

  template <int I>
  PORTER_DEVICE PORTER_FORCEINLINE void store_one() {
    using Box = typename Ring::template box_type<I>;
    constexpr int K = staged_copy::deferred_chunks<Box>;
    if constexpr (K > 0) {
      auto& h = held_.template get<I>();
      if (h.dst) {
        using C = typename staged_detail::late<staged_copy, Box>::type;
        C::template store_deferred<Box, K>(h.v, h.dst, ctx());
        h.dst = nullptr;
      }
    }
  }
  template <std::size_t... I>
  PORTER_DEVICE PORTER_FORCEINLINE void store_all(std::index_sequence<I...>) {
    (store_one<int(I)>(), ...);
  }
  PORTER_DEVICE PORTER_FORCEINLINE void store_held() { store_all(std::make_index_sequence<Ring::buffers>{}); }
#endif  // PORTER_GPU_COMPILER

  staged_detail::held_list<Ring> held_{};
  detail::reuse_guard<Ring::stages> guard_{};
  unsigned thread_ = 0, nthreads_ = 0;
};

}  // namespace porter::backend
