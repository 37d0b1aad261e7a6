// porter/pipeline.hpp — a CTA-collective producer/consumer ring over shared-memory stages.
//
// PROTOCOL. Every thread of the CTA takes part in every call, in the same order:
//
//   auto slot = pipe.producer_acquire();      // the next stage, writable
//   porter::async_copy(slot, src, coord);      // issue copies into it (one or more, any buffers)
//   pipe.producer_commit(slot);                // the stage's copies are all issued
//   ...
//   auto ready = pipe.consumer_wait();         // the oldest committed stage, landed
//   use(ready.tile());                         // read it (tile_view over shared memory)
//   pipe.consumer_release(ready);              // done reading it
//
// Stages are used round-robin. Pass n over the ring has phase n. acquire and wait return TOKENS
// (producer_slot, consumer_stage) that carry the stage index and phase; commit and release take
// those tokens back. There is no call that takes a stage number or a parity, so a parity computed
// from a loop counter, or a wait one group behind, cannot be written. Tokens cannot be copied.
//
// COMPLETION belongs to the path's lowering (docs/design.md, "The lowering contract"): this class
// keeps the tokens' order and hands each call to `lowering_for<Path>::protocol`, whose file
// documents the instructions behind it (backends/tma/porter/tma/protocol.hpp: FULL mbarrier armed
// once per stage by the issuing thread; backends/cp_async/porter/cp_async/protocol.hpp: one
// cp.async group per stage, wait_group and one CTA barrier per step; backends/staged/porter/staged/
// protocol.hpp: register prefetch and one CTA barrier per step). docs/design.md describes them side
// by side. A released stage is refilled only after a CTA barrier that every thread reached after
// releasing it: acquire adds one where the protocol has not already run one. (A cluster-multicast
// ring on tma counts the releases on an EMPTY mbarrier instead: porter::cluster_multicast.)
//
// The path is a CONCRETE tag: porter::path::automatic is resolved on the host for each launch
// (porter::launch), and the kernel then runs as that path's instantiation.
//
// DEBUG (PORTER_DEBUG=1, independent of NDEBUG): every call checks that the pipeline was
// initialised (a flag in the pipeline object, never a word in uninitialised shared memory), that
// tokens come back in order, that no acquire exceeds the free stages and no wait precedes a commit;
// mbarrier waits give up after PORTER_DEBUG_WAIT_CYCLES and trap naming the stage and phase.
// Misuse traps with "porter: <what>".
//
// Sources: PTX ISA 8.x 9.7.13.15 (mbarrier, phases and parity); CUTLASS sm90_pipeline.hpp
// (producer/consumer tokens); CUDA C++ Programming Guide, "Asynchronous Barrier".
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "porter/box.hpp"
#include "porter/config.hpp"
#include "porter/detail/trap.hpp"
#include "porter/lowerings.hpp"
#include "porter/path.hpp"
#include "porter/stage_ring.hpp"

namespace porter {

/// Tag for consumer_release: the consumer wrote into the landed stage (used it as scratch). On the
/// tma path every thread then issues fence.proxy.async.shared::cta before the release, ordering its
/// generic writes before the TMA refill of the stage (PTX ISA 9.7.13.4); elsewhere nothing.
struct stage_written_t {};
inline constexpr stage_written_t stage_written{};

/// Tag for consumer_wait: the consumer reads the landed stage through the async proxy (wgmma's
/// shared-memory matrix operands, porter::wgmma_descriptor), not only with ordinary loads. After
/// the wait every waiting thread issues what the path needs for that: cp_async and staged
/// fence.proxy.async.shared::cta (their bytes were written through the generic proxy: cp.async,
/// st.shared; PTX ISA 9.7.13.4 and "wgmma.fence"), tma nothing (TMA writes through the async proxy),
/// AMD nothing. Source: PTX ISA 8.x, "Proxies" / "fence.proxy.async"; CUTLASS's
/// fence_view_async_shared before a wgmma reads shared memory that threads wrote.
struct async_proxy_reads_t {};
inline constexpr async_proxy_reads_t async_proxy_reads{};

/// Tag: construct a pipeline without initialising its barriers; call init() later (collectively).
struct defer_init_t {};
inline constexpr defer_init_t defer_init{};

/// Tag: the CTA has exactly N threads (blockDim.x * y * z), fixed at compile time. Construct a
/// pipeline with it (`porter::pipeline<...> pipe(smem, porter::cta_threads<256>);`) when the kernel
/// is only ever launched with N threads, as a hand-written kernel that gives each thread its chunk
/// assumes. The copies then know the copying set's size: "does this thread have a chunk of the
/// box, and a second one?" folds at compile time (an 8 x 128 fp32 box in 256 threads: one chunk
/// each, no test; H200 sgemm 8192^3 on cp_async: 29.38 -> 28.11 ms).
/// Checked once, at init, in every build: a CTA of another size traps with "porter::pipeline:
/// constructed with porter::cta_threads<N>, but the CTA does not have N threads" (the launch then
/// fails). The cost, measured on the H200: nvcc loads no tensor of such a kernel through the
/// read-only path (ld.global.nc) any more (the size test, with any action on failure, and the hint
/// that the rank is below N each do that), so the staged path's thread loads lose it: staged sgemm
/// S=2 0.1-1.4% slower, its best point (4 tiles per CTA, S=1) 5.7% slower, staged stream 0.6%
/// faster; tma and cp_async do not load with thread loads (sgemm tma within 0.8%).
/// Use it where each thread has whole chunks of every box (the box's 16-byte chunks a multiple of
/// N): on smallgemm's 1 KiB boxes (64 chunks in 256 threads) the folded walks unrolled
/// and raised the registers (cp_async 32 -> 48, staged 48 -> 62: 8 -> 5 and 5 -> 4 CTAs per SM;
/// staged 3.27 -> 4.10 ms), so that kernel is not tagged. Without the tag porter reads blockDim and
/// any CTA shape works. N in 1..1024.
template <unsigned N>
struct cta_threads_t {
  static_assert(N >= 1 && N <= 1024, "porter::cta_threads<N>: a CTA has 1 to 1024 threads.");
  static constexpr unsigned value = N;
};
/// porter::cta_threads<N>: see cta_threads_t.
template <unsigned N>
inline constexpr cta_threads_t<N> cta_threads{};

/// Tag: a ring shared by the CTAs of a thread-block cluster for multicast copies. Construct the
/// pipeline with it (`porter::pipeline<...> pipe(smem, porter::cluster_multicast);`) in a kernel
/// launched in clusters (porter::launch_options::cluster) and copy the boxes that every CTA of
/// the cluster needs with `porter::async_copy(buffer<I>(slot), src, at, porter::multicast)`: on
/// the tma path one CTA of the cluster reads such a box and it lands in all of them
/// (cp.async.bulk.tensor .multicast::cluster; the issuing CTA rotates step by step), which divides
/// its L2 reads by the cluster size. consumer_release is then warp-collective: every thread fences
/// its reads against the refill's async-proxy writes, and after __syncwarp one lane per CTA of the
/// cluster arrives on that CTA's EMPTY barrier for the stage; before a refill, thread 0 of every
/// CTA waits until every warp of every CTA has released the stage (porter/tma/protocol.hpp, CLUSTER
/// MULTICAST). No CTA or cluster barrier runs per step, and since the arrivals are made at release,
/// a CTA that copies D steps ahead in S stages may run S - D - 1 steps ahead of its slowest peer.
/// Cost: the CTAs of a cluster still wait for one another's releases, and each step costs a proxy
/// fence per thread and a few arrivals per warp. Measured on an H100 (session 45, clusters of 2
/// sharing one of two boxes): the SIMT sgemm of bench/ports (16 K-rows per step, compute-bound)
/// runs at 0.87-0.91x the same kernel without clusters (0.79x with the protocol before session 45;
/// under ncu its barrier stall 15.9% -> 0.7%, L2 reads -20%, and 21% of warp cycles wait on
/// mbarriers), the bf16 mma.sync GEMM at 0.94-0.96x (0.99-1.07x before), the wgmma GEMM on a role
/// pipeline at 1.00-1.04x. Time both with and without clusters.
/// On cp_async and staged, and in a launch without clusters, every CTA copies its own boxes and the
/// ring is an ordinary one (the same bytes land).
/// Preconditions: every thread of every CTA of the cluster constructs the ring at the same shared
/// offset and makes the same sequence of pipeline calls (the same number of steps: a CTA that
/// makes fewer leaves the issuer of a later step waiting for ever; debug builds trap naming the
/// stage); a multicast box has the same source and coordinates in every CTA (unchecked: each CTA
/// would receive the issuing CTA's box); every thread ends the kernel with porter::cluster_sync()
/// (a peer may arrive on this CTA's barriers, or multicast into it, until its own last step).
/// Source: PTX ISA 8.x 9.7.9.25.5.1 (.multicast::cluster), 9.7.13.15 (mbarrier, shared::cluster),
/// "barrier.cluster"; CUDA C++ Programming Guide, "Distributed Shared Memory".
struct cluster_multicast_t {};
inline constexpr cluster_multicast_t cluster_multicast{};

template <class Pipe> class producer_slot;
template <class Pipe> class consumer_stage;

/// True for a porter::role_pipeline (porter/role_pipeline.hpp, which specialises it): its calls are
/// made per role, so the CTA-collective helpers (run_pipeline, for_each_tile) refuse it at compile time.
template <class Pipe> struct is_role_pipeline : std::false_type {};

/// Destination handle: buffer I of an acquired stage. Obtained with porter::buffer<I>(slot).
template <class Pipe, int I>
class stage_buffer {
 public:
  using box_type = typename Pipe::template box_type<I>;
  static constexpr int index = I;
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
  PORTER_DEVICE Pipe& pipeline() const { return *pipe_; }

 private:
  friend Pipe;
  template <class, int> friend class stage_buffer;
  PORTER_DEVICE producer_slot(Pipe* p, unsigned s, unsigned ph, unsigned char* d) : pipe_(p), stage_(s), phase_(ph), data_(d) {}
  Pipe* pipe_;
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
  /// Move-assignable, so that a consumer can hold the previous stage while it works on the next
  /// (release stage i - 1 once stage i's asynchronous MMAs are issued: `prev = std::move(cur)`).
  /// The moved-from token must not be released.
  consumer_stage& operator=(consumer_stage&&) = default;
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

namespace detail {
/// True when protocol P has init_cluster (a lowering that multicasts within a cluster: tma).
template <class P, class = void>
struct has_init_cluster : std::false_type {};
template <class P>
struct has_init_cluster<P, std::void_t<decltype(&P::init_cluster)>> : std::true_type {};
/// Does protocol P take the fixed CTA size (fixed_cta_size(), called right after init when the
/// pipeline was built with porter::cta_threads<N>)? cp_async does: its copies then use a form that
/// only pays where the count is a compile-time constant.
template <class P, class = void>
struct has_fixed_cta_size : std::false_type {};
template <class P>
struct has_fixed_cta_size<P, std::void_t<decltype(&P::fixed_cta_size)>> : std::true_type {};
}  // namespace detail

/// A ring of `Stages` shared-memory stages, each holding one buffer per box in `Boxes`, filled
/// through concrete path `Path` (porter::path::tma, cp_async or staged). See the protocol above.
///
/// Shared memory: construct over at least `shared_bytes` bytes of (dynamic) shared memory; pass
/// shared_bytes as the launch's dynamic shared memory (the same for every path). All threads of the
/// CTA must construct it and take part in every call. Threads: any CTA shape; blockDim is read at
/// construction (or fixed at compile time with porter::cta_threads<N>). Any base works: the ring
/// aligns itself (ring::alignment, 128 B unswizzled) from the base's shared-window offset. Declare the array `extern __shared__ __align__(128) unsigned char
/// smem[];` (or the ring's alignment) and that pad folds to zero at compile time: in a K-loop it
/// was recomputed every step (H200, sm_90: smallgemm tma 3.34 -> 3.04 ms with the declaration).
template <class Path, int Stages, class... Boxes>
class pipeline {
  static_assert(is_path<Path>::value,
                "porter::pipeline: the first template argument must be a path tag: porter::path::tma, "
                "porter::path::cp_async or porter::path::staged.");
  static_assert(!std::is_same_v<Path, path::automatic>,
                "porter::pipeline: path::automatic is chosen on the host for each launch; write the kernel as a template "
                "over the path and launch it with porter::launch<porter::path::automatic>(porter::kernel_family{...}, ...).");

 public:
  using path_type = Path;
  /// The lowering that implements Path in this build (from the vendor registry).
  using lowering = lowering_for<Path>;
  using ring = stage_ring<Stages, Boxes...>;
  /// The lowering's per-thread protocol state for this ring.
  using protocol_type = typename lowering::template protocol<ring>;
  template <int I> using box_type = typename ring::template box_type<I>;
  static constexpr int stages = Stages;
  /// Dynamic shared memory the launch must provide, bytes (independent of the path).
  static constexpr std::size_t shared_bytes = ring::bytes;
  /// How a stage of this pipeline completes.
  static constexpr porter::completion completion_kind = Path::completion;

#if PORTER_GPU_COMPILER
  /// Construct and initialise (collective: every thread; ends with a CTA barrier).
  PORTER_DEVICE explicit pipeline(void* smem) : pipeline(smem, defer_init) { init(); }

  /// As pipeline(smem), for a CTA of exactly N threads known at compile time (porter::cta_threads<N>;
  /// traps at init on a CTA of another size).
  template <unsigned N>
  PORTER_DEVICE pipeline(void* smem, cta_threads_t<N> n) : pipeline(smem, defer_init) { init(n); }

  /// Construct and initialise a cluster-multicast ring (porter::cluster_multicast, see there).
  /// Collective over the cluster on the tma path (ends with a cluster barrier), over the CTA
  /// elsewhere.
  PORTER_DEVICE pipeline(void* smem, cluster_multicast_t) : pipeline(smem, defer_init) {
    init_for<true>(detail::thread_rank(), detail::cta_size());
  }
  /// As pipeline(smem, cluster_multicast), for a CTA of exactly N threads (porter::cta_threads<N>).
  template <unsigned N>
  PORTER_DEVICE pipeline(void* smem, cluster_multicast_t, cta_threads_t<N>) : pipeline(smem, defer_init) {
    const unsigned t = checked_rank<N>();
    init_for<true, true>(t, N);
  }

  /// Construct without initialising the barriers; call init() collectively before any other call.
  PORTER_DEVICE pipeline(void* smem, defer_init_t) {
    // Align up by adding bytes to the pointer (not by rebuilding it from an integer), so the
    // compiler still knows it points to shared memory: on AMD that keeps tile reads ds_read, not flat.
    const std::size_t pad = detail::shared_alignment_pad(smem, ring::alignment);
    base_ = static_cast<unsigned char*>(smem) + pad;
  }

  /// Initialise the protocol's barriers (collective; ends with a CTA barrier). Traps on a compile
  /// target that lacks the path's instructions.
  PORTER_DEVICE void init() { init_for(detail::thread_rank(), detail::cta_size()); }

  /// As init(), for a CTA of exactly N threads (porter::cta_threads<N>). Traps with porter's
  /// message when the CTA has another number of threads (one test per kernel, release builds too).
  template <unsigned N>
  PORTER_DEVICE void init(cta_threads_t<N>) {
    const unsigned t = checked_rank<N>();
    init_for<false, true>(t, N);
  }

  /// The next stage, writable; returns its token. Collective.
  PORTER_DEVICE producer_slot<pipeline> producer_acquire() {
    check_init();
#if PORTER_DEBUG
    if (acquired_ - released_ >= unsigned(Stages))
      detail::trap_stage("producer_acquire beyond capacity: every stage is acquired and not yet released", p_stage_, acquired_ / Stages);
#endif
    const unsigned s = p_stage_, ph = p_pass_;
    proto_.acquire(s, ph);
    if (++p_stage_ == unsigned(Stages)) { p_stage_ = 0; ++p_pass_; }
#if PORTER_DEBUG
    ++acquired_;
#endif
    return producer_slot<pipeline>(this, s, ph, stage_data(s));
  }

  /// The copies issued into `slot` are all issued. Collective; tokens in acquire order.
  PORTER_DEVICE void producer_commit(producer_slot<pipeline>& slot) {
    check_init();
#if PORTER_DEBUG
    if (committed_ >= acquired_ || slot.stage_ != committed_ % Stages || slot.phase_ != committed_ / Stages)
      detail::trap_stage("producer_commit out of order: the token is not the oldest uncommitted stage", slot.stage_, slot.phase_);
#endif
    proto_.commit(slot.stage_, slot.phase_);
    ++committed_;
  }

  /// The oldest committed stage, landed; returns its token. Collective.
  PORTER_DEVICE consumer_stage<pipeline> consumer_wait() {
    check_init();
#if PORTER_DEBUG
    if (waited_ >= committed_)
      detail::trap_stage("consumer_wait with no committed stage to wait for", c_stage_, c_pass_);
#endif
    const unsigned s = c_stage_, ph = c_pass_;
    proto_.wait(s, ph, committed_ - waited_ - 1u);
    if (++c_stage_ == unsigned(Stages)) { c_stage_ = 0; ++c_pass_; }
    ++waited_;
    return consumer_stage<pipeline>(s, ph, stage_data(s));
  }

  /// Done reading the stage of `ready`. Collective; tokens in wait order. In a cluster-multicast
  /// ring on tma (porter::cluster_multicast) the lanes of each warp also meet in it (__syncwarp), so
  /// a warp's threads must all call it, not only every thread eventually.
  PORTER_DEVICE void consumer_release(consumer_stage<pipeline>& ready) {
    check_init();
#if PORTER_DEBUG
    if (released_ >= waited_ || ready.stage_ != released_ % Stages || ready.phase_ != released_ / Stages)
      detail::trap_stage("consumer_release out of order: the token is not the oldest waited stage", ready.stage_, ready.phase_);
    ++released_;
#endif
    proto_.release(ready.stage_, ready.phase_);
  }

  /// As consumer_wait(), for a consumer that reads the stage through the async proxy (wgmma):
  /// porter::async_proxy_reads. Collective.
  PORTER_DEVICE consumer_stage<pipeline> consumer_wait(async_proxy_reads_t) {
    consumer_stage<pipeline> ready = consumer_wait();
    lowering::before_async_proxy_reads();
    return ready;
  }

  /// As consumer_release, after writing into the stage (porter::stage_written; see porter/
  /// shared_layout.hpp, "Writing into a landed stage"). Collective.
  PORTER_DEVICE void consumer_release(consumer_stage<pipeline>& ready, stage_written_t) {
    lowering::after_generic_writes();
    consumer_release(ready);
  }

  /// The lowering's protocol state (porter::async_copy issues copies through it; kernels do not).
  PORTER_DEVICE protocol_type& protocol() { return proto_; }

 private:
  /// The protocol's init (Cluster: its init_cluster where the lowering has one, tma; elsewhere
  /// the ordinary init, and every CTA then copies its own boxes), then a CTA barrier. Fixed: the
  /// CTA size is porter::cta_threads<N> (nthreads == N), told to a protocol that asks for it.
  template <bool Cluster = false, bool Fixed = false>
  PORTER_DEVICE void init_for(unsigned thread, unsigned nthreads) {
    if constexpr (Cluster && detail::has_init_cluster<protocol_type>::value)
      proto_.init_cluster(base_, thread, nthreads);
    else
      proto_.init(base_, thread, nthreads);
    if constexpr (Fixed && detail::has_fixed_cta_size<protocol_type>::value) proto_.fixed_cta_size();
    __syncthreads();
#if PORTER_DEBUG
    initialised_ = true;
#endif
  }
  /// This thread's rank, after checking that the CTA has exactly N threads (traps otherwise).
  template <unsigned N>
  PORTER_DEVICE unsigned checked_rank() const {
    if (detail::cta_size() != N)
      detail::trap("porter::pipeline: constructed with porter::cta_threads<N>, but the CTA does not have N threads (blockDim.x * y * z)");
    const unsigned t = detail::thread_rank();
    __builtin_assume(t < N);  // a rank is below the CTA size: with N constant, the copies' per-thread chunk tests fold
    return t;
  }

  PORTER_DEVICE unsigned char* stage_data(unsigned s) const { return base_ + ring::stage_offset(int(s)); }

  PORTER_DEVICE PORTER_FORCEINLINE void check_init() const {
#if PORTER_DEBUG
    if (!initialised_) detail::trap("pipeline used before initialisation (construct it with smem, or call init() after defer_init)");
#endif
  }
#endif  // PORTER_GPU_COMPILER

  unsigned char* base_ = nullptr;
  protocol_type proto_{};
  unsigned p_stage_ = 0, p_pass_ = 0, c_stage_ = 0, c_pass_ = 0;
  unsigned committed_ = 0, waited_ = 0;  // per thread; committed_ - waited_ <= Stages
#if PORTER_DEBUG
  unsigned acquired_ = 0, released_ = 0;
  bool initialised_ = false;
#endif
};

/// Buffer I of an acquired stage, as an async_copy destination.
template <int I, class Pipe>
PORTER_DEVICE stage_buffer<Pipe, I> buffer(producer_slot<Pipe>& slot) {
  static_assert(I >= 0 && I < Pipe::ring::buffers, "porter::buffer<I>: I must name one of the stage's buffers.");
  return stage_buffer<Pipe, I>(slot);
}

}  // namespace porter
