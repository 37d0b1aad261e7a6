// porter/role_pipeline.hpp — a ring of shared-memory stages filled by producer warps and read by
// consumer warps: the roles are in the type (porter/roles.hpp).
//
// PROTOCOL. Every thread of the CTA constructs the pipeline (collective: one CTA barrier). Then
// each thread takes its role and makes only that role's calls, every thread of the role in the
// same order:
//
//   porter::role_pipeline<Path, porter::roles<porter::warps<1>, porter::warps<4>>, S, BoxA, BoxB> pipe(smem);
//   if (pipe.is_producer()) {
//     pipe.enter_role();                             // register reallocation, where asked and available
//     for (int k = 0; k < steps; ++k) {
//       auto slot = pipe.producer_acquire();        // waits until the consumers released the stage
//       porter::async_copy(porter::buffer<0>(slot), a, {m0, k * bk});
//       porter::async_copy(porter::buffer<1>(slot), b, {n0, k * bk});
//       pipe.producer_commit(slot);
//     }
//   } else {
//     pipe.enter_role();
//     for (int k = 0; k < steps; ++k) {
//       auto ready = pipe.consumer_wait();          // waits until the stage has landed
//       compute(ready.tile<0>(), ready.tile<1>());
//       pipe.consumer_release(ready);
//     }
//   }
//
// The tokens (producer_slot, consumer_stage) are porter::pipeline's: they carry the stage and its
// phase, cannot be copied or built from integers, and async_copy takes them the same way. Unlike
// porter::pipeline, no call is CTA-collective after construction and none runs a CTA barrier: a
// stage completes on its FULL mbarrier and is given back on its EMPTY mbarrier, whose arrival
// counts come from the roles (the lowering's role_protocol documents its instructions:
// backends/tma/porter/tma/role_protocol.hpp, cp_async/…/role_protocol.hpp, staged/nvidia/…).
// The producers may run up to S stages ahead of the consumers. Both roles make the same number of
// steps; a producer may return as soon as it has committed its last stage. A cluster-multicast ring
// (the porter::cluster_multicast constructor) is the exception: its consumer_release is
// warp-collective on tma, and every thread of every CTA, producers included, calls
// porter::cluster_sync() before it exits.
//
// Threads: the CTA must have exactly Roles::threads threads; the first Roles::producer_threads of
// the linear thread index produce. The pipeline traps with a message when blockDim differs.
// Targets: every path where the path runs (tma sm_90+, cp_async sm_80+; min_compute_capability
// below); staged everywhere: on mbarriers from sm_80, on shared-memory phase counters compiled for
// sm_75 (porter/ptx/smem_counter.hpp), and in HIP builds on LDS phase counters (roles must be
// whole wavefronts of 64; docs/hip.md). Named barriers 1 and 2 belong to the roles (sync_role;
// NVIDIA).
//
// Refusing a GPU on the host: porter::launch cannot tell that a kernel uses a role pipeline. It
// sees the kernel as a function pointer `void (*)(Params...)` and the argument values; the role
// pipeline is a local object the kernel's body builds over its shared memory, named by neither,
// and cudaFuncGetAttributes (registers, shared memory, ptxVersion, maxThreadsPerBlock) does not
// reveal it either. So the launch is told: with
//   porter::launch<Path>(porter::launch_options{}.uses_role_pipeline(), &kernel<Path>, grid, block, smem, stream, args...);
// (or the kernel_family form) it refuses, before launching, a device or a kernel binary below
// min_compute_capability for the path it runs (porter::check_role_pipeline_on_device: rules
// launch.role_pipeline_device, launch.role_pipeline_binary, launch.role_pipeline_vendor).
// Without the option nothing on the host checks it, and a cp_async role pipeline on an sm_75 GPU
// traps with "path cp_async was compiled for a target without cp.async (needs sm_80)".
// Sources: PTX ISA 8.x 9.7.13.15 (mbarrier); CUTLASS sm90_pipeline.hpp (warp-specialized
// producer/consumer pipelines); CUDA C++ Programming Guide, "Asynchronous Barrier".
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "porter/box.hpp"
#include "porter/config.hpp"
#include "porter/detail/trap.hpp"
#include "porter/lowerings.hpp"
#include "porter/path.hpp"
#include "porter/pipeline.hpp"
#include "porter/roles.hpp"
#include "porter/stage_ring.hpp"

namespace porter {

/// A ring of `Stages` shared-memory stages, each holding one buffer per box in `Boxes`, filled
/// through concrete path `Path` by the producer role of `Roles` and read by its consumer role. See
/// the protocol above.
///
/// Shared memory: construct over at least `shared_bytes` bytes of (dynamic) shared memory (the
/// same for every path, and the same as porter::pipeline<Path, Stages, Boxes...>).
template <class Path, class Roles, int Stages, class... Boxes>
class role_pipeline {
  static_assert(is_path<Path>::value && !std::is_same_v<Path, path::automatic>,
                "porter::role_pipeline: the first template argument must be a concrete path tag (porter::path::tma, "
                "cp_async or staged); path::automatic is chosen on the host for each launch.");
  static_assert(is_roles<Roles>::value,
                "porter::role_pipeline: the second template argument must be porter::roles<Producer, Consumer[, Registers]>.");

 public:
  using path_type = Path;
  using roles_type = Roles;
  using lowering = lowering_for<Path>;
  using ring = stage_ring<Stages, Boxes...>;
  using protocol_type = typename lowering::template role_protocol<ring, Roles>;
  template <int I> using box_type = typename ring::template box_type<I>;
  static constexpr int stages = Stages;
  /// Compute capability the device needs for this pipeline, and the oldest target its code may be
  /// compiled for (e.g. 80 for sm_80): Path::role_min_compute_capability (tma 90, cp_async 80: the
  /// path's own; staged 0: mbarriers from sm_80, shared-memory counters below). Below it the pipeline traps; the host
  /// refuses it when the launch is told (launch_options::uses_role_pipeline; see above). NVIDIA
  /// only: under HIP the staged role protocol needs no compute capability (LDS phase counters).
  static constexpr int min_compute_capability = Path::role_min_compute_capability;
  /// Dynamic shared memory the launch must provide, bytes.
  static constexpr std::size_t shared_bytes = ring::bytes;
  /// Threads the CTA must have (blockDim.x * y * z).
  static constexpr unsigned threads = Roles::threads;
  static constexpr unsigned producer_threads = Roles::producer_threads;
  static constexpr unsigned consumer_threads = Roles::consumer_threads;

#if PORTER_GPU_COMPILER
  /// Construct and initialise (collective over the whole CTA; ends with a CTA barrier). Traps when
  /// the CTA does not have Roles::threads threads. Precondition: no thread still uses a ring over
  /// the same shared memory (a kernel that builds a second ring there runs a CTA barrier first:
  /// thread 0 rewrites the barriers while late arrivals on the old ones would corrupt them).
  PORTER_DEVICE explicit role_pipeline(void* smem) { construct<false>(smem); }

  /// Construct and initialise a cluster-multicast ring (porter::cluster_multicast, porter/pipeline.hpp),
  /// for a kernel launched in clusters (porter::launch_options::cluster): boxes copied with
  /// `porter::async_copy(porter::buffer<I>(slot), src, at, porter::multicast)` are read once per
  /// cluster and land in every CTA of it (tma: .multicast::cluster; the issuing CTA rotates step by
  /// step), and each stage is given back to the producers only when the consumers of EVERY CTA of
  /// the cluster have released it (their EMPTY arrivals go to every CTA). On cp_async and staged,
  /// and in a launch without clusters, every CTA copies its own boxes and the ring is an ordinary
  /// one (the same bytes land). Collective over the cluster on tma (ends with a cluster barrier),
  /// over the CTA elsewhere. Preconditions: every CTA of the cluster constructs the ring at the same
  /// shared offset and makes the same calls (the same number of steps per role); a multicast box has
  /// the same source and coordinates in every CTA (unchecked); every thread of every CTA, producers
  /// included, calls porter::cluster_sync() before it exits (a consumer's last releases arrive on
  /// its peers' EMPTY barriers, and a peer's last multicast lands in this CTA).
  PORTER_DEVICE role_pipeline(void* smem, cluster_multicast_t) { construct<true>(smem); }

  /// True on the producer threads (the first Roles::producer_threads of the CTA).
  PORTER_DEVICE bool is_producer() const { return producer_; }
  /// True on the consumer threads.
  PORTER_DEVICE bool is_consumer() const { return !producer_; }

  /// Begin this thread's role: with porter::registers<P, C> in Roles, the producer warpgroups lower
  /// their register limit to P and the consumers raise theirs to C (setmaxnreg, sm_90a/sm_100a
  /// targets; nothing elsewhere). Call once per thread, right after taking the role; without a
  /// register request it does nothing. Every thread of a warpgroup must call it together.
  PORTER_DEVICE PORTER_FORCEINLINE void enter_role() { proto_.enter_role(producer_); }

  /// Barrier among the threads of this thread's role only (named barrier 1 for the producers, 2 for
  /// the consumers; all threads of the role call it).
  PORTER_DEVICE PORTER_FORCEINLINE void sync_role() { proto_.sync_role(producer_); }

  /// Producers: the next stage, writable (waits until the consumers released its previous pass).
  PORTER_DEVICE producer_slot<role_pipeline> producer_acquire() {
#if PORTER_DEBUG
    if (!producer_) detail::trap("role_pipeline::producer_acquire called by a consumer thread");
#endif
    const unsigned s = stage_, ph = pass_;
    proto_.acquire(s, ph);
    advance();
    return producer_slot<role_pipeline>(this, s, ph, stage_data(s));
  }

  /// Producers: the copies issued into `slot` are all issued. Tokens in acquire order.
  PORTER_DEVICE void producer_commit(producer_slot<role_pipeline>& slot) {
    check_commit(slot);
    proto_.commit(slot.stage_, slot.phase_);
  }

  /// Producers: as producer_commit, after the producer threads also wrote into the stage with
  /// ordinary stores (porter::stage_written): the commit then publishes those stores to the
  /// consumers too (on cp_async each producer thread waits for all of its cp.async copies in flight,
  /// this stage's and earlier ones, and arrives with release semantics instead of through
  /// cp.async.mbarrier.arrive: a stall while several stages are in flight; tma and staged arrivals
  /// already release). Stores that a TMA copy of the same stage may overwrite also need
  /// fence.proxy.async and the producers' sync_role() before the copy is issued, as on porter::pipeline.
  PORTER_DEVICE void producer_commit(producer_slot<role_pipeline>& slot, stage_written_t) {
    check_commit(slot);
    proto_.commit_written(slot.stage_, slot.phase_);
  }

  /// Consumers: the oldest stage not yet waited for, landed.
  PORTER_DEVICE consumer_stage<role_pipeline> consumer_wait() {
#if PORTER_DEBUG
    if (producer_) detail::trap("role_pipeline::consumer_wait called by a producer thread");
#endif
    const unsigned s = stage_, ph = pass_;
    proto_.wait(s, ph, 0);
    advance();
    return consumer_stage<role_pipeline>(s, ph, stage_data(s));
  }

  /// Consumers: done reading the stage of `ready` (every consumer thread calls it: the release is
  /// one arrival per consumer thread on the stage's EMPTY barrier; on tma a fence.proxy.async
  /// before it, so that the TMA refill is ordered after the thread's reads). Tokens in wait order.
  /// In a cluster-multicast ring on tma it is also warp-collective (all lanes of a consumer warp
  /// call it together): after the thread's own arrival, __syncwarp, and lane 0 arrives on the
  /// stage's EMPTY in every peer CTA.
  PORTER_DEVICE void consumer_release(consumer_stage<role_pipeline>& ready) {
#if PORTER_DEBUG
    if (producer_) detail::trap("role_pipeline::consumer_release called by a producer thread");
    if (ready.stage_ != released_ % Stages || ready.phase_ != released_ / Stages)
      detail::trap_stage("consumer_release out of order: the token is not the oldest waited stage", ready.stage_, ready.phase_);
    ++released_;
#endif
    proto_.release(ready.stage_, ready.phase_);
  }

  /// Consumers: as consumer_wait(), for a consumer that reads the stage through the async proxy
  /// (wgmma's shared-memory operands): porter::async_proxy_reads (porter/pipeline.hpp) says what
  /// each path adds after the wait (cp_async, staged: fence.proxy.async; tma: nothing).
  PORTER_DEVICE consumer_stage<role_pipeline> consumer_wait(async_proxy_reads_t) {
    consumer_stage<role_pipeline> ready = consumer_wait();
    lowering::before_async_proxy_reads();
    return ready;
  }

  /// As consumer_release, after writing into the stage (porter::stage_written: on tma every
  /// consumer thread orders its generic writes before the stage's TMA refill).
  PORTER_DEVICE void consumer_release(consumer_stage<role_pipeline>& ready, stage_written_t) {
    lowering::after_generic_writes();
    consumer_release(ready);
  }

  /// The lowering's protocol state (porter::async_copy issues copies through it; kernels do not).
  PORTER_DEVICE protocol_type& protocol() { return proto_; }

 private:
  /// Both constructors: align the ring, check the CTA size, take the role, initialise the protocol
  /// (Cluster: its init_cluster where the lowering has one, tma; the ordinary init elsewhere), then
  /// a CTA barrier.
  template <bool Cluster>
  PORTER_DEVICE void construct(void* smem) {
    const std::size_t pad = detail::shared_alignment_pad(smem, ring::alignment);
    base_ = static_cast<unsigned char*>(smem) + pad;
    if (detail::cta_size() != Roles::threads)
      detail::trap("porter::role_pipeline: the CTA must have exactly Roles::threads threads (producer_threads + consumer_threads)");
    const unsigned t = detail::thread_rank();
    producer_ = t < Roles::producer_threads;
    if constexpr (Cluster && detail::has_init_cluster<protocol_type>::value) proto_.init_cluster(base_, t, Roles::threads);
    else proto_.init(base_, t, Roles::threads);
    __syncthreads();
  }
  /// Debug builds: a commit comes from a producer, with the oldest uncommitted token.
  PORTER_DEVICE PORTER_FORCEINLINE void check_commit(const producer_slot<role_pipeline>& slot) {
#if PORTER_DEBUG
    if (!producer_) detail::trap("role_pipeline::producer_commit called by a consumer thread");
    if (slot.stage_ != committed_ % Stages || slot.phase_ != committed_ / Stages)
      detail::trap_stage("producer_commit out of order: the token is not the oldest uncommitted stage", slot.stage_, slot.phase_);
    ++committed_;
#else
    (void)slot;
#endif
  }
  PORTER_DEVICE PORTER_FORCEINLINE void advance() {
    if (++stage_ == unsigned(Stages)) {
      stage_ = 0;
      ++pass_;
    }
  }
  PORTER_DEVICE unsigned char* stage_data(unsigned s) const { return base_ + ring::stage_offset(int(s)); }
#endif  // PORTER_GPU_COMPILER

  unsigned char* base_ = nullptr;
  protocol_type proto_{};
  unsigned stage_ = 0, pass_ = 0;  // this thread's position: the producer's or the consumer's
  bool producer_ = false;
#if PORTER_DEBUG
  unsigned committed_ = 0, released_ = 0;
#endif
};

template <class Path, class Roles, int Stages, class... Boxes>
struct is_role_pipeline<role_pipeline<Path, Roles, Stages, Boxes...>> : std::true_type {};

}  // namespace porter
