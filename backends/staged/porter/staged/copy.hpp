// porter/staged/copy.hpp — the staged lowering: vector loads to registers, shared-memory stores.
//
// Runs on every GPU porter targets. Each thread moves chunks of W bytes (W = the widest access the
// addresses allow, up to 16), four chunks per batch: four loads are issued before the first store,
// so each thread keeps up to 64 bytes in flight. Out-of-bounds bytes are stored as zero. Completion
// is the caller's: a CTA barrier (staged pipelines) or an mbarrier arrive (automatic on sm_80+).
// Source: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory".
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/source.hpp"

namespace porter::backend {

struct staged {
  using path = porter::path::staged;

#if PORTER_GPU_COMPILER
  /// Copy the box of `src` whose first element is at `at` into `dst` (dense box layout, 128-byte
  /// aligned shared memory, Box::bytes long). Elements outside the tensor are stored as zero.
  /// Called by all `ctx.nthreads` threads; the bytes are in shared memory when it returns.
  template <class Box>
  static PORTER_DEVICE void copy_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    // One walker per chunk width; all inline: an out-of-line call in a kernel costs more registers
    // (call ABI) than the walkers themselves (measured with ptxas -v on sm_90).
    const unsigned w = detail::box_chunk_bytes<Box>(src, at);
    if (w == 16) walk_box<Box, 16>(dst, src, at, ctx);
    else narrow_box<Box>(w, dst, src, at, ctx);
  }

  /// Copy `bytes` bytes from global `src` (any alignment) to shared `dst` (any alignment).
  /// Exactly [dst, dst + bytes) is written. Called by all threads of the CTA.
  static PORTER_DEVICE void copy_bytes(void* dst, const void* src, std::size_t bytes,
                                       const detail::copy_context& ctx) {
    const unsigned w = detail::widest_access(reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst));
    if (w == 16) walk_bytes<16>(dst, src, bytes, ctx);
    else narrow_bytes(w, dst, src, bytes, ctx);
  }

 private:
  static constexpr int batch = 4;  // chunks per thread loaded before the first store

  template <class Box>
  static PORTER_DEVICE void narrow_box(unsigned w, typename Box::element_type* dst, const tiled_source<Box>& src,
                                                       const coord<Box::rank>& at, const detail::copy_context& ctx) {
    switch (w) {
      case 8: walk_box<Box, 8>(dst, src, at, ctx); break;
      case 4: walk_box<Box, 4>(dst, src, at, ctx); break;
      case 2: walk_box<Box, 2>(dst, src, at, ctx); break;
      default: walk_box<Box, 1>(dst, src, at, ctx); break;
    }
  }

  static PORTER_DEVICE void narrow_bytes(unsigned w, void* dst, const void* src, std::size_t bytes,
                                                         const detail::copy_context& ctx) {
    switch (w) {
      case 8: walk_bytes<8>(dst, src, bytes, ctx); break;
      case 4: walk_bytes<4>(dst, src, bytes, ctx); break;
      case 2: walk_bytes<2>(dst, src, bytes, ctx); break;
      default: walk_bytes<1>(dst, src, bytes, ctx); break;
    }
  }

  // A chunk that straddles the tensor's upper edge: `valid` (< W) bytes, the rest zero. Byte
  // positions are compile-time after unrolling, so the chunk stays in registers (no stack frame).
  template <unsigned W>
  static PORTER_DEVICE PORTER_FORCEINLINE detail::vec_t<W> load_partial(const void* src, unsigned valid) {
    const unsigned char* s = static_cast<const unsigned char*>(src);
    std::uint32_t word[(W + 3) / 4] = {};
#pragma unroll
    for (unsigned i = 0; i < W; ++i)
      if (i < valid) word[i / 4] |= std::uint32_t(s[i]) << (8 * (i % 4));
    detail::vec_t<W> v;
    if constexpr (W >= 4) {
      v = *reinterpret_cast<const detail::vec_t<W>*>(word);
    } else {
      v = static_cast<detail::vec_t<W>>(word[0]);
    }
    return v;
  }

  template <unsigned W>
  static PORTER_DEVICE PORTER_FORCEINLINE detail::vec_t<W> load_chunk(const void* src, unsigned valid) {
    if (valid == W) return *static_cast<const detail::vec_t<W>*>(src);
    return load_partial<W>(src, valid);
  }

  template <class Box, unsigned W>
  static PORTER_DEVICE void walk_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    using V = detail::vec_t<W>;
    if constexpr (Box::inner_bytes % W == 0) {  // other widths are never chosen: W divides the box row
      constexpr std::size_t total = detail::box_chunks<Box, W>;
      unsigned char* d = reinterpret_cast<unsigned char*>(dst);
      for (std::size_t k0 = ctx.thread; k0 < total; k0 += std::size_t(batch) * ctx.nthreads) {
        V r[batch];
        std::size_t off[batch];
  #pragma unroll
        for (int u = 0; u < batch; ++u) {
          const std::size_t k = k0 + std::size_t(u) * ctx.nthreads;
          if (k < total) {
            const detail::chunk_source cs = detail::locate_chunk<Box, W>(src, at, k);
            off[u] = cs.dst_offset;
            r[u] = load_chunk<W>(cs.src, cs.valid);
          }
        }
  #pragma unroll
        for (int u = 0; u < batch; ++u) {
          const std::size_t k = k0 + std::size_t(u) * ctx.nthreads;
          if (k < total) *reinterpret_cast<V*>(d + off[u]) = r[u];
        }
      }
    }
  }

  template <unsigned W>
  static PORTER_DEVICE void walk_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx) {
    using V = detail::vec_t<W>;
    const std::size_t full = bytes / W;
    const V* s = static_cast<const V*>(src);
    V* d = static_cast<V*>(dst);
    for (std::size_t k0 = ctx.thread; k0 < full; k0 += std::size_t(batch) * ctx.nthreads) {
      V r[batch];
#pragma unroll
      for (int u = 0; u < batch; ++u) {
        const std::size_t k = k0 + std::size_t(u) * ctx.nthreads;
        if (k < full) r[u] = s[k];
      }
#pragma unroll
      for (int u = 0; u < batch; ++u) {
        const std::size_t k = k0 + std::size_t(u) * ctx.nthreads;
        if (k < full) d[k] = r[u];
      }
    }
    // Tail: fewer than W bytes, one byte per thread.
    const std::size_t tail = bytes - full * W;
    for (std::size_t i = ctx.thread; i < tail; i += ctx.nthreads)
      static_cast<unsigned char*>(dst)[full * W + i] = static_cast<const unsigned char*>(src)[full * W + i];
  }
#endif  // PORTER_GPU_COMPILER
};

}  // namespace porter::backend
