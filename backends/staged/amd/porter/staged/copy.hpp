// porter/staged/copy.hpp — the staged lowering's copies, AMD flavour (HIP, gfx9/CDNA).
//
// Mirrors the NVIDIA flavour (backends/staged/nvidia/porter/staged/copy.hpp) member for member:
// same file name, same type (porter::backend::staged_copy), same operations and signatures (checked
// by tests/hip through backends/conformance.hpp). The HIP build puts this folder on the include path
// instead of the NVIDIA one; the staged protocol (porter/staged/protocol.hpp) is shared.
//
// Lowering, per thread (see porter/staged/walk.hpp): chunks of W bytes, W the widest access the
// addresses allow (16 for 16-byte aligned tensors, pitches and box rows), four global loads
// (global_load_dwordx4 for W = 16) in flight before the first LDS store (ds_write_b128), the
// compiler's s_waitcnt vmcnt between them. Out-of-bounds bytes are stored as zero. The bytes are
// in LDS when copy_box returns for this thread; the protocol's CTA barrier (s_waitcnt lgkmcnt(0),
// s_barrier) publishes them to the workgroup, or, in a role pipeline, the producer's release
// arrival on FULL (porter/staged/role_protocol.hpp). The shared-memory layout is the dense box layout of
// every other path (porter/box.hpp), so tiles are bit-identical across paths and vendors.
// Deferred copies: none on AMD (deferred_chunks is 0): the register prefetch of the NVIDIA flavour
// has not been measured on AMD hardware, so the AMD flavour keeps the synchronous copy.
//
// Why not gfx90a's direct global-to-LDS loads (buffer_load_dword ... lds): see docs/hip.md. In
// short: on gfx90a they move at most 4 bytes per lane (a 16-byte request does not compile with
// ROCm 5.2's LLVM 15: "Cannot select: intrinsic llvm.amdgcn.raw.buffer.load.lds"), and LLVM 15
// puts s_waitcnt vmcnt(0) in front of every later LDS read, so a prefetched stage would block the
// reads of the stage being consumed. The layout could have stayed identical; speed could not.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/cache_hint.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/amdgcn/memory.hpp"
#include "porter/staged/walk.hpp"
#include "porter/source.hpp"

namespace porter::backend {

namespace amd_detail {
#if PORTER_HIP
/// The AMD flavour's memory operations for amd_detail::walk_box / walk_bytes (porter/staged/walk.hpp):
/// global_load_* and ds_write_* through the instruction layer (porter/amdgcn/memory.hpp).
struct amd_access {
  template <unsigned W>
  static PORTER_DEVICE PORTER_FORCEINLINE detail::vec_t<W> load(const void* p) { return amdgcn::load_global<W>(p); }
  template <unsigned W>
  static PORTER_DEVICE PORTER_FORCEINLINE void store(void* p, const detail::vec_t<W>& v) { amdgcn::store_lds<W>(p, v); }
};
#endif
}  // namespace amd_detail

/// The staged copies (AMD flavour). Same operation set as the NVIDIA flavour.
struct staged_copy {
  /// 16-byte chunks per thread the staged protocol keeps in registers: none on AMD (file comment).
  template <class Box>
  static constexpr int deferred_chunks = 0;

#if PORTER_HIP
  /// Copy the box of `src` whose first element is at `at` into `dst` (dense box layout, 128-byte
  /// aligned LDS, Box::bytes long). Elements outside the tensor are stored as zero.
  /// Called by all `ctx.nthreads` threads; the bytes are in LDS when it returns.
  /// H (an L2 hint, porter/cache_hint.hpp): taken and ignored on AMD.
  template <class Box, cache_hint H = cache_hint::none>
  static PORTER_DEVICE void copy_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    amd_detail::dispatch_box<amd_detail::amd_access, Box>(dst, src, at, ctx);
  }

  /// Generic writes to a stage before its refill: nothing to do (the refill is plain LDS stores
  /// after a workgroup barrier).
  static PORTER_DEVICE PORTER_FORCEINLINE void after_generic_writes() {}

  /// Before a consumer reads a landed stage through an async proxy: nothing (AMD has none).
  static PORTER_DEVICE PORTER_FORCEINLINE void before_async_proxy_reads() {}

  /// Copy `bytes` bytes from global `src` (any alignment) to LDS `dst` (any alignment).
  /// Exactly [dst, dst + bytes) is written. Called by all threads of the CTA. H: as copy_box.
  template <cache_hint H = cache_hint::none>
  static PORTER_DEVICE void copy_bytes(void* dst, const void* src, std::size_t bytes,
                                       const detail::copy_context& ctx) {
    amd_detail::dispatch_bytes<amd_detail::amd_access>(dst, src, bytes, ctx);
  }
#endif  // PORTER_HIP
};

}  // namespace porter::backend
