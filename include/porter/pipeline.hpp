// porter/pipeline.hpp — a CTA-collective producer/consumer ring over shared-memory stages.
//
// PROTOCOL. Every thread of the CTA takes part in every call, in the same order:
//
//   auto slot = pipe.producer_acquire();      // wait until the next stage is free
//   porter::async_copy(slot, src, coord);      // issue copies into it (one or more, any buffers)
//   pipe.producer_commit(slot);                // mark the copies issued
//   ...
//   auto ready = pipe.consumer_wait();         // wait until the oldest committed stage has landed
//   use(ready.tile());                         // read it (tile_view over shared memory)
//   pipe.consumer_release(ready);              // hand the stage back to the producer
//
// Stages are used round-robin. Pass n over the ring has phase n; its parity selects the mbarrier
// phase waited for. acquire and wait return TOKENS (producer_slot, consumer_stage) that carry the
// stage index and phase; commit and release take those tokens back. There is no call that takes a
// stage number or a parity, so a parity computed from a loop counter, or a wait one group behind,
// cannot be written. Tokens cannot be copied.
//
// COMPLETION, by the pipeline's resolved path (resolve_t<Path>):
//   mbarrier_tx / mbarrier_arrive (tma, cp_async; automatic on sm_80+): each stage has a FULL
//     and an EMPTY mbarrier, each expecting one arrival per thread.
//     TMA copies add transaction bytes to FULL (expect_tx by the issuing thread) that the copy
//     engine completes. commit: where cp.async may be used, cp.async.commit_group (one group per
//     stage). wait: cp.async.wait_group for this thread's group of that stage, then every thread
//     arrives on FULL (release: its own cp.async and plain stores are done) and waits for the phase
//     (acquire). release: every thread arrives on EMPTY (its reads are done). acquire: wait on EMPTY with
//     the previous pass's parity (a fresh barrier counts as released).
//   cta_barrier (staged; automatic on sm_75 and AMD): copies are synchronous; wait and release are
//     each a CTA barrier (__syncthreads), so no thread overwrites a stage another still reads.
//
// DEBUG (PORTER_DEBUG=1, independent of NDEBUG): every call checks that the pipeline was
// initialised, that tokens come back in order, that no acquire exceeds the free stages and no wait
// precedes a commit; every mbarrier wait gives up after PORTER_DEBUG_WAIT_CYCLES and traps naming
// the stage and phase. Misuse traps with "porter: <what>".
//
// Sources: PTX ISA 8.x 9.7.13.15 (mbarrier, phases and parity); CUTLASS sm90_pipeline.hpp
// (producer starts at phase 1 on EMPTY); CUDA C++ Programming Guide, "Asynchronous Barrier".
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "porter/box.hpp"
#include "porter/config.hpp"
#include "porter/detail/trap.hpp"
#include "porter/path.hpp"
#include "porter/stage_ring.hpp"
#if !PORTER_HIP
#  include "porter/ptx/cp_async.hpp"
#  include "porter/ptx/mbarrier.hpp"
#endif

#if !defined(PORTER_DEBUG_WAIT_CYCLES)
/// Debug builds: cycles a thread may spin on one mbarrier phase before trapping (~2 s at 2 GHz).
#  define PORTER_DEBUG_WAIT_CYCLES (4000000000LL)
#endif

namespace porter {

/// Tag: construct a pipeline without initialising its barriers; call init() later (collectively).
struct defer_init_t {};
inline constexpr defer_init_t defer_init{};

template <class Pipe> class producer_slot;
template <class Pipe> class consumer_stage;

namespace detail {
template <int I, class... B> struct nth {
  static_assert(I >= 0 && I < int(sizeof...(B)), "porter::buffer<I>: I must name one of the stage's buffers.");
  using type = void;
};
template <class B0, class... B> struct nth<0, B0, B...> { using type = B0; };
template <int I, class B0, class... B> struct nth<I, B0, B...> { using type = typename nth<I - 1, B...>::type; };
}  // namespace detail

/// Destination handle: buffer I of an acquired stage. Obtained with porter::buffer<I>(slot).
template <class Pipe, int I>
class stage_buffer {
 public:
  using box_type = typename Pipe::template box_type<I>;
  PORTER_DEVICE explicit stage_buffer(producer_slot<Pipe>& s) : slot_(&s) {}
  /// The slot this buffer belongs to.
  PORTER_DEVICE producer_slot<Pipe>& slot() const { return *slot_; }
  /// First element of the buffer in shared memory (128-byte aligned, box_type::bytes long).
  PORTER_DEVICE typename box_type::element_type* data() const {
    return reinterpret_cast<typename box_type::element_type*>(slot_->data_ + Pipe::ring::buffer_offset(I));
  }

 private:
  producer_slot<Pipe>* slot_;
};

/// Token for an acquired stage (producer side). Only pipeline::producer_acquire makes one; give it
/// back with producer_commit. Carries the stage index and phase.
template <class Pipe>
class producer_slot {
 public:
  producer_slot(const producer_slot&) = delete;
  producer_slot& operator=(const producer_slot&) = delete;
  producer_slot(producer_slot&&) = default;
  /// Stage index, 0..stages-1.
  PORTER_DEVICE unsigned stage() const { return stage_; }
  /// Pass number over the ring (its parity is the mbarrier phase parity).
  PORTER_DEVICE unsigned phase() const { return phase_; }
  /// The owning pipeline.
  PORTER_DEVICE const Pipe& pipeline() const { return *pipe_; }

 private:
  friend Pipe;
  template <class, int> friend class stage_buffer;
  PORTER_DEVICE producer_slot(const Pipe* p, unsigned s, unsigned ph, unsigned char* d) : pipe_(p), stage_(s), phase_(ph), data_(d) {}
  const Pipe* pipe_;
  unsigned stage_, phase_;
  unsigned char* data_;
};

/// Token for a landed stage (consumer side). Only pipeline::consumer_wait makes one; give it back
/// with consumer_release. Its tiles are valid until then.
template <class Pipe>
class consumer_stage {
 public:
  consumer_stage(const consumer_stage&) = delete;
  consumer_stage& operator=(const consumer_stage&) = delete;
  consumer_stage(consumer_stage&&) = default;
  PORTER_DEVICE unsigned stage() const { return stage_; }
  PORTER_DEVICE unsigned phase() const { return phase_; }
  /// View of buffer I as its box (outermost index first).
  template <int I = 0>
  PORTER_DEVICE tile_view<typename Pipe::template box_type<I>> tile() const {
    using B = typename Pipe::template box_type<I>;
    return tile_view<B>(reinterpret_cast<typename B::element_type*>(data_ + Pipe::ring::buffer_offset(I)));
  }
  /// Raw bytes of buffer I (128-byte aligned).
  template <int I = 0>
  PORTER_DEVICE const unsigned char* bytes() const { return data_ + Pipe::ring::buffer_offset(I); }

 private:
  friend Pipe;
  PORTER_DEVICE consumer_stage(unsigned s, unsigned ph, unsigned char* d) : stage_(s), phase_(ph), data_(d) {}
  unsigned stage_, phase_;
  unsigned char* data_;
};

/// A ring of `Stages` shared-memory stages, each holding one buffer per box in `Boxes`, filled
/// through `Path` (porter::path::tma, cp_async, staged or automatic). See the protocol above.
///
/// Shared memory: construct over at least `shared_bytes` bytes of (dynamic) shared memory; pass
/// shared_bytes as the launch's dynamic shared memory. All threads of the CTA must construct it
/// and take part in every call. Threads: any CTA shape; blockDim is read at construction.
template <class Path, int Stages, class... Boxes>
class pipeline {
  static_assert(is_path<Path>::value,
                "porter::pipeline: the first template argument must be a path tag: porter::path::tma, "
                "porter::path::cp_async, porter::path::staged or porter::path::automatic.");
  static_assert(!(PORTER_HIP && !PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH &&
                  (std::is_same_v<Path, path::tma> || std::is_same_v<Path, path::cp_async>)),
                "porter::pipeline: the tma and cp_async paths are NVIDIA instructions; under HIP use "
                "porter::path::staged or porter::path::automatic (a program that instantiates every path "
                "builds with -DPORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH=1: porter::launch then refuses them).");

 public:
  using path_type = Path;
  /// The concrete path this compile target uses for completion (automatic resolved).
  using sync_path = resolve_t<Path>;
  using ring = stage_ring<Stages, Boxes...>;
  template <int I> using box_type = typename detail::nth<I, Boxes...>::type;
  static constexpr int stages = Stages;
  /// Dynamic shared memory the launch must provide, bytes.
  static constexpr std::size_t shared_bytes = ring::bytes;
  static constexpr porter::completion completion_kind = sync_path::completion;
  static constexpr bool uses_mbarrier = completion_kind != porter::completion::cta_barrier;
  /// Whether copies into this pipeline may be cp.async (cp_async, or automatic on sm_80+).
  static constexpr bool may_cp_async =
      std::is_same_v<Path, path::cp_async> || (std::is_same_v<Path, path::automatic> && arch::has_cp_async);

#if PORTER_GPU_COMPILER
  /// Construct and initialise (collective: every thread; ends with a CTA barrier).
  PORTER_DEVICE explicit pipeline(void* smem) : pipeline(smem, defer_init) { init(); }

  /// Construct without initialising the barriers; call init() collectively before any other call.
  PORTER_DEVICE pipeline(void* smem, defer_init_t) {
    // Align up by adding bytes to the pointer (not by rebuilding it from an integer), so the
    // compiler still knows it points to shared memory: on AMD that keeps tile reads ds_read, not flat.
    const std::uintptr_t pad = (ring::alignment - (reinterpret_cast<std::uintptr_t>(smem) & (ring::alignment - 1))) & (ring::alignment - 1);
    base_ = static_cast<unsigned char*>(smem) + pad;
    thread_ = detail::thread_rank();
    nthreads_ = detail::cta_size();
  }

  /// Initialise the barriers (collective; ends with a CTA barrier). Traps on a compile target
  /// that lacks the path's instructions.
  PORTER_DEVICE void init() {
    if constexpr (arch::device_pass && std::is_same_v<Path, path::tma> && !arch::has_tma)
      detail::trap("path tma was compiled for a target without TMA (needs sm_90); porter::launch refuses this on the host");
    if constexpr (arch::device_pass && std::is_same_v<Path, path::cp_async> && !arch::has_cp_async)
      detail::trap("path cp_async was compiled for a target without cp.async (needs sm_80); porter::launch refuses this on the host");
    if (thread_ == 0) {
#if !PORTER_HIP
      if constexpr (uses_mbarrier) {
        for (int s = 0; s < Stages; ++s) {
          ptx::mbarrier_init(full(s), nthreads_);
          ptx::mbarrier_init(empty(s), nthreads_);
        }
        ptx::fence_mbarrier_init();
      }
#endif
      *init_word() = magic;
    }
    __syncthreads();
  }

  /// Wait until the next stage is free; return its token. Collective.
  PORTER_DEVICE producer_slot<pipeline> producer_acquire() {
    check_init("producer_acquire");
#if PORTER_DEBUG
    if (acquired_ - released_ >= unsigned(Stages))
      detail::trap_stage("producer_acquire beyond capacity: every stage is acquired and not yet released", p_stage_, acquired_ / Stages);
#endif
    const unsigned s = p_stage_, ph = p_pass_;
#if !PORTER_HIP
    if constexpr (uses_mbarrier) wait(empty(s), (ph & 1u) ^ 1u, s, ph, "producer_acquire: the stage was never released (empty-barrier wait timed out)");
#endif
    if (++p_stage_ == unsigned(Stages)) { p_stage_ = 0; ++p_pass_; }
#if PORTER_DEBUG
    ++acquired_;
#endif
    return producer_slot<pipeline>(this, s, ph, stage_data(s));
  }

  /// Mark the copies issued into `slot` as complete-able. Collective; tokens in acquire order.
  PORTER_DEVICE void producer_commit(producer_slot<pipeline>& slot) {
    check_init("producer_commit");
#if PORTER_DEBUG
    if (committed_ >= acquired_ || slot.stage_ != committed_ % Stages || slot.phase_ != committed_ / Stages)
      detail::trap_stage("producer_commit out of order: the token is not the oldest uncommitted stage", slot.stage_, slot.phase_);
#endif
#if !PORTER_HIP
    if constexpr (may_cp_async) ptx::cp_async_commit_group();
#endif
    (void)slot;
    ++committed_;
  }

  /// Wait until the oldest committed stage has landed; return its token. Collective.
  PORTER_DEVICE consumer_stage<pipeline> consumer_wait() {
    check_init("consumer_wait");
#if PORTER_DEBUG
    if (waited_ >= committed_)
      detail::trap_stage("consumer_wait with no committed stage to wait for", c_stage_, c_pass_);
#endif
    const unsigned s = c_stage_, ph = c_pass_;
    if constexpr (uses_mbarrier) {
#if !PORTER_HIP
      // This thread's cp.async groups committed after this stage's may stay in flight.
      if constexpr (may_cp_async) ptx::cp_async_wait_group_dynamic(committed_ - waited_ - 1u);
      ptx::mbarrier_arrive(full(s));
      wait(full(s), ph & 1u, s, ph, "consumer_wait: the stage never landed (full-barrier wait timed out: a thread skipped the call, or a copy never completed)");
#endif
    } else {
      __syncthreads();
    }
    if (++c_stage_ == unsigned(Stages)) { c_stage_ = 0; ++c_pass_; }
    ++waited_;
    return consumer_stage<pipeline>(s, ph, stage_data(s));
  }

  /// Hand the stage of `ready` back to the producer. Collective; tokens in wait order.
  PORTER_DEVICE void consumer_release(consumer_stage<pipeline>& ready) {
    check_init("consumer_release");
#if PORTER_DEBUG
    if (released_ >= waited_ || ready.stage_ != released_ % Stages || ready.phase_ != released_ / Stages)
      detail::trap_stage("consumer_release out of order: the token is not the oldest waited stage", ready.stage_, ready.phase_);
#endif
    if constexpr (uses_mbarrier) {
#if !PORTER_HIP
      ptx::mbarrier_arrive(empty(ready.stage_));
#endif
    } else {
      __syncthreads();
    }
#if PORTER_DEBUG
    ++released_;
#endif
  }

  /// Linear index of this thread in the CTA.
  PORTER_DEVICE unsigned thread() const { return thread_; }
  /// Threads in the CTA.
  PORTER_DEVICE unsigned threads() const { return nthreads_; }
  /// Full mbarrier of stage s (nullptr semantics for CTA-barrier pipelines: never waited on).
  PORTER_DEVICE std::uint64_t* full(unsigned s) const { return reinterpret_cast<std::uint64_t*>(base_) + s; }

 private:
  static constexpr std::uint32_t magic = 0x706f7274u + std::uint32_t(Stages);  // "port" + S
  PORTER_DEVICE std::uint64_t* empty(unsigned s) const { return reinterpret_cast<std::uint64_t*>(base_) + Stages + s; }
  PORTER_DEVICE std::uint32_t* init_word() const { return reinterpret_cast<std::uint32_t*>(base_ + 16 * Stages); }
  PORTER_DEVICE unsigned char* stage_data(unsigned s) const { return base_ + ring::stage_offset(int(s)); }

  PORTER_DEVICE PORTER_FORCEINLINE void check_init(const char* what) const {
#if PORTER_DEBUG
    if (*static_cast<volatile std::uint32_t*>(init_word()) != magic) {
      (void)what;
      detail::trap("pipeline used before initialisation (construct it with smem, or call init() after defer_init)");
    }
#else
    (void)what;
#endif
  }

#if !PORTER_HIP
  PORTER_DEVICE PORTER_FORCEINLINE void wait(std::uint64_t* bar, unsigned parity, unsigned stage, unsigned pass,
                                             const char* what) const {
#if PORTER_DEBUG
    const long long t0 = clock64();
    while (!ptx::mbarrier_try_wait_parity(bar, parity))
      if (clock64() - t0 > PORTER_DEBUG_WAIT_CYCLES) detail::trap_stage(what, stage, pass);
#else
    (void)stage; (void)pass; (void)what;
    while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
    }
#endif
  }
#endif
#endif  // PORTER_GPU_COMPILER

  unsigned char* base_ = nullptr;
  unsigned thread_ = 0, nthreads_ = 0;
  unsigned p_stage_ = 0, p_pass_ = 0, c_stage_ = 0, c_pass_ = 0;
  unsigned committed_ = 0, waited_ = 0;  // per thread; committed_ - waited_ <= Stages
#if PORTER_DEBUG
  unsigned acquired_ = 0, released_ = 0;
#endif
};

/// Buffer I of an acquired stage, as an async_copy destination.
template <int I, class Pipe>
PORTER_DEVICE stage_buffer<Pipe, I> buffer(producer_slot<Pipe>& slot) {
  static_assert(I >= 0 && I < Pipe::ring::buffers, "porter::buffer<I>: I must name one of the stage's buffers.");
  return stage_buffer<Pipe, I>(slot);
}

}  // namespace porter
