// porter/config.hpp — the one place that maps compiler and target macros to capability names.
//
// Everything else in porter tests these names, never __CUDA_ARCH__, __HIP_DEVICE_COMPILE__ or raw
// SM numbers (docs/design.md, invariant 8). Sources: CUDA C++ Programming Guide, "Feature Availability"
// (__CUDA_ARCH__), PTX ISA 8.x sections 9.7.9.25 (cp.async, sm_80), 9.7.9.25.4 (cp.async.bulk,
// sm_90), 9.7.13.15 (mbarrier, sm_80; expect_tx and try_wait, sm_90), 9.7.14.5.14 (mma with bf16
// operands, sm_80), 9.7.15 (wgmma, sm_90a: __CUDA_ARCH_FEAT_SM90_ALL).
#pragma once

#if defined(__HIPCC__) || defined(__HIP__)
#  define PORTER_HIP 1                 // compiled by hipcc / clang -x hip
#  include <hip/hip_runtime.h>         // threadIdx, __shared__, __syncthreads: nvcc's implicit include, made explicit
#else
#  define PORTER_HIP 0
#endif

#if defined(__CUDACC__) || PORTER_HIP
#  define PORTER_GPU_COMPILER 1        // this translation unit understands __device__
#  define PORTER_HOST_DEVICE __host__ __device__
#  define PORTER_DEVICE __device__
#  define PORTER_FORCEINLINE __forceinline__
#  define PORTER_NOINLINE __noinline__
#else
#  define PORTER_GPU_COMPILER 0        // plain C++ (host tests, host code): no device parts
#  define PORTER_HOST_DEVICE
#  define PORTER_DEVICE
#  define PORTER_FORCEINLINE inline
#  define PORTER_NOINLINE
#endif

// `#pragma unroll` where the compiler knows it (nvcc, hipcc); nothing in plain C++, where g++ would
// warn about an unknown pragma in headers the host core shares with device code.
#if PORTER_GPU_COMPILER
#  define PORTER_UNROLL _Pragma("unroll")
#else
#  define PORTER_UNROLL
#endif

// Device compilation pass and the capabilities of its target.
#if defined(__CUDA_ARCH__)
#  define PORTER_DEVICE_PASS 1
#  define PORTER_ARCH_HAS_CP_ASYNC (__CUDA_ARCH__ >= 800)   // cp.async, mbarrier (sm_80+)
#  define PORTER_ARCH_HAS_MBARRIER (__CUDA_ARCH__ >= 800)
#  define PORTER_ARCH_HAS_TMA      (__CUDA_ARCH__ >= 900)   // cp.async.bulk{.tensor}, expect_tx (sm_90+)
#  define PORTER_ARCH_HAS_CLUSTERS (__CUDA_ARCH__ >= 900)   // %cluster_ctarank, barrier.cluster, griddepcontrol (sm_90+)
#  define PORTER_ARCH_HAS_MMA_BF16 (__CUDA_ARCH__ >= 800)   // mma.sync with bf16 operands, m16n8k16 (sm_80+)
#  if defined(__CUDA_ARCH_FEAT_SM90_ALL)                      // warpgroup MMA: sm_90a only (arch-specific; not sm_100a)
#    define PORTER_ARCH_HAS_WGMMA 1
#  else
#    define PORTER_ARCH_HAS_WGMMA 0
#  endif
#elif defined(__HIP_DEVICE_COMPILE__)
#  define PORTER_DEVICE_PASS 1
#  define PORTER_ARCH_HAS_CP_ASYNC 0
#  define PORTER_ARCH_HAS_MBARRIER 0
#  define PORTER_ARCH_HAS_TMA      0
#  define PORTER_ARCH_HAS_CLUSTERS 0
#  define PORTER_ARCH_HAS_MMA_BF16 0
#  define PORTER_ARCH_HAS_WGMMA 0
#else
#  define PORTER_DEVICE_PASS 0
#  define PORTER_ARCH_HAS_CP_ASYNC 0
#  define PORTER_ARCH_HAS_MBARRIER 0
#  define PORTER_ARCH_HAS_TMA      0
#  define PORTER_ARCH_HAS_CLUSTERS 0
#  define PORTER_ARCH_HAS_MMA_BF16 0
#  define PORTER_ARCH_HAS_WGMMA 0
#endif

// Debug mode: device-side precondition checks and bounded waits that trap with a message.
// Independent of NDEBUG on purpose: users switch it on in release builds to find misuse.
#if !defined(PORTER_DEBUG)
#  define PORTER_DEBUG 0
#endif

// HIP has no __grid_constant__; the CUDA-only tensor map is never read there.
#if PORTER_HIP && !defined(__grid_constant__)
#  define __grid_constant__
#endif
// Under HIP a pipeline forced to tma or cp_async is a compile error. A program that instantiates
// every path (examples, porter-bench) is built with PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH=1:
// those instantiations then compile to a trapping stub and porter::launch refuses them on the host.
#if !defined(PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH)
#  define PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH 0
#endif

namespace porter {
/// Capability names of the current compilation pass, usable in `if constexpr`.
/// In the host pass all are false: device code is never emitted there.
struct arch {
  static constexpr bool device_pass = PORTER_DEVICE_PASS;
  static constexpr bool has_tma = PORTER_ARCH_HAS_TMA;
  static constexpr bool has_cp_async = PORTER_ARCH_HAS_CP_ASYNC;
  static constexpr bool has_mbarrier = PORTER_ARCH_HAS_MBARRIER;
  static constexpr bool has_clusters = PORTER_ARCH_HAS_CLUSTERS;  ///< thread-block clusters and dependent-launch control
  static constexpr bool has_mma_bf16 = PORTER_ARCH_HAS_MMA_BF16;  ///< warp-level mma.sync on bf16 (a consumer's, not a path's)
  static constexpr bool has_wgmma = PORTER_ARCH_HAS_WGMMA;        ///< warpgroup wgmma.mma_async (sm_90a; a consumer's, not a path's)
  static constexpr bool hip = PORTER_HIP;
};
}  // namespace porter
