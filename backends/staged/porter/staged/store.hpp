// porter/staged/store.hpp — shared -> global stores and reductions with thread stores and atomics:
// the staged lowering's (both flavours: plain CUDA C++ / HIP, no vendor instruction), and the
// cp_async lowering's (sm_80 has no asynchronous shared -> global copy).
//
// store_box: each thread moves chunks of W bytes of the box, W the widest access the destination's
// address, pitches, the box's first column and its row allow (as the copies: porter/detail/
// box_geometry.hpp), from the box's place in shared memory (swizzle applied) to global memory. A
// chunk that straddles the tensor's upper edge writes only its bytes inside the tensor; chunks outside
// write nothing: no byte outside the tensor is ever written, at any edge, offset or pitch. Boxes wholly
// inside the tensor take a path without bounds. reduce_box: one atomic per element inside the tensor
// (atomicAdd / atomicMin / atomicMax; CUDA C++ Programming Guide, "Atomic Functions"; HIP has the same).
//
// Completion: every operation starts with a CTA barrier, so every thread's writes to the shared
// source before the call are visible to the threads that store them; the stores are plain, performed
// in each thread's program order. So commit is empty, and wait_read / wait_write are one CTA barrier
// each: after wait_read any thread may overwrite the source; after wait_write every store of the CTA
// is performed and visible to the CTA's threads (to other CTAs through the usual fence and flag, and
// to the host when the kernel ends).
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/destination.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/detail/copy_context.hpp"

namespace porter::backend {

/// Thread stores and atomics from shared memory to a tiled destination or a byte range.
struct staged_store {
#if PORTER_GPU_COMPILER
  /// Store the box that lies at `tile` in shared memory (Box's layout, its swizzle included;
  /// aligned to swizzle_atom_bytes, 128 B at least) to `dst` at `at` (elements, outermost first; may
  /// be negative or past the end: only elements inside the tensor are written). Collective.
  template <class Box>
  static PORTER_DEVICE void store_box(const tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                      const coord<Box::rank>& at, const detail::copy_context& ctx) {
    __syncthreads();  // every thread's writes to the tile are visible
    store_box_synced<Box>(dst, tile, at, ctx);
  }

  /// Store `bytes` bytes from shared `src` to global `dst` (any alignment on either side; the widest
  /// access both allow). Exactly [dst, dst + bytes) is written. Collective.
  static PORTER_DEVICE void store_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx) {
    __syncthreads();
    store_bytes_synced(dst, src, bytes, ctx);
  }

  /// dst(at + i) = Op(dst(at + i), tile(i)) for every element i of the box inside the tensor, one
  /// atomic per element. Element kind and Op: porter::reducible (static_assert in porter/store.hpp).
  /// Collective.
  template <reduce_op Op, class Box>
  static PORTER_DEVICE void reduce_box(const tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                       const coord<Box::rank>& at, const detail::copy_context& ctx) {
    __syncthreads();
    reduce_box_synced<Op, Box>(dst, tile, at, ctx);
  }

  /// Close a group of stores: nothing to do (plain stores are performed in program order).
  static PORTER_DEVICE void store_commit(const detail::copy_context&) {}
  /// The shared sources of every group but the newest N may be overwritten: a CTA barrier.
  template <int N>
  static PORTER_DEVICE void store_wait_read(const detail::copy_context&) { __syncthreads(); }
  /// Before releasing a stage that a store of every group but the newest N reads: nothing (each
  /// thread read its part synchronously, and the pipeline runs a CTA barrier before every refill).
  template <int N>
  static PORTER_DEVICE void store_wait_read_before_release(const detail::copy_context&) {}
  /// The global writes of every group but the newest N are performed and visible to the CTA: a CTA barrier.
  template <int N>
  static PORTER_DEVICE void store_wait_write(const detail::copy_context&) { __syncthreads(); }

  // ---- the bodies, after the barrier (the tma lowering's thread-store fallbacks call these) ---------

  template <class Box>
  static PORTER_DEVICE void store_box_synced(const tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                             const coord<Box::rank>& at, const detail::copy_context& ctx) {
    switch (detail::box_chunk_bytes<Box>(dst, at)) {
      case 16: walk_store<Box, 16>(dst, tile, at, ctx); break;
      case 8: walk_store<Box, 8>(dst, tile, at, ctx); break;
      case 4: walk_store<Box, 4>(dst, tile, at, ctx); break;
      case 2: walk_store<Box, 2>(dst, tile, at, ctx); break;
      default: walk_store<Box, 1>(dst, tile, at, ctx); break;
    }
  }

  static PORTER_DEVICE void store_bytes_synced(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx) {
    switch (detail::widest_access(reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst))) {
      case 16: walk_bytes<16>(dst, src, bytes, ctx); break;
      case 8: walk_bytes<8>(dst, src, bytes, ctx); break;
      case 4: walk_bytes<4>(dst, src, bytes, ctx); break;
      case 2: walk_bytes<2>(dst, src, bytes, ctx); break;
      default: walk_bytes<1>(dst, src, bytes, ctx); break;
    }
  }

  template <reduce_op Op, class Box>
  static PORTER_DEVICE void reduce_box_synced(const tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                              const coord<Box::rank>& at, const detail::copy_context& ctx) {
    using T = typename Box::element_type;
    constexpr unsigned W = sizeof(T);
    constexpr std::size_t total = detail::box_chunks<Box, W>;  // one chunk per element
    const unsigned char* s = reinterpret_cast<const unsigned char*>(tile);
    for (std::size_t k = ctx.thread; k < total; k += ctx.nthreads) {
      const detail::chunk_source cs = detail::locate_chunk<Box, W>(dst, at, k);
      if (cs.valid == 0) continue;
      reduce_one<Op>(static_cast<T*>(const_cast<void*>(cs.src)), *reinterpret_cast<const T*>(s + cs.dst_offset));
    }
  }

  /// One atomic reduction of `v` into global `p`.
  template <reduce_op Op, class T>
  static PORTER_DEVICE PORTER_FORCEINLINE void reduce_one(T* p, T v) {
    if constexpr (Op == reduce_op::add) atomicAdd(p, v);
    else if constexpr (Op == reduce_op::min) atomicMin(p, v);
    else atomicMax(p, v);
  }

 private:
  template <class Box, unsigned W>
  static PORTER_DEVICE void walk_store(const tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                       const coord<Box::rank>& at, const detail::copy_context& ctx) {
    using V = detail::vec_t<W>;
    if constexpr (Box::inner_bytes % W == 0) {  // other widths are never chosen: W divides the box row
      constexpr std::size_t total = detail::box_chunks<Box, W>;
      const unsigned char* s = reinterpret_cast<const unsigned char*>(tile);
      if (detail::box_inside<Box>(dst, at)) {
        // Interior: every chunk whole and inside (detail::interior_chunk: one address per chunk).
        for (unsigned k = ctx.thread; k < unsigned(total); k += ctx.nthreads)
          *reinterpret_cast<V*>(const_cast<unsigned char*>(detail::interior_chunk<Box, W>(dst, at, k))) =
              *reinterpret_cast<const V*>(s + detail::landing_offset<Box>(k * W));
        return;
      }
      for (std::size_t k = ctx.thread; k < total; k += ctx.nthreads) {
        const detail::chunk_source cs = detail::locate_chunk<Box, W>(dst, at, k);
        if (cs.valid == 0) continue;
        unsigned char* g = static_cast<unsigned char*>(const_cast<void*>(cs.src));
        const unsigned char* from = s + cs.dst_offset;
        if (cs.valid == W) {
          *reinterpret_cast<V*>(g) = *reinterpret_cast<const V*>(from);
        } else {
          for (unsigned b = 0; b < cs.valid; ++b) g[b] = from[b];  // the part of the chunk inside the tensor
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
    for (std::size_t k = ctx.thread; k < full; k += ctx.nthreads) d[k] = s[k];
    const std::size_t tail = bytes - full * W;
    for (std::size_t i = ctx.thread; i < tail; i += ctx.nthreads)
      static_cast<unsigned char*>(dst)[full * W + i] = static_cast<const unsigned char*>(src)[full * W + i];
  }
#endif  // PORTER_GPU_COMPILER
};

}  // namespace porter::backend
