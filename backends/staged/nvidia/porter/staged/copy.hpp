// porter/staged/copy.hpp — the staged lowering's copies, NVIDIA flavour: vector loads to registers,
// shared-memory stores.
//
// Runs on every GPU porter targets. Each thread moves chunks of W bytes (W = the widest access the
// addresses allow, up to 16). With W = 16, four chunks per batch: four loads are issued before the
// first store, so each thread keeps up to 64 bytes in flight. Narrower chunks (sources aligned below
// 16 bytes) move one at a time: their walkers are compiled into every kernel that uses the path,
// and batching them raised the kernels' register counts for a case the fast path never takes
// (ptxas -v, sm_90: the stencil's staged kernel 114 -> 57 registers, stream 76 -> 32). Out-of-bounds bytes are stored as zero. The bytes
// are in shared memory when copy_box / copy_bytes return; the caller completes them (the staged
// protocol's CTA barrier, or the tma / cp_async protocols for their thread-load fallbacks).
//
// Deferred copies (the staged protocol's register prefetch): load_deferred<Box, K> issues the loads
// of this thread's first K 16-byte chunks of a box into registers and returns at once; store_deferred
// stores them later, after the consumer has worked on another stage. Chunk k of a box lands at
// byte landing_offset(16 k) (16 k when unswizzled), so only the values travel between the two calls. Chunks past the first K of each thread
// move synchronously inside load_deferred.
// Source: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory".
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/cache_hint.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/ptx/mbarrier.hpp"
#include "porter/source.hpp"

namespace porter::backend {

namespace detail_staged {
/// The chunks one thread of a 256-thread CTA has of `total` (ceil(total / 256)), at most `cap`:
/// the register budget of the staged copy's batches and deferred chunks, both sized for 256
/// threads (a larger count kept that many chunk registers live across the kernels' loops).
PORTER_HOST_DEVICE constexpr int chunks_per_thread_of_256(std::size_t total, int cap) {
  const std::size_t n = (total + 255) / 256;
  return n < std::size_t(cap) ? int(n) : cap;
}
}  // namespace detail_staged

/// The staged copies (NVIDIA flavour). Same operation set as backends/staged/amd/porter/staged/copy.hpp.
struct staged_copy {
  /// 16-byte chunks per thread the staged protocol may keep in registers for buffer `Box`. Sized
  /// for 256-thread CTAs: ceil(chunks / 256), at most 4 (64 B per thread); a smaller CTA moves the
  /// chunks past K synchronously. 0 (no deferral) when the box cannot use 16-byte chunks, and for
  /// boxes below 8 KiB: there the held registers cost more than they hide (ptxas -v on sm_90: the
  /// 128 x 128 sgemm with two 4 KiB boxes per stage went from 40 to 136 bytes of spills).
  template <class Box>
  static constexpr int deferred_chunks =
      (Box::inner_bytes % 16 != 0 || Box::bytes < 8192) ? 0 : detail_staged::chunks_per_thread_of_256(detail::box_chunks<Box, 16>, 4);

#if PORTER_GPU_COMPILER
  /// Copy the box of `src` whose first element is at `at` into `dst` (dense box layout, 128-byte
  /// aligned shared memory, Box::bytes long). Elements outside the tensor are stored as zero.
  /// Called by all `ctx.nthreads` threads; the bytes are in shared memory when it returns.
  /// `Batch`: chunks each thread loads before its first store (4: the staged path's own copies;
  /// 1: the thread-load fallbacks of tma and cp_async, which are rare and must not raise the
  /// kernel's register count: ptxas -v on sm_90, pb_stream<tma>: 60 registers with Batch 4).
  /// H (an L2 hint, porter/cache_hint.hpp): taken and ignored; the loads are the compiler's.
  template <class Box, cache_hint H = cache_hint::none, int Batch = 4>
  static PORTER_DEVICE void copy_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    // One walker per chunk width; all inline: an out-of-line call in a kernel costs more registers
    // (call ABI) than the walkers themselves (measured with ptxas -v on sm_90).
    const unsigned w = detail::box_chunk_bytes<Box>(src, at);
    if (w == 16) walk_box<Box, 16, Batch>(dst, src, at, ctx, 0);
    else narrow_box<Box, 1>(w, dst, src, at, ctx);
  }

  /// Copy `bytes` bytes from global `src` (any alignment) to shared `dst` (any alignment).
  /// Exactly [dst, dst + bytes) is written. Called by all threads of the CTA. `Batch` as above.
  template <int Batch = 4>
  static PORTER_DEVICE void copy_bytes_batched(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx) {
    const unsigned w = detail::widest_access(reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst));
    if (w == 16) walk_bytes<16, Batch>(dst, src, bytes, ctx);
    else narrow_bytes<1>(w, dst, src, bytes, ctx);
  }
  /// Generic writes to a stage before its refill: nothing to do (the refill is plain stores after a
  /// CTA barrier).
  static PORTER_DEVICE PORTER_FORCEINLINE void after_generic_writes() {}

  /// Before a consumer reads a landed stage through the async proxy (wgmma's shared-memory
  /// operands): fence.proxy.async.shared::cta in every reading thread, after its wait: the stage
  /// was written with st.shared, a generic-proxy write (PTX ISA 9.7.13.4). sm_90 only (below it
  /// the fence compiles to nothing: no async proxy).
  static PORTER_DEVICE PORTER_FORCEINLINE void before_async_proxy_reads() { ptx::fence_proxy_async_shared_cta(); }

  /// copy_bytes_batched<4>: the staged path's own byte-range copy (the lowering operation).
  /// H (an L2 hint): taken and ignored, as copy_box's.
  template <cache_hint H = cache_hint::none>
  static PORTER_DEVICE void copy_bytes(void* dst, const void* src, std::size_t bytes,
                                       const detail::copy_context& ctx) {
    copy_bytes_batched<4>(dst, src, bytes, ctx);
  }

  /// Start copying the box at `at` into `dst`: when the box can move in 16-byte chunks, load this
  /// thread's first K chunks (k = thread + u * nthreads, u < K) into `held` and return true (the
  /// remaining chunks are stored before returning); store_deferred<Box, K> completes the copy.
  /// Otherwise copy the whole box synchronously and return false. Collective.
  template <class Box, int K>
  static PORTER_DEVICE PORTER_FORCEINLINE bool load_deferred(detail::vec_t<16> (&held)[K], typename Box::element_type* dst,
                                                             const tiled_source<Box>& src, const coord<Box::rank>& at,
                                                             const detail::copy_context& ctx) {
    const unsigned w = detail::box_chunk_bytes<Box>(src, at);
    if (w != 16) {
      narrow_box<Box, 1>(w, dst, src, at, ctx);
      return false;
    }
    constexpr std::size_t total = detail::box_chunks<Box, 16>;
#pragma unroll
    for (int u = 0; u < K; ++u) {
      const std::size_t k = ctx.thread + std::size_t(u) * ctx.nthreads;
      if (k < total) {
        const detail::chunk_source cs = detail::locate_chunk<Box, 16>(src, at, k);
        held[u] = load_chunk<16>(cs.src, cs.valid);
      }
    }
    walk_box<Box, 16, 1>(dst, src, at, ctx, std::size_t(K) * ctx.nthreads);
    return true;
  }

  /// Store the chunks load_deferred<Box, K> held for this thread into `dst` (the same box buffer).
  template <class Box, int K>
  static PORTER_DEVICE PORTER_FORCEINLINE void store_deferred(const detail::vec_t<16> (&held)[K], void* dst,
                                                              const detail::copy_context& ctx) {
    constexpr std::size_t total = detail::box_chunks<Box, 16>;
    unsigned char* d = static_cast<unsigned char*>(dst);
#pragma unroll
    for (int u = 0; u < K; ++u) {
      const std::size_t k = ctx.thread + std::size_t(u) * ctx.nthreads;
      if (k < total) *reinterpret_cast<detail::vec_t<16>*>(d + detail::landing_offset<Box>(unsigned(k) * 16u)) = held[u];
    }
  }

 private:
  template <class Box, int Batch>
  static PORTER_DEVICE void narrow_box(unsigned w, typename Box::element_type* dst, const tiled_source<Box>& src,
                                       const coord<Box::rank>& at, const detail::copy_context& ctx) {
    switch (w) {
      case 8: walk_box<Box, 8, Batch>(dst, src, at, ctx, 0); break;
      case 4: walk_box<Box, 4, Batch>(dst, src, at, ctx, 0); break;
      case 2: walk_box<Box, 2, Batch>(dst, src, at, ctx, 0); break;
      default: walk_box<Box, 1, Batch>(dst, src, at, ctx, 0); break;
    }
  }

  template <int Batch>
  static PORTER_DEVICE void narrow_bytes(unsigned w, void* dst, const void* src, std::size_t bytes,
                                         const detail::copy_context& ctx) {
    switch (w) {
      case 8: walk_bytes<8, Batch>(dst, src, bytes, ctx); break;
      case 4: walk_bytes<4, Batch>(dst, src, bytes, ctx); break;
      case 2: walk_bytes<2, Batch>(dst, src, bytes, ctx); break;
      default: walk_bytes<1, Batch>(dst, src, bytes, ctx); break;
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

  // Chunks first, first + nthreads, ... of this thread's share, from chunk index thread + `skip`;
  // Batch chunks are loaded before the first of them is stored.
  template <class Box, unsigned W, int Batch>
  static PORTER_DEVICE void walk_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx, std::size_t skip) {
    using V = detail::vec_t<W>;
    if constexpr (Box::inner_bytes % W == 0) {  // other widths are never chosen: W divides the box row
      constexpr std::size_t total = detail::box_chunks<Box, W>;
      unsigned char* d = reinterpret_cast<unsigned char*>(dst);
      if constexpr (W == 16) {
        // Interior fast path (as the cp_async copy's): a box wholly inside the tensor needs no
        // bounds and no zero fill per chunk, one compare per dimension and one address per chunk.
        // Its batch is at most the chunks a thread of a 256-thread CTA has (as deferred_chunks):
        // with Batch 4 for a box of one chunk per thread, ptxas kept four chunk addresses live
        // across the kernel's loop (sm_90, the cutlass port on staged: 128 -> 187 registers, one
        // CTA per SM instead of two, 1.48x slower on the H200).
        constexpr int IB = detail_staged::chunks_per_thread_of_256(total, Batch);
        if (detail::box_inside<Box>(src, at)) {
          for (unsigned k0 = ctx.thread + unsigned(skip); k0 < unsigned(total); k0 += unsigned(IB) * ctx.nthreads) {
            V r[IB];
#pragma unroll
            for (int u = 0; u < IB; ++u) {
              const unsigned k = k0 + unsigned(u) * ctx.nthreads;
              if (k < unsigned(total)) r[u] = *reinterpret_cast<const V*>(detail::interior_chunk<Box, W>(src, at, k));
            }
#pragma unroll
            for (int u = 0; u < IB; ++u) {
              const unsigned k = k0 + unsigned(u) * ctx.nthreads;
              if (k < unsigned(total)) *reinterpret_cast<V*>(d + detail::landing_offset<Box>(k * W)) = r[u];
            }
          }
          return;
        }
      }
      for (std::size_t k0 = ctx.thread + skip; k0 < total; k0 += std::size_t(Batch) * ctx.nthreads) {
        V r[Batch];
        std::size_t off[Batch];
#pragma unroll
        for (int u = 0; u < Batch; ++u) {
          const std::size_t k = k0 + std::size_t(u) * ctx.nthreads;
          if (k < total) {
            const detail::chunk_source cs = detail::locate_chunk<Box, W>(src, at, k);
            off[u] = cs.dst_offset;
            r[u] = load_chunk<W>(cs.src, cs.valid);
          }
        }
#pragma unroll
        for (int u = 0; u < Batch; ++u) {
          const std::size_t k = k0 + std::size_t(u) * ctx.nthreads;
          if (k < total) *reinterpret_cast<V*>(d + off[u]) = r[u];
        }
      }
    }
  }

  template <unsigned W, int Batch>
  static PORTER_DEVICE void walk_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx) {
    using V = detail::vec_t<W>;
    const std::size_t full = bytes / W;
    const V* s = static_cast<const V*>(src);
    V* d = static_cast<V*>(dst);
    for (std::size_t k0 = ctx.thread; k0 < full; k0 += std::size_t(Batch) * ctx.nthreads) {
      V r[Batch];
#pragma unroll
      for (int u = 0; u < Batch; ++u) {
        const std::size_t k = k0 + std::size_t(u) * ctx.nthreads;
        if (k < full) r[u] = s[k];
      }
#pragma unroll
      for (int u = 0; u < Batch; ++u) {
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
