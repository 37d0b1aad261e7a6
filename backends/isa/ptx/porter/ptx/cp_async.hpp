// porter/ptx/cp_async.hpp — Ampere asynchronous copy wrappers (global -> shared), one per variant.
//
// The instruction layer (backends/isa/ptx): below the lowerings, which are its only users.
//
// Source: PTX ISA 8.x, section 9.7.9.25.3 "cp.async" (sm_80). The src-size operand (0..cp-size)
// reads that many bytes and zero-fills the rest of the chunk; with src-size 0 nothing is read.
#pragma once
#include <cstdint>

#include "porter/ptx/common.hpp"

namespace porter::ptx {
#if defined(__CUDACC__)

/// cp.async.cg.shared.global [dst], [src], 16, src_size;   (sm_80; .cg caches in L2 only)
/// dst and src 16-byte aligned; src_size in 0..16.
PORTER_DEVICE PORTER_FORCEINLINE void cp_async_cg_16(void* dst, const void* src, std::uint32_t src_size) {
#if PORTER_ARCH_HAS_CP_ASYNC
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)), "l"(src), "r"(src_size)
               : "memory");
#else
  trap_with("cp.async needs sm_80 or newer");
#endif
}

/// cp.async.ca.shared.global [dst], [src], 8, src_size;   (sm_80; .ca caches in L1 and L2)
/// dst and src 8-byte aligned; src_size in 0..8.
PORTER_DEVICE PORTER_FORCEINLINE void cp_async_ca_8(void* dst, const void* src, std::uint32_t src_size) {
#if PORTER_ARCH_HAS_CP_ASYNC
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(smem_addr(dst)), "l"(src), "r"(src_size)
               : "memory");
#else
  trap_with("cp.async needs sm_80 or newer");
#endif
}

/// cp.async.ca.shared.global [dst], [src], 4, src_size;   (sm_80)
/// dst and src 4-byte aligned; src_size in 0..4.
PORTER_DEVICE PORTER_FORCEINLINE void cp_async_ca_4(void* dst, const void* src, std::uint32_t src_size) {
#if PORTER_ARCH_HAS_CP_ASYNC
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(smem_addr(dst)), "l"(src), "r"(src_size)
               : "memory");
#else
  trap_with("cp.async needs sm_80 or newer");
#endif
}

/// cp.async.commit_group;   (PTX 9.7.9.25.3.2, sm_80)
/// Closes this thread's current group of cp.async operations (an empty group is legal).
PORTER_DEVICE PORTER_FORCEINLINE void cp_async_commit_group() {
#if PORTER_ARCH_HAS_CP_ASYNC
  asm volatile("cp.async.commit_group;" ::: "memory");
#else
  trap_with("cp.async needs sm_80 or newer");
#endif
}

/// cp.async.wait_group N;   (PTX 9.7.9.25.3.3, sm_80)
/// Waits until at most N of this thread's most recent groups are pending; the writes of the
/// completed groups are then visible to this thread. N is an immediate: 0..7 here.
template <int N>
PORTER_DEVICE PORTER_FORCEINLINE void cp_async_wait_group() {
  static_assert(N >= 0 && N <= 7, "cp.async.wait_group: N must be 0..7 here (pipelines have at most 8 stages).");
#if PORTER_ARCH_HAS_CP_ASYNC
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#else
  trap_with("cp.async needs sm_80 or newer");
#endif
}

/// cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];   (PTX ISA 9.7.9.25.3.5
/// "cp.async.mbarrier.arrive", sm_80)
/// Arrives on the current phase of `bar` (one of its expected arrivals: .noinc does not raise the
/// pending count first) once every cp.async this thread issued before has completed, so a waiter
/// that observes the phase complete sees those copies' bytes.
PORTER_DEVICE PORTER_FORCEINLINE void cp_async_mbarrier_arrive_noinc(std::uint64_t* bar) {
#if PORTER_ARCH_HAS_CP_ASYNC
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_addr(bar)) : "memory");
#else
  trap_with("cp.async.mbarrier.arrive needs sm_80 or newer");
#endif
}

#endif  // __CUDACC__
}  // namespace porter::ptx
