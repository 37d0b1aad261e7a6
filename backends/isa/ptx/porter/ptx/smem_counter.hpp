// porter/ptx/smem_counter.hpp — phase counters in shared memory: the stand-in for an mbarrier on
// NVIDIA targets without one (sm_75), for the role rings (porter/ptx/role_ring.hpp), their only user.
// The AMD instruction layer has the same object over LDS (porter/amdgcn/lds_counter.hpp).
//
// One 32-bit shared-memory word per barrier:
//   bits  0..15   arrivals in the current phase
//   bits 16..31   phases completed so far (mod 2^16; only its parity is read)
//   init        one thread stores 0 (the CTA barrier that follows publishes it).
//   arrive(n)   every arriving thread: atom.release.cta.shared.add.u32 of 1 (the thread's earlier
//               shared and global accesses are ordered before any thread that observes the phase
//               complete). The thread that brings the count to n completes the phase: a relaxed add
//               of 2^16 - n clears the count and advances the phase in one atomic step.
//   wait(p)     ld.acquire.cta.shared.u32 until the phase counter's parity differs from p (the phase
//               of parity p has completed), with nanosleep between probes.
// The completing add may be relaxed: every modification of the word after init is a read-modify-
// write (the waits only load it), so it belongs to the release sequence of each arrival before it
// (PTX ISA 8.x, "Memory Consistency Model": release sequence; C++20 [intro.races]): an acquire load
// that reads it synchronizes with every arrival of the phase.
// Preconditions, as for an mbarrier phase: at most 65,535 arrivals per phase; no thread arrives for
// phase k + 1 before phase k completed, and no thread waits for a phase two ahead (the role rings
// guarantee both).
// Cost against an mbarrier: one shared-memory atomic per arriving thread (a warp's 32 adds to one
// word), a polled load per wait instead of the hardware's try_wait.
// compute-sanitizer racecheck does not follow this hand-off: on the H100 (session 36,
// bench/results/h200-2026-12-05-session36/NOTES.md) it reported a hazard on a two-warp kernel that
// hands one shared-memory buffer over with a single atom.release / ld.acquire pair and nothing
// else (0 with an mbarrier or __syncthreads), and it reports the counter program's every hand-off.
// The device matrix (porter_device_counter_tests: 444 cases, 0 mismatches) is the check here.
// Source: PTX ISA 8.x 9.7.12.5 (atom, .sem .release, sm_70+), 9.7.9.8 (ld.acquire, sm_70+),
// 9.7.13.10 (nanosleep, sm_70+).
#pragma once
#include <cstdint>

#include "porter/ptx/common.hpp"

namespace porter::ptx {

#if defined(__CUDACC__)
/// Arrivals one phase of a shared-memory counter can count.
inline constexpr unsigned smem_counter_max_arrivals = 0xFFFFu;

/// st.shared.u32 [word], 0: phase 0, no arrivals. One thread; a CTA barrier follows.
PORTER_DEVICE PORTER_FORCEINLINE void smem_counter_init(std::uint32_t* word) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(smem_addr(word)), "r"(0u) : "memory");
}

/// This thread's arrival on the current phase of `word`, which completes after `expected` arrivals
/// (1 .. smem_counter_max_arrivals): atom.release.cta.shared.add.u32, then, from the completing
/// thread, red.relaxed.cta.shared.add.u32 of 2^16 - expected.
PORTER_DEVICE PORTER_FORCEINLINE void smem_counter_arrive(std::uint32_t* word, unsigned expected) {
  std::uint32_t old = 0;
  asm volatile("atom.release.cta.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(smem_addr(word)), "r"(1u) : "memory");
  if ((old & 0xFFFFu) + 1u == expected)
    asm volatile("red.relaxed.cta.shared.add.u32 [%0], %1;" ::"r"(smem_addr(word)), "r"(0x10000u - expected) : "memory");
}

/// One probe (ld.acquire.cta.shared.u32): true once the phase of parity `parity` (0 or 1) has
/// completed, with acquire semantics at CTA scope.
PORTER_DEVICE PORTER_FORCEINLINE bool smem_counter_test(std::uint32_t* word, unsigned parity) {
  std::uint32_t v = 0;
  asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(smem_addr(word)) : "memory");
  return ((v >> 16) & 1u) != parity;
}

/// nanosleep.u32 32: a waiting warp yields its issue slots between probes.
PORTER_DEVICE PORTER_FORCEINLINE void smem_counter_backoff() { asm volatile("nanosleep.u32 32;"); }
#endif  // __CUDACC__

}  // namespace porter::ptx
