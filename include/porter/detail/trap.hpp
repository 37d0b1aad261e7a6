// porter/detail/trap.hpp — stop the kernel with a message (debug checks, wrong-target stubs).
#pragma once
#include <cstdio>

#include "porter/config.hpp"

/// PORTER_STRICT_PATHS=1 (a compile definition for the whole program, like PORTER_DEBUG): a copy of
/// a forced tma or cp_async path that would move bytes with thread loads instead of the path's
/// instruction traps instead (detail::strict_fallback). The host can tell most of those before
/// launch: porter::copy_mechanisms, and launch_options::strict_paths with the sources' patterns.
#ifndef PORTER_STRICT_PATHS
#  define PORTER_STRICT_PATHS 0
#endif

/// PORTER_TRAP_MESSAGES=0 (a compile definition for a translation unit; default 1): porter's traps
/// keep their `trap` instruction but print no message, so a kernel built that way contains no
/// function call (printf is one). Why: ptxas serializes every wgmma.mma_async of a function that
/// contains a call ("wgmma.mma_async instructions are serialized due to wgmma pipeline crossing
/// function boundary at a function call", C7510), even a call on a path that ends in `trap` before
/// the first wgmma; a warp-specialized sm_90a kernel on a porter::role_pipeline has one in release
/// builds (the CTA-size check of its constructor). The failure then shows as the launch's error
/// only; rebuild that translation unit without PORTER_TRAP_MESSAGES=0 to read it (PORTER_DEBUG=1
/// does not bring messages back: the two are independent). Source: measured with ptxas 13.0
/// -v on bench/kernels/bf16gemm_wgmma.cuh (2026-12-02).
#ifndef PORTER_TRAP_MESSAGES
#  define PORTER_TRAP_MESSAGES 1
#endif

namespace porter::detail {
#if PORTER_GPU_COMPILER
/// Linear index of this thread in its CTA.
PORTER_DEVICE PORTER_FORCEINLINE unsigned thread_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
/// Threads in this CTA.
PORTER_DEVICE PORTER_FORCEINLINE unsigned cta_size() { return blockDim.x * blockDim.y * blockDim.z; }

// trap and trap_stage have a body per PORTER_TRAP_MESSAGES setting; each setting gets its own
// inline namespace, so translation units built with different settings never define the same
// inline function differently (one definition rule; it matters under device linking, -rdc).
#if PORTER_TRAP_MESSAGES
inline namespace trap_with_messages {
#else
inline namespace trap_without_messages {
#endif
/// Print "porter: <msg> (block b thread t)" (unless PORTER_TRAP_MESSAGES=0) and abort the kernel (PTX `trap`; on AMD, s_trap
/// through __builtin_trap). The launch then fails with an illegal-instruction / launch error.
PORTER_DEVICE inline void trap(const char* msg) {
#if PORTER_TRAP_MESSAGES
  printf("porter: %s (block %d,%d,%d thread %u)\n", msg, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), thread_rank());
#else
  (void)msg;
#endif
#if PORTER_HIP
  __builtin_trap();
#else
  __trap();
#endif
}
/// As trap, naming a pipeline stage and phase (pass number over the ring, and its parity).
PORTER_DEVICE inline void trap_stage(const char* msg, unsigned stage, unsigned phase) {
#if PORTER_TRAP_MESSAGES
  printf("porter: %s (stage %u, phase %u, parity %u; block %d,%d,%d thread %u)\n", msg, stage, phase, phase & 1u,
         int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), thread_rank());
#else
  (void)msg, (void)stage, (void)phase;
#endif
#if PORTER_HIP
  __builtin_trap();
#else
  __trap();
#endif
}
}  // inline namespace

/// Called by a lowering's copy where it is about to move bytes with thread loads instead of its own
/// instruction (a fallback). With PORTER_STRICT_PATHS=1 the CTA's thread 0 traps with
/// "porter: <what>" (no message in a PORTER_TRAP_MESSAGES=0 translation unit; the kernel then
/// fails and the other threads stop with it); otherwise nothing.
/// Collective: every thread of the CTA calls it with the same arguments.
PORTER_DEVICE PORTER_FORCEINLINE void strict_fallback(const char* what, unsigned thread) {
#if PORTER_STRICT_PATHS
  if (thread == 0) trap(what);
#else
  (void)what;
  (void)thread;
#endif
}
#endif
}  // namespace porter::detail
