// porter/ptx/common.hpp — helpers shared by the NVIDIA instruction wrappers.
//
// backends/isa/ptx is porter's NVIDIA instruction layer: one function per PTX instruction variant,
// named after it, with its PTX syntax and ISA/SM requirement in the comment. The lowerings
// (backends/tma, cp_async, staged) are its only users; the neutral API never includes it.
#pragma once
#include <cstdint>

#include "porter/config.hpp"
#include "porter/detail/trap.hpp"

namespace porter::ptx {

#if defined(__CUDACC__)
/// 32-bit shared-window address of a generic pointer into shared memory (cvta.to.shared;
/// PTX ISA 9.7.9.22). The one helper every shared-memory operand goes through.
PORTER_DEVICE PORTER_FORCEINLINE std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// Device stub for an instruction the compile target lacks: print and trap.
PORTER_DEVICE inline void trap_with(const char* msg) { detail::trap(msg); }

#endif

}  // namespace porter::ptx
