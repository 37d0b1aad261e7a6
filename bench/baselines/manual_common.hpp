// bench/baselines/manual_common.hpp — host helpers shared by the hand-written baselines
// (manual_cp_async.cu, manual_tma.cu, manual_cuda_pipeline.cu): their registry descriptions and
// the two launch chores a hand-written kernel does itself (porter::launch does them for porter).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "../src/variants.hpp"

namespace pb {

/// Throw std::runtime_error("<what>: launch failed: <reason>") if the last launch failed.
inline void check_launch(const char* what) {
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": launch failed: " + cudaGetErrorString(e));
}

/// Raise kernel `f`'s dynamic shared memory limit to `bytes` when it needs more than the default
/// 48 KiB (cudaFuncAttributeMaxDynamicSharedMemorySize); throws when the device refuses.
inline void allow_smem(const void* f, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
  if (cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)); e != cudaSuccess)
    throw std::runtime_error("cudaFuncSetAttribute(MaxDynamicSharedMemorySize, " + std::to_string(bytes) +
                             " B): " + cudaGetErrorString(e));
}

/// Registry description of a hand-written pipeline.
/// impl: "manual" or "manual-cuda-pipeline"; path: the instruction family it uses ("tma",
/// "cp_async"); min_cc: the compute capability that family needs (90, 80); stage_bytes: bytes one
/// stage occupies; smem: dynamic shared memory per CTA (bytes; 0 for static rings); fixed_smem: the
/// part of smem that is not stages (barriers, alignment slack); f: the __global__ function.
inline kernel_desc manual_desc(const char* impl, const char* path, int min_cc, int stages, int threads,
                               std::size_t stage_bytes, std::size_t smem, std::size_t fixed_smem, const void* f,
                               const char* name) {
  kernel_desc d;
  d.impl = impl;
  d.path = path;
  d.stages = stages;
  d.threads = threads;
  d.stage_bytes = stage_bytes;
  d.smem = smem;
  d.fixed_smem = fixed_smem;
  d.min_cc = min_cc;
  d.async_copies = true;
  d.func = f;
  d.kernel = name;
  return d;
}

}  // namespace pb
