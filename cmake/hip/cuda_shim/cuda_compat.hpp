// cmake/hip/cuda_shim/cuda_compat.hpp — the CUDA runtime names that porter's host programs use, for HIP.
//
// porter's examples and porter-bench are written once against the CUDA runtime (cudaMalloc,
// cudaMemcpy, CUDA events, ...). The HIP build (cmake/hip) force-includes this header into those
// programs only (-include .../cuda_shim/cuda_compat.hpp), so they build for AMD GPUs unchanged. It is
// not part of porter's API and no porter header includes it: a user's HIP code is not handed CUDA
// names it did not ask for.
//
// Each name is a type alias, a constant or an inline function forwarding to its HIP twin with the
// same arguments (HIP Runtime API, "CUDA to HIP API function comparison"); no macros.
// Covered: the calls porter's host programs make. A missing one is a compile error naming it: add
// it here, next to its neighbours.
#pragma once
#include <hip/hip_runtime.h>

#include <cstddef>

// ---- types and constants -------------------------------------------------------------------------
using cudaError_t = hipError_t;
using cudaStream_t = hipStream_t;
using cudaEvent_t = hipEvent_t;
using cudaDeviceProp = hipDeviceProp_t;
using cudaMemcpyKind = hipMemcpyKind;
using cudaFuncAttributes = hipFuncAttributes;

inline constexpr hipError_t cudaSuccess = hipSuccess;
inline constexpr hipError_t cudaErrorNoDevice = hipErrorNoDevice;
inline constexpr hipMemcpyKind cudaMemcpyHostToHost = hipMemcpyHostToHost;
inline constexpr hipMemcpyKind cudaMemcpyHostToDevice = hipMemcpyHostToDevice;
inline constexpr hipMemcpyKind cudaMemcpyDeviceToHost = hipMemcpyDeviceToHost;
inline constexpr hipMemcpyKind cudaMemcpyDeviceToDevice = hipMemcpyDeviceToDevice;
inline constexpr hipMemcpyKind cudaMemcpyDefault = hipMemcpyDefault;
using cudaFuncAttribute = hipFuncAttribute;
inline constexpr hipFuncAttribute cudaFuncAttributeMaxDynamicSharedMemorySize = hipFuncAttributeMaxDynamicSharedMemorySize;

// ---- errors --------------------------------------------------------------------------------------
inline const char* cudaGetErrorString(hipError_t e) { return hipGetErrorString(e); }
inline const char* cudaGetErrorName(hipError_t e) { return hipGetErrorName(e); }
inline hipError_t cudaGetLastError() { return hipGetLastError(); }
inline hipError_t cudaPeekAtLastError() { return hipPeekAtLastError(); }

// ---- devices -------------------------------------------------------------------------------------
inline hipError_t cudaGetDeviceCount(int* n) { return hipGetDeviceCount(n); }
inline hipError_t cudaGetDevice(int* d) { return hipGetDevice(d); }
inline hipError_t cudaSetDevice(int d) { return hipSetDevice(d); }
inline hipError_t cudaGetDeviceProperties(hipDeviceProp_t* p, int d) { return hipGetDeviceProperties(p, d); }
inline hipError_t cudaDeviceSynchronize() { return hipDeviceSynchronize(); }
inline hipError_t cudaDeviceReset() { return hipDeviceReset(); }

// ---- memory --------------------------------------------------------------------------------------
template <class T>
inline hipError_t cudaMalloc(T** p, std::size_t bytes) { return hipMalloc(reinterpret_cast<void**>(p), bytes); }
template <class T>
inline hipError_t cudaMallocHost(T** p, std::size_t bytes) { return hipHostMalloc(reinterpret_cast<void**>(p), bytes, 0); }
inline hipError_t cudaFree(void* p) { return hipFree(p); }
inline hipError_t cudaFreeHost(void* p) { return hipHostFree(p); }
inline hipError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, hipMemcpyKind k) { return hipMemcpy(dst, src, bytes, k); }
inline hipError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, hipMemcpyKind k, hipStream_t s = nullptr) {
  return hipMemcpyAsync(dst, src, bytes, k, s);
}
inline hipError_t cudaMemset(void* p, int v, std::size_t bytes) { return hipMemset(p, v, bytes); }
inline hipError_t cudaMemsetAsync(void* p, int v, std::size_t bytes, hipStream_t s = nullptr) { return hipMemsetAsync(p, v, bytes, s); }
inline hipError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) { return hipMemGetInfo(free_bytes, total_bytes); }

// ---- streams and events --------------------------------------------------------------------------
inline hipError_t cudaStreamCreate(hipStream_t* s) { return hipStreamCreate(s); }
inline hipError_t cudaStreamDestroy(hipStream_t s) { return hipStreamDestroy(s); }
inline hipError_t cudaStreamSynchronize(hipStream_t s) { return hipStreamSynchronize(s); }
inline hipError_t cudaEventCreate(hipEvent_t* e) { return hipEventCreate(e); }
inline hipError_t cudaEventDestroy(hipEvent_t e) { return hipEventDestroy(e); }
inline hipError_t cudaEventRecord(hipEvent_t e, hipStream_t s = nullptr) { return hipEventRecord(e, s); }
inline hipError_t cudaEventSynchronize(hipEvent_t e) { return hipEventSynchronize(e); }
inline hipError_t cudaEventElapsedTime(float* ms, hipEvent_t a, hipEvent_t b) { return hipEventElapsedTime(ms, a, b); }

// ---- kernels -------------------------------------------------------------------------------------
template <class... P>
inline hipError_t cudaFuncGetAttributes(hipFuncAttributes* a, void (*kernel)(P...)) {
  return hipFuncGetAttributes(a, reinterpret_cast<const void*>(kernel));
}
inline hipError_t cudaFuncSetAttribute(const void* kernel, hipFuncAttribute attr, int value) {
  return hipFuncSetAttribute(kernel, attr, value);
}
inline hipError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* kernel, int threads, std::size_t smem) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, threads, smem);
}

// ---- warp shuffles (device) -----------------------------------------------------------------------
// CUDA's __shfl_*_sync, for ROCm releases without them (ROCm 6.2 added its own behind
// HIP_ENABLE_WARP_SYNC_BUILTINS). `width` defaults to 32, CUDA's warp: code written for 32-lane warps
// (lane = threadIdx.x & 31, warp = threadIdx.x >> 5) then shuffles within each half of a 64-lane
// wavefront, exactly the lanes it would reach on NVIDIA. The mask is not checked: as on NVIDIA, every
// lane it names must execute the call.
#if !defined(HIP_ENABLE_WARP_SYNC_BUILTINS)
template <class T>
__device__ inline T __shfl_sync(unsigned long long, T v, int src_lane, int width = 32) { return __shfl(v, src_lane, width); }
template <class T>
__device__ inline T __shfl_up_sync(unsigned long long, T v, unsigned delta, int width = 32) { return __shfl_up(v, delta, width); }
template <class T>
__device__ inline T __shfl_down_sync(unsigned long long, T v, unsigned delta, int width = 32) { return __shfl_down(v, delta, width); }
template <class T>
__device__ inline T __shfl_xor_sync(unsigned long long, T v, int lane_mask, int width = 32) { return __shfl_xor(v, lane_mask, width); }
#endif
