// porter/detail/trap.hpp — stop the kernel with a message (debug checks, wrong-target stubs).
#pragma once
#include <cstdio>

#include "porter/config.hpp"

namespace porter::detail {
#if PORTER_GPU_COMPILER
/// Linear index of this thread in its CTA.
PORTER_DEVICE PORTER_FORCEINLINE unsigned thread_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
/// Threads in this CTA.
PORTER_DEVICE PORTER_FORCEINLINE unsigned cta_size() { return blockDim.x * blockDim.y * blockDim.z; }

/// Print "porter: <msg> (block b thread t)" and abort the kernel (PTX `trap`; on AMD, s_trap
/// through __builtin_trap). The launch then fails with an illegal-instruction / launch error.
PORTER_DEVICE inline void trap(const char* msg) {
  printf("porter: %s (block %d,%d,%d thread %u)\n", msg, int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), thread_rank());
#if PORTER_HIP
  __builtin_trap();
#else
  __trap();
#endif
}
/// As trap, naming a pipeline stage and phase (pass number over the ring, and its parity).
PORTER_DEVICE inline void trap_stage(const char* msg, unsigned stage, unsigned phase) {
  printf("porter: %s (stage %u, phase %u, parity %u; block %d,%d,%d thread %u)\n", msg, stage, phase, phase & 1u,
         int(blockIdx.x), int(blockIdx.y), int(blockIdx.z), thread_rank());
#if PORTER_HIP
  __builtin_trap();
#else
  __trap();
#endif
}
#endif
}  // namespace porter::detail
