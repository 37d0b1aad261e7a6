// porter/staged/role_protocol.hpp (AMD flavour) — how a staged stage completes when the workgroup
// is split into producer and consumer roles (porter::role_pipeline, porter/roles.hpp; HIP, gfx9/CDNA).
//
// Same operations as the NVIDIA flavour (backends/staged/nvidia/porter/staged/role_protocol.hpp),
// checked by backends/conformance.hpp. gfx9 has no mbarrier and its s_barrier is workgroup-wide, so
// FULL and EMPTY are phase counters in LDS (porter/amdgcn/lds_counter.hpp), and so are the two
// role barriers (sync_role):
//   header    stage_ring's 16 bytes per stage: FULL[s] is the 32-bit word at header + 8 s, EMPTY[s]
//             the word at header + 8 (S + s) (the NVIDIA mbarriers' offsets); the producers' role
//             barrier is the word at header + 4, the consumers' at header + 8 S + 4 (the unused
//             upper halves of FULL[0]'s and EMPTY[0]'s 8-byte slots). Thread 0 zeroes them; the
//             pipeline's workgroup barrier follows.
//   acquire   (producers) wait for EMPTY's phase of the previous pass (nothing on pass 0).
//   copy      (producers) global loads and LDS stores by the producer threads (porter/staged/copy.hpp,
//             AMD flavour): the ds_write instructions are issued when it returns; the commit's
//             release arrival orders them before the consumers' reads.
//   commit    (producers) every producer thread arrives on FULL (release at workgroup scope: its LDS
//             stores are visible to the consumers that observe the phase complete).
//   wait      (consumers) every consumer thread waits for FULL's phase of this pass (acquire).
//   release   (consumers) every consumer thread arrives on EMPTY (release: its reads of the stage
//             are ordered before the producers' next stores into it).
//   sync_role one arrival per thread of the role on its role barrier, then a wait for that phase.
// No workgroup barrier after construction: the consumers never wait for the producers' s_barrier.
// Roles are whole wavefronts: a wavefront is one instruction stream, and a wavefront holding
// threads of both roles would spin in one role's wait while its other lanes, which the wait is
// for, cannot run (gfx9 has no independent thread scheduling). So on AMD each role is a multiple
// of 64 threads (porter::warps<2 k>, porter::warpgroups<N>); a static_assert says so.
// Register reallocation (porter::registers) lowers to nothing: gfx9 has no setmaxnreg.
// Cluster multicast: no clusters on AMD; a porter::cluster_multicast ring is an ordinary one (no
// init_cluster here), as on cp_async and staged on NVIDIA.
// Verified by compiling: tests/hip/lowering_kernels.hip's roles_staged kernel, read by
// check_gfx90a_asm.py (ds_add_rtn_u32 arrivals, s_sleep waits, one s_barrier: the construction's);
// its device test (tests/hip/device_test.cpp, HipDevice.RolePipelineLandsEveryStage) skips without an
// AMD GPU. Not yet run on AMD hardware.
// Source: LLVM AMDGPUUsage, "Memory Model GFX90A"; AMD "Instinct MI200" ISA reference.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/amdgcn/lds_counter.hpp"
#include "porter/amdgcn/memory.hpp"
#include "porter/cache_hint.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/trap.hpp"
#include "porter/roles.hpp"
#include "porter/source.hpp"
#include "porter/staged/copy.hpp"

#if !defined(PORTER_DEBUG_WAIT_CYCLES)
/// Debug builds: cycles a thread may spin on one phase before trapping (~2 s at 2 GHz).
#  define PORTER_DEBUG_WAIT_CYCLES (4000000000LL)  // clock64 (s_memtime) cycles: ~2.4 s at 1.7 GHz
#endif

namespace porter::backend {

/// The staged protocol for a ring (porter::stage_ring<S, Boxes...>) split by `Roles` (AMD flavour).
template <class Ring, class Roles>
class staged_role_protocol {
#if PORTER_HIP
  static_assert(Roles::producer_threads % unsigned(amdgcn::wavefront_size) == 0 &&
                    Roles::consumer_threads % unsigned(amdgcn::wavefront_size) == 0,
                "porter::role_pipeline on AMD: each role must be whole wavefronts (64 threads on gfx9/CDNA: porter::warps<2 k> or "
                "porter::warpgroups<N>); a wavefront holding both roles would wait for lanes that cannot run.");
#endif
  static_assert(Roles::producer_threads <= 0xFFFFu && Roles::consumer_threads <= 0xFFFFu,
                "porter::role_pipeline on AMD: a phase counts at most 65,535 arrivals.");

 public:
  static constexpr int stages = Ring::stages;

#if PORTER_HIP
  /// Point at the header, zero the counters (thread 0) and record this thread's role. Collective
  /// over the workgroup; the pipeline follows it with a workgroup barrier.
  PORTER_DEVICE void init(unsigned char* header, unsigned thread, unsigned /*nthreads*/) {
    words_ = reinterpret_cast<std::uint32_t*>(header);
    if (thread == 0) {
      for (int s = 0; s < Ring::stages; ++s) {
        amdgcn::lds_counter_init(full(unsigned(s)));
        amdgcn::lds_counter_init(empty(unsigned(s)));
      }
      amdgcn::lds_counter_init(role_word(true));
      amdgcn::lds_counter_init(role_word(false));
    }
    rank_ = thread < Roles::producer_threads ? thread : thread - Roles::producer_threads;
  }
  /// Producers: make stage `stage` of pass `pass` writable.
  PORTER_DEVICE PORTER_FORCEINLINE void acquire(unsigned stage, unsigned pass) {
    if (pass != 0)
      wait_phase(empty(stage), (pass - 1) & 1u,
                 "producer_acquire: the consumers never released the stage (EMPTY wait timed out: a consumer skipped "
                 "consumer_release)",
                 stage, pass);
  }
  /// Producers: copy a box into buffer I of `stage` (loads and LDS stores by the producer threads).
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
  PORTER_DEVICE PORTER_FORCEINLINE void commit(unsigned stage, unsigned /*pass*/) {
    amdgcn::lds_counter_arrive(full(stage), Roles::producer_threads);
  }
  /// Producers: commit after this thread also wrote into the stage with ordinary stores (the same
  /// release arrival publishes them).
  PORTER_DEVICE PORTER_FORCEINLINE void commit_written(unsigned stage, unsigned pass) { commit(stage, pass); }
  /// Begin this thread's role: nothing on AMD (no register reallocation on gfx9).
  PORTER_DEVICE PORTER_FORCEINLINE void enter_role(bool /*producer*/) {}
  /// Barrier among the threads of this thread's role (its LDS role counter).
  PORTER_DEVICE PORTER_FORCEINLINE void sync_role(bool producer) {
    std::uint32_t* w = role_word(producer);
    amdgcn::lds_counter_arrive(w, producer ? Roles::producer_threads : Roles::consumer_threads);
    wait_phase(w, role_pass_ & 1u, "sync_role: a thread of the role never arrived (a thread of the role skipped sync_role)", 0,
               role_pass_);
    ++role_pass_;
  }
  /// Consumers: wait for FULL's phase of pass `pass`.
  PORTER_DEVICE PORTER_FORCEINLINE void wait(unsigned stage, unsigned pass, unsigned /*pending_after*/) {
    wait_phase(full(stage), pass & 1u,
               "consumer_wait: the stage never landed (FULL wait timed out: a producer skipped producer_commit)", stage, pass);
  }
  /// Consumers: this thread is done reading the stage (one arrival on EMPTY).
  PORTER_DEVICE PORTER_FORCEINLINE void release(unsigned stage, unsigned /*pass*/) {
    amdgcn::lds_counter_arrive(empty(stage), Roles::consumer_threads);
  }

 private:
  PORTER_DEVICE PORTER_FORCEINLINE std::uint32_t* full(unsigned s) const { return words_ + 2u * s; }
  PORTER_DEVICE PORTER_FORCEINLINE std::uint32_t* empty(unsigned s) const { return words_ + 2u * (unsigned(Ring::stages) + s); }
  PORTER_DEVICE PORTER_FORCEINLINE std::uint32_t* role_word(bool producer) const {
    return producer ? words_ + 1u : words_ + 2u * unsigned(Ring::stages) + 1u;
  }
  /// Spin until the phase of parity `parity` of `word` completed (acquire). Debug builds trap after
  /// PORTER_DEBUG_WAIT_CYCLES naming `what`, the stage and the pass.
  static PORTER_DEVICE PORTER_FORCEINLINE void wait_phase(std::uint32_t* word, unsigned parity, const char* what, unsigned stage,
                                                          unsigned pass) {
#if PORTER_DEBUG
    const long long t0 = clock64();
    while (!amdgcn::lds_counter_test(word, parity)) {
      if (clock64() - t0 > PORTER_DEBUG_WAIT_CYCLES) detail::trap_stage(what, stage, pass);
      amdgcn::lds_counter_backoff();
    }
#else
    (void)what;
    (void)stage;
    (void)pass;
    while (!amdgcn::lds_counter_test(word, parity)) amdgcn::lds_counter_backoff();
#endif
  }
  PORTER_DEVICE PORTER_FORCEINLINE detail::copy_context ctx() const {
    return detail::copy_context{nullptr, rank_, Roles::producer_threads, true};
  }
#endif  // PORTER_HIP

  std::uint32_t* words_ = nullptr;
  unsigned rank_ = 0;
  unsigned role_pass_ = 0;  // phases of this thread's role barrier it has waited for
};

}  // namespace porter::backend
