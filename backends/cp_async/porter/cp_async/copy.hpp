// porter/cp_async/copy.hpp — the cp_async lowering's copies (Ampere, sm_80+).
//
// Every thread issues cp.async chunks of W bytes, W = 16 (cp.async.cg), 8 or 4 (cp.async.ca),
// the widest the actual addresses allow. Out-of-bounds bytes are zero-filled by the src-size
// operand: every chunk is issued, with src-size 0..W, so there is no divergent branch around the
// copy. Addresses aligned below 4 bytes cannot use cp.async; those copies move with the staged
// lowering's plain loads (explain() says when a source guarantees less than 4 bytes).
// Every thread-load fallback calls detail::strict_fallback first: with PORTER_STRICT_PATHS=1 it
// traps instead (porter/mechanisms.hpp tells them on the host).
// Completion is the protocol's (porter/cp_async/protocol.hpp): one cp.async group per stage, then
// cp.async.wait_group and a CTA barrier. The plain-load fallback below 4 bytes completes with the
// same barrier (its stores precede the barrier in each thread's program order).
// Source: PTX ISA 8.x 9.7.9.25.3 (cp.async), CUDA C++ Programming Guide "Asynchronous Data Copies".
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/trap.hpp"
#include "porter/ptx/cp_async.hpp"
#include "porter/source.hpp"
#include "porter/staged/copy.hpp"

namespace porter::backend {

/// The cp_async copies. Same operation set as porter::backend::staged_copy.
struct cp_async_copy {
#if defined(__CUDACC__)
  /// Copy the box of `src` at `at` into `dst` (dense box layout, 128-byte aligned shared memory).
  /// Elements outside the tensor are zero-filled. Called by all threads of the CTA; the bytes are
  /// in shared memory once the protocol's wait (cp.async.wait_group, then a CTA barrier) returns.
  template <class Box>
  static PORTER_DEVICE void copy_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    // One walker per chunk width, plus the plain-load fallback below 4 bytes; all inline (an
    // out-of-line call costs more registers through the call ABI than the walkers do).
    const unsigned w = detail::box_chunk_bytes<Box>(src, at);
    if (__builtin_expect(w == 16, 1)) {
      // A thread past the box's last 16-byte chunk has nothing to copy, and leaves before any
      // address arithmetic: a 1 KiB box (64 chunks) in a CTA of 256 threads keeps 6 of its 8
      // warps out of the walker (they paid the bounds test and the box origin every step before).
      if (ctx.thread < unsigned(detail::box_chunks<Box, 16>)) walk_box<Box, 16>(dst, src, at, ctx);
    } else {
      narrow_box<Box>(w, dst, src, at, ctx);
    }
  }

  /// Generic writes to a stage before its refill: nothing to do (cp.async writes through the generic
  /// proxy; the CTA barrier before every refill orders them).
  static PORTER_DEVICE PORTER_FORCEINLINE void after_generic_writes() {}

  /// Copy `bytes` bytes from global `src` to shared `dst`: cp.async chunks of the widest width
  /// both addresses allow (>= 4), the remaining tail of fewer than W bytes with plain loads.
  /// Exactly [dst, dst + bytes) is written. Called by all threads of the CTA.
  static PORTER_DEVICE void copy_bytes(void* dst, const void* src, std::size_t bytes,
                                       const detail::copy_context& ctx) {
    const unsigned w = detail::widest_access(reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst));
    std::size_t done = 0;
    switch (w) {
      case 16: done = walk_bytes<16>(dst, src, bytes, ctx); break;
      case 8: done = walk_bytes<8>(dst, src, bytes, ctx); break;
      case 4: done = walk_bytes<4>(dst, src, bytes, ctx); break;
      default: break;
    }
    if (done < bytes) {
      detail::strict_fallback("strict paths: cp_async byte range with bytes below a whole 4-byte aligned chunk would move them with thread loads", ctx.thread);
      staged_copy::copy_bytes_batched<1>(static_cast<unsigned char*>(dst) + done, static_cast<const unsigned char*>(src) + done,
                         bytes - done, ctx);
    }
  }

 private:
  template <unsigned W>
  static PORTER_DEVICE PORTER_FORCEINLINE void issue(void* dst, const void* src, unsigned valid) {
    if constexpr (W == 16) ptx::cp_async_cg_16(dst, src, valid);
    else if constexpr (W == 8) ptx::cp_async_ca_8(dst, src, valid);
    else ptx::cp_async_ca_4(dst, src, valid);
  }

  template <class Box>
  static PORTER_DEVICE void narrow_box(unsigned w, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                       const coord<Box::rank>& at, const detail::copy_context& ctx) {
    switch (w) {
      case 8: walk_box<Box, 8>(dst, src, at, ctx); break;
      case 4: walk_box<Box, 4>(dst, src, at, ctx); break;
      default:
        detail::strict_fallback("strict paths: cp_async box whose rows are less than 4-byte aligned would move with thread loads", ctx.thread);
        staged_copy::copy_box<Box, 1>(dst, src, at, ctx);
        break;
    }
  }

  template <class Box, unsigned W>
  static PORTER_DEVICE void walk_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    if constexpr (Box::inner_bytes % W == 0) {  // other widths are never chosen: W divides the box row
      constexpr std::size_t total = detail::box_chunks<Box, W>;
      unsigned char* d = reinterpret_cast<unsigned char*>(dst);
      if constexpr (W == 16) {
        // Interior fast path: a box wholly inside the tensor needs no bounds and no zero fill per
        // chunk (the common case away from the edges): one compare per dimension
        // (tiled_source::interior_end) and one address per chunk (detail::interior_chunk).
        if (detail::box_inside<Box>(src, at)) {
          for (unsigned k = ctx.thread; k < unsigned(total); k += ctx.nthreads)
            issue<W>(d + detail::landing_offset<Box>(k * W), detail::interior_chunk<Box, W>(src, at, k), W);
          return;
        }
      }
      for (std::size_t k = ctx.thread; k < total; k += ctx.nthreads) {
        const detail::chunk_source cs = detail::locate_chunk<Box, W>(src, at, k);
        issue<W>(d + cs.dst_offset, cs.src, cs.valid);
      }
    }
  }

  template <unsigned W>
  static PORTER_DEVICE std::size_t walk_bytes(void* dst, const void* src, std::size_t bytes,
                                              const detail::copy_context& ctx) {
    const std::size_t full = bytes / W;
    unsigned char* d = static_cast<unsigned char*>(dst);
    const unsigned char* s = static_cast<const unsigned char*>(src);
    for (std::size_t k = ctx.thread; k < full; k += ctx.nthreads) issue<W>(d + k * W, s + k * W, W);
    return full * W;
  }
#endif  // __CUDACC__
};

}  // namespace porter::backend
