// porter/amdgcn/lds_counter.hpp — phase counters in LDS: the AMD stand-in for an mbarrier, for the
// staged lowering's role protocol (backends/staged/amd/porter/staged/role_protocol.hpp), its only
// user. Part of porter's AMD instruction layer (backends/isa/amdgcn).
//
// gfx9 / CDNA has no mbarrier: its only hardware barrier, s_barrier, is workgroup-wide, so a ring
// whose producers and consumers never meet at one needs its FULL and EMPTY phases in memory. One
// 32-bit LDS word per barrier:
//   bits  0..15   arrivals in the current phase
//   bits 16..31   phases completed so far (mod 2^16; only its parity is read)
//   init        one thread stores 0 (the workgroup barrier that follows publishes it).
//   arrive(n)   every arriving thread: ds_add_rtn_u32 of 1 with release semantics at workgroup
//               scope (the thread's earlier LDS and global accesses are ordered before any thread
//               that observes the phase complete). The thread that brings the count to n completes
//               the phase: a second ds_add of 2^16 - n, which clears the count and advances the
//               phase in one atomic step.
//   wait(p)     ds_read_b32 with acquire semantics at workgroup scope until the phase counter's
//               parity differs from p (the phase of parity p has completed), with s_sleep 1
//               (64 clocks) between probes so that a waiting wavefront leaves issue slots to the
//               others.
// Why the completing add may be relaxed: every modification of the word after init is a read-
// modify-write (the waits only load it), so the completing add belongs to the release sequence of
// each arrival before it (C++20 [intro.races], which HIP follows at workgroup scope): an acquire
// read that sees it synchronizes with every arrival of the phase.
// Preconditions, as for an mbarrier phase: at most 65,535 arrivals per phase; no thread arrives for
// phase k + 1 before phase k completed, and no thread waits for a phase two ahead of the word's
// (porter's role protocol guarantees both: a stage's next pass is filled only after its previous
// one was released, and released only after it was waited for).
// Cost, unmeasured (there is no AMD GPU where porter is built): each lane's arrival is its own LDS
// atomic on the same word. The gfx90a assembly has one wave-wide ds_add_rtn_u32 per arrival site;
// the LDS performs its 64 lanes' adds to one address one after another. ROCm 5.2's LLVM combines
// them only when asked (-mllvm -amdgpu-atomic-optimizations=true: one ds_add_rtn_u32 of the active
// lane count, each lane's old value rebuilt with v_mbcnt; the completion test stays right), a
// compiler transformation its memory model allows. porter writes the per-thread form the HIP model
// guarantees and leaves the flag to the build; which is faster has not been measured.
// Source: LLVM AMDGPUUsage, "Memory Model GFX90A" (release / acquire at workgroup scope: s_waitcnt
// before, buffer invalidation not needed for LDS); AMD "Instinct MI200" ISA, 12.2 (DS atomics),
// 4.5 (s_sleep); clang __hip_atomic_* builtins.
#pragma once
#include <cstdint>

#include "porter/config.hpp"

namespace porter::amdgcn {

#if PORTER_HIP
#if !__has_builtin(__hip_atomic_fetch_add) || !__has_builtin(__hip_atomic_load)
#  error "porter/amdgcn/lds_counter.hpp needs clang's __hip_atomic_fetch_add / __hip_atomic_load (ROCm 5.x hipcc or newer)"
#endif

/// Arrivals one phase of an LDS counter can count.
inline constexpr unsigned lds_counter_max_arrivals = 0xFFFFu;

/// Set the counter at `word` (a 4-byte aligned LDS address) to phase 0 with no arrivals. One thread;
/// a workgroup barrier must follow before any thread arrives or waits.
PORTER_DEVICE PORTER_FORCEINLINE void lds_counter_init(std::uint32_t* word) {
  __hip_atomic_store(word, 0u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
}

/// This thread's arrival on the current phase of `word`, which completes after `expected` arrivals
/// (1 .. lds_counter_max_arrivals). Release at workgroup scope.
PORTER_DEVICE PORTER_FORCEINLINE void lds_counter_arrive(std::uint32_t* word, unsigned expected) {
  const std::uint32_t old = __hip_atomic_fetch_add(word, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
  if ((old & 0xFFFFu) + 1u == expected)
    __hip_atomic_fetch_add(word, 0x10000u - expected, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
}

/// One probe: true once the phase of parity `parity` (0 or 1) has completed. Acquire at workgroup
/// scope when it returns true.
PORTER_DEVICE PORTER_FORCEINLINE bool lds_counter_test(std::uint32_t* word, unsigned parity) {
  const std::uint32_t v = __hip_atomic_load(word, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP);
  return ((v >> 16) & 1u) != parity;
}

/// Sleep for about 64 clocks between probes (s_sleep 1): a waiting wavefront yields its issue slots.
PORTER_DEVICE PORTER_FORCEINLINE void lds_counter_backoff() { __builtin_amdgcn_s_sleep(1); }
#endif  // PORTER_HIP

}  // namespace porter::amdgcn
