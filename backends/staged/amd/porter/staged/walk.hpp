// porter/staged/walk.hpp (AMD flavour) — the staged lowering's per-width copy loops on AMD (one chunk
// width W per function).
//
// Geometry: exactly the staged and cp_async paths' (porter/detail/box_geometry.hpp): a box is cut
// into chunks of W bytes, chunk k lands at byte k * W of the dense box, thread t takes chunks
// t, t + nthreads, ... So the shared-memory tile is byte-identical to every other path's.
//
// AMD tuning (gfx9 / CDNA, 64-lane wavefronts):
//   * Consecutive lanes take consecutive chunks: with W = 16 one wavefront instruction reads 1 KiB
//     of a row (global_load_dwordx4) and writes 1 KiB of LDS (ds_write_b128).
//   * Each lane issues `batch` (4) loads before its first LDS store: 64 bytes per lane, 4 KiB per
//     wavefront in flight. Whole batches carry no per-chunk range guard, so no wait separates the
//     four loads (tests/hip checks it): walk_bytes releases its stores with s_waitcnt vmcnt(3..0);
//     walk_box, whose loads branch on the tensor's edge, with one vmcnt(0) before its four stores.
//     The last, partial batch is guarded per chunk.
//   * Chunk indices are 32-bit (a box is far below 4 GiB), so the row/column split of an index is
//     a 32-bit multiply-high by a constant, not a 64-bit division sequence.
//   * A chunk cut by the tensor's edge (valid < W bytes) is read with aligned element- or
//     dword-sized loads, unrolled (never a byte loop), and stored as one W-byte LDS write whose
//     remaining bytes are zero. A chunk wholly outside the tensor is not read at all.
// Preconditions (what box_chunk_bytes / widest_access guarantee): W divides the source address of
// every chunk and its shared-memory offset; `dst` points into __shared__ memory.
//
// `Access` supplies the two memory operations: Access::load<W>(const void*) -> vec_t<W> and
// Access::store<W>(void*, vec_t<W>). The AMD flavour passes amd_access (porter/staged/copy.hpp, over porter/amdgcn/memory.hpp:
// global_load_* and ds_write_*); tests/hip passes a host policy that checks every address, so this
// exact code is verified byte for byte on a machine without an AMD GPU.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/detail/copy_context.hpp"

namespace porter::backend::amd_detail {

/// Chunks each lane loads before its first LDS store.
inline constexpr unsigned batch = 4;

/// The first `valid` bytes (0 < valid < W) of a W-byte chunk at global `src` (W-byte aligned),
/// zero above. E is the element size: `valid` is a multiple of E whenever W > E, and no chunk is
/// partial when W <= E (box_geometry.hpp). Loads are E-byte (E >= 4) or dword plus one short and
/// one byte load (E < 4), unrolled.
template <class Access, unsigned W, unsigned E>
PORTER_HOST_DEVICE PORTER_FORCEINLINE detail::vec_t<W> load_partial(const void* src, unsigned valid) {
  using V = detail::vec_t<W>;
  const unsigned char* s = static_cast<const unsigned char*>(src);
  V v{};
  if constexpr (W <= E) {
    (void)s; (void)valid;  // never partial: the chunk is inside or outside as a whole
  } else if constexpr (E >= 4) {
    detail::vec_t<E> piece[W / E] = {};
#pragma unroll
    for (unsigned i = 0; i + 1 < W / E; ++i)  // valid < W: the last piece is never whole
      if (E * (i + 1) <= valid) piece[i] = Access::template load<E>(s + E * i);
    __builtin_memcpy(&v, piece, W);
  } else if constexpr (W == 2) {  // E == 1: one byte of two
    const std::uint16_t b = Access::template load<1>(s);
    __builtin_memcpy(&v, &b, 2);
  } else {  // E in {1, 2}, W in {4, 8, 16}
    std::uint32_t word[W / 4] = {};
#pragma unroll
    for (unsigned i = 0; i < W / 4; ++i) {
      if (i + 1 < W / 4 && 4 * (i + 1) <= valid) {  // valid < W: the last word is never whole
        word[i] = Access::template load<4>(s + 4 * i);
      } else if (4 * i < valid) {  // the last, partial word: 1..3 bytes
        const unsigned r = valid - 4 * i;
        std::uint32_t x = 0;
        if (r & 2u) x = Access::template load<2>(s + 4 * i);
        if constexpr (E == 1) {
          if (r & 1u) x |= std::uint32_t(Access::template load<1>(s + 4 * i + (r & 2u))) << (8u * (r & 2u));
        }
        word[i] = x;
      }
    }
    __builtin_memcpy(&v, word, W);
  }
  return v;
}

/// Copy the box of `src` at `at` into `dst` in chunks of W bytes. Collective (all ctx.nthreads).
template <class Access, class Box, unsigned W, class Src>
PORTER_HOST_DEVICE void walk_box(typename Box::element_type* dst, const Src& src, const coord<Box::rank>& at,
                                  const detail::copy_context& ctx) {
  using V = detail::vec_t<W>;
  constexpr unsigned E = sizeof(typename Box::element_type);
  constexpr std::size_t total64 = detail::box_chunks<Box, W>;
  static_assert(total64 < (std::size_t(1) << 31), "porter staged (AMD flavour): a box of 2^31 chunks or more does not fit any LDS.");
  constexpr unsigned total = unsigned(total64);
  unsigned char* d = reinterpret_cast<unsigned char*>(dst);
  const auto fetch = [&](unsigned k, unsigned& off) -> V {
    const detail::chunk_source cs = detail::locate_chunk<Box, W>(src, at, std::size_t(k));
    off = unsigned(cs.dst_offset);
    V whole{}, part{};
    if (cs.valid == W) whole = Access::template load<W>(cs.src);
    if (cs.valid != W && cs.valid != 0) part = load_partial<Access, W, E>(cs.src, cs.valid);
    return cs.valid == W ? whole : part;
  };
  const unsigned n = ctx.nthreads;
  unsigned k0 = ctx.thread;
  // Whole batches: `batch` chunks per lane, no range guard. (A guarded load followed by code that
  // reuses its registers makes LLVM 15 put s_waitcnt vmcnt(0) in between: one load in flight
  // instead of four. For the same reason `fetch` fills two registers, whole and part, and selects.)
  for (; k0 + (batch - 1) * n < total; k0 += batch * n) {
    V r[batch];
    unsigned off[batch];
#pragma unroll
    for (unsigned u = 0; u < batch; ++u) r[u] = fetch(k0 + u * n, off[u]);
#pragma unroll
    for (unsigned u = 0; u < batch; ++u) Access::template store<W>(d + off[u], r[u]);
  }
  // The rest: fewer than `batch` chunks per lane.
#pragma unroll
  for (unsigned u = 0; u + 1 < batch; ++u) {
    unsigned off = 0;
    if (k0 + u * n < total) {
      const V v = fetch(k0 + u * n, off);
      Access::template store<W>(d + off, v);
    }
  }
}

/// Copy `bytes` bytes from global `src` to shared `dst`, both W-byte aligned. The full W-byte
/// chunks go as in walk_box; the tail (fewer than W bytes, still W-aligned on both sides) goes as
/// at most four aligned pieces of 8, 4, 2 and 1 bytes, piece j by thread j mod nthreads.
/// Collective. Exactly [dst, dst + bytes) is written.
template <class Access, unsigned W>
PORTER_HOST_DEVICE void walk_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx) {
  using V = detail::vec_t<W>;
  const std::size_t full = bytes / W;
  const unsigned char* s = static_cast<const unsigned char*>(src);
  unsigned char* d = static_cast<unsigned char*>(dst);
  const std::size_t n = ctx.nthreads;
  std::size_t k0 = ctx.thread;
  for (; k0 + (batch - 1) * n < full; k0 += batch * n) {  // whole batches, as in walk_box
    V r[batch];
#pragma unroll
    for (unsigned u = 0; u < batch; ++u) r[u] = Access::template load<W>(s + (k0 + u * n) * W);
#pragma unroll
    for (unsigned u = 0; u < batch; ++u) Access::template store<W>(d + (k0 + u * n) * W, r[u]);
  }
#pragma unroll
  for (unsigned u = 0; u + 1 < batch; ++u)
    if (k0 + u * n < full) Access::template store<W>(d + (k0 + u * n) * W, Access::template load<W>(s + (k0 + u * n) * W));
  if constexpr (W > 1) {
    const unsigned tail = unsigned(bytes - full * W);
    s += full * W;
    d += full * W;
    // Piece of P bytes (present when tail & P) sits after the larger pieces: at tail & ~(2P - 1).
    if constexpr (W > 8) {
      if ((tail & 8u) && ctx.thread == 0) Access::template store<8>(d, Access::template load<8>(s));
    }
    if constexpr (W > 4) {
      if ((tail & 4u) && ctx.thread == 1u % ctx.nthreads) Access::template store<4>(d + (tail & 8u), Access::template load<4>(s + (tail & 8u)));
    }
    if constexpr (W > 2) {
      if ((tail & 2u) && ctx.thread == 2u % ctx.nthreads) Access::template store<2>(d + (tail & 12u), Access::template load<2>(s + (tail & 12u)));
    }
    if ((tail & 1u) && ctx.thread == 3u % ctx.nthreads) Access::template store<1>(d + (tail & 14u), Access::template load<1>(s + (tail & 14u)));
  }
}
/// Copy a box with the widest chunk the addresses allow (box_chunk_bytes: 16, 8, 4, 2 or 1 bytes).
/// The body of backend::staged_copy::copy_box (AMD flavour), with the memory operations as a parameter.
template <class Access, class Box, class Src>
PORTER_HOST_DEVICE void dispatch_box(typename Box::element_type* dst, const Src& src, const coord<Box::rank>& at,
                                     const detail::copy_context& ctx) {
  switch (detail::box_chunk_bytes<Box>(src, at)) {
    case 16: walk_box<Access, Box, 16>(dst, src, at, ctx); break;
    case 8: walk_box<Access, Box, 8>(dst, src, at, ctx); break;
    case 4: walk_box<Access, Box, 4>(dst, src, at, ctx); break;
    case 2: walk_box<Access, Box, 2>(dst, src, at, ctx); break;
    default: walk_box<Access, Box, 1>(dst, src, at, ctx); break;
  }
}

/// Copy a byte range with the widest chunk both addresses allow (widest_access of src | dst).
/// The body of backend::staged_copy::copy_bytes (AMD flavour), with the memory operations as a parameter.
template <class Access>
PORTER_HOST_DEVICE void dispatch_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx) {
  switch (detail::widest_access(reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst))) {
    case 16: walk_bytes<Access, 16>(dst, src, bytes, ctx); break;
    case 8: walk_bytes<Access, 8>(dst, src, bytes, ctx); break;
    case 4: walk_bytes<Access, 4>(dst, src, bytes, ctx); break;
    case 2: walk_bytes<Access, 2>(dst, src, bytes, ctx); break;
    default: walk_bytes<Access, 1>(dst, src, bytes, ctx); break;
  }
}

}  // namespace porter::backend::amd_detail
