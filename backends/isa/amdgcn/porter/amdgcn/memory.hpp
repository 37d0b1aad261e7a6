// porter/amdgcn/memory.hpp — AMD (HIP, clang) memory-access wrappers: porter's AMD instruction layer
// (backends/isa/amdgcn), below the staged lowering's AMD flavour and the AMD fragment loads
// (backends/fragments/amd), its only users.
//
// One access kind per function, named after the instruction it should become on gfx9 (CDNA):
//   load_global<W>   global_load_{ubyte,ushort,dword,dwordx2,dwordx4}   W = 1, 2, 4, 8, 16 bytes
//   store_lds<W>     ds_write_{b8,b16,b32,b64,b128}                      W = 1, 2, 4, 8, 16 bytes
//   load_lds<W>      ds_read_{u8,u16,b32,b64,b128}                        W = 1, 2, 4, 8, 16 bytes
// The pointer is cast to its address space (1 = global, 3 = LDS) so the compiler emits global_ /
// ds_ instructions, not flat_ ones: a flat access counts against both vmcnt and lgkmcnt and keeps
// the s_waitcnt that completes a copy from distinguishing memory loads from LDS stores.
// Alignment: the pointer must be W-byte aligned (the caller's chunk geometry guarantees it).
// Completion: the compiler's s_waitcnt vmcnt(N) orders each load before the store of its
// register; the pipeline's CTA barrier (__syncthreads: s_waitcnt lgkmcnt(0) + s_barrier) makes
// the LDS stores visible to the workgroup (in a role pipeline: the producer's release arrival,
// porter/amdgcn/lds_counter.hpp).
// Source: AMD "Instinct MI200" ISA reference, sections 9 (FLAT/global), 12 (LDS), 4.4 (s_waitcnt);
// clang "AMDGPU address spaces" (LLVM AMDGPUUsage).
#pragma once
#include <cstdint>

#include "porter/config.hpp"
#include "porter/detail/copy_context.hpp"

namespace porter::amdgcn {

#if PORTER_HIP
/// Lanes in a wavefront of the device pass (64 on CDNA/GCN; 32 on RDNA in wave32 mode).
/// Host pass: 64, the width of every target this backend is tuned for (gfx90a, gfx942).
#if defined(__AMDGCN_WAVEFRONT_SIZE)
inline constexpr int wavefront_size = __AMDGCN_WAVEFRONT_SIZE;
#else
inline constexpr int wavefront_size = 64;
#endif

/// The register type a W-byte access travels in: what clang lowers to one load or store.
template <unsigned W> struct raw;
template <> struct raw<1> { using type = std::uint8_t; };
template <> struct raw<2> { using type = std::uint16_t; };
template <> struct raw<4> { using type = std::uint32_t; };
template <> struct raw<8> { using type = std::uint32_t __attribute__((ext_vector_type(2))); };
template <> struct raw<16> { using type = std::uint32_t __attribute__((ext_vector_type(4))); };
template <unsigned W> using raw_t = typename raw<W>::type;

/// Load W bytes from global memory at `p` (W-byte aligned) as one instruction.
template <unsigned W>
PORTER_DEVICE PORTER_FORCEINLINE detail::vec_t<W> load_global(const void* p) {
  const raw_t<W> r = *(const __attribute__((address_space(1))) raw_t<W>*)(p);
  detail::vec_t<W> v;
  __builtin_memcpy(&v, &r, W);
  return v;
}

/// Store W bytes to LDS at `p` (W-byte aligned, a pointer into __shared__ memory) as one instruction.
template <unsigned W>
PORTER_DEVICE PORTER_FORCEINLINE void store_lds(void* p, const detail::vec_t<W>& v) {
  raw_t<W> r;
  __builtin_memcpy(&r, &v, W);
  *(__attribute__((address_space(3))) raw_t<W>*)(p) = r;
}

/// Load W bytes from LDS at `p` (W-byte aligned, a pointer into __shared__ memory) as one
/// instruction (ds_read_*); the compiler's s_waitcnt lgkmcnt orders the use of the register.
template <unsigned W>
PORTER_DEVICE PORTER_FORCEINLINE raw_t<W> load_lds(const void* p) {
  return *(const __attribute__((address_space(3))) raw_t<W>*)(p);
}
#endif  // PORTER_HIP

}  // namespace porter::amdgcn
