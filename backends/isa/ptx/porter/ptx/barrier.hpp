// porter/ptx/barrier.hpp — named CTA barriers and register reallocation, one wrapper per variant.
//
// The instruction layer (backends/isa/ptx): below the lowerings, which are its only users.
//
// Sources: PTX ISA 8.x 9.7.13.1 "bar, barrier" (16 barriers per CTA, ids 0..15; a thread count,
// a multiple of 32, names the participating threads; id 0 is __syncthreads' barrier), 9.7.17.1
// "setmaxnreg" (sm_90a: warpgroup-wide, .sync.aligned; counts 24..256, multiples of 8).
#pragma once
#include <cstdint>

#include "porter/ptx/common.hpp"

namespace porter::ptx {
#if defined(__CUDACC__)

/// bar.sync Id, threads;   (PTX 9.7.13.1, sm_20+)
/// Waits until `threads` threads (a multiple of 32, whole warps) have arrived at named barrier
/// Id (1..15), then releases them; orders every participant's prior memory accesses before every
/// participant's later ones (CTA scope). Id is an immediate, so ptxas knows which barriers the
/// kernel uses.
template <unsigned Id>
PORTER_DEVICE PORTER_FORCEINLINE void named_barrier_sync(unsigned threads) {
  static_assert(Id >= 1 && Id <= 15, "named barrier ids are 1..15 (0 is the CTA barrier)");
  asm volatile("bar.sync %0, %1;" ::"n"(Id), "r"(threads) : "memory");
}

/// The largest register count setmaxnreg can give a thread (PTX 9.7.17.1).
inline constexpr int max_register_count = 256;

/// setmaxnreg.inc.sync.aligned.u32 N;   (PTX 9.7.17.1, sm_90a)
/// Raises this warpgroup's per-thread register limit to N (24..256, multiple of 8), blocking until
/// the CTA's register pool has them. Every thread of the warpgroup executes it together. Emitted
/// only when the target has it (sm_90a: __CUDA_ARCH_FEAT_SM90_ALL; sm_100a); elsewhere nothing.
template <int N>
PORTER_DEVICE PORTER_FORCEINLINE void setmaxnreg_inc() {
  static_assert(N >= 24 && N <= max_register_count && N % 8 == 0, "setmaxnreg: the count must be 24..256 and a multiple of 8.");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
#endif
}

/// setmaxnreg.dec.sync.aligned.u32 N;   (PTX 9.7.17.1, sm_90a)
/// Lowers this warpgroup's per-thread register limit to N, returning the rest to the CTA's pool.
/// Same conditions as setmaxnreg_inc.
template <int N>
PORTER_DEVICE PORTER_FORCEINLINE void setmaxnreg_dec() {
  static_assert(N >= 24 && N <= max_register_count && N % 8 == 0, "setmaxnreg: the count must be 24..256 and a multiple of 8.");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
#endif
}

#endif  // __CUDACC__
}  // namespace porter::ptx
