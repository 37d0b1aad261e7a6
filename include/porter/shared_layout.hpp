// porter/shared_layout.hpp — several rings (and scratch tiles) in one CTA's dynamic shared memory.
//
// A GEMM keeps an A ring and a B ring of different depths, an attention kernel a K/V ring and a Q
// tile, an epilogue a tile to store from. shared_layout<Parts...> places them back to back in one
// `extern __shared__` array with the total known at compile time and ONE alignment slack for the
// whole layout (not one per ring): each part starts at a multiple of its own alignment from a base
// aligned to the largest, so the pipelines built on part<I>() find their pointer aligned and add no
// padding of their own. Parts are placed by decreasing alignment, so none is padded either: the
// layout is the sum of the parts' footprints plus one slack.
//
//   using A = porter::pipeline<P, 4, a_tile>;
//   using B = porter::pipeline<P, 2, b_tile>;
//   using L = porter::shared_layout<A, B, porter::scratch<c_tile>>;
//   extern __shared__ unsigned char smem[];
//   A a(L::part<0>(smem));
//   B b(L::part<1>(smem));
//   porter::tile_view<c_tile> c(reinterpret_cast<c_tile::element_type*>(L::part<2>(smem)));
//   ... launch with L::bytes of dynamic shared memory
//
// A part is a porter::pipeline (its stage ring without the ring's own slack), a porter::stage_ring,
// or porter::scratch<Box> (one buffer of Box, aligned to its swizzle atom).
//
// Writing into a landed stage. A consumer may use a landed stage as scratch (write into it) before
// releasing it. On the tma path the stage is refilled next by the TMA unit (the async proxy), so the
// generic writes must be ordered before that refill: release the stage with
// `pipe.consumer_release(ready, porter::stage_written)`, which issues fence.proxy.async.shared::cta
// in every thread on tma (PTX ISA 9.7.13.4) and nothing on the other paths (their refills are
// generic stores or cp.async, ordered by the CTA barrier that precedes every refill). Without it a
// TMA refill may land before, or be overwritten by, the consumer's writes.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/config.hpp"
#include "porter/lowerings.hpp"
#include "porter/stage_ring.hpp"

namespace porter {

/// A scratch buffer of one Box in a shared_layout: Box::bytes rounded up to its alignment, the box's
/// swizzle atom (porter/swizzle.hpp; 128 B unswizzled).
template <class Box>
struct scratch {
  static_assert(is_box<Box>::value, "porter::scratch: the argument must be a porter::box (or porter::swizzled) type.");
  using box_type = Box;
  static constexpr std::size_t alignment = swizzle_atom_bytes(Box::swizzle_mode);
  static constexpr std::size_t footprint = (Box::bytes + alignment - 1) / alignment * alignment;
};

namespace detail {
/// The alignment and footprint (bytes without slack) of a layout part.
template <class P, class = void>
struct part_traits {  // porter::scratch, or anything with alignment and footprint
  static constexpr std::size_t alignment = P::alignment;
  static constexpr std::size_t footprint = P::footprint;
};
template <class P>
struct part_traits<P, std::void_t<typename P::ring>> {  // a pipeline: its ring
  static constexpr std::size_t alignment = P::ring::alignment;
  static constexpr std::size_t footprint = P::ring::footprint;
};
template <int S, class... B>
struct part_traits<stage_ring<S, B...>, void> {
  static constexpr std::size_t alignment = stage_ring<S, B...>::alignment;
  static constexpr std::size_t footprint = stage_ring<S, B...>::footprint;
};
}  // namespace detail

/// Parts placed back to back in one dynamic shared-memory array (see the file comment).
template <class... Parts>
struct shared_layout {
  static_assert(sizeof...(Parts) >= 1, "porter::shared_layout: give at least one part.");
  static constexpr int parts = int(sizeof...(Parts));
  /// Alignment of the layout's base, bytes: the largest part alignment (128 at least).
  static constexpr std::size_t alignment = detail::max_of({detail::part_traits<Parts>::alignment...});
  static constexpr std::size_t part_alignment[sizeof...(Parts)] = {detail::part_traits<Parts>::alignment...};
  static constexpr std::size_t part_bytes[sizeof...(Parts)] = {detail::part_traits<Parts>::footprint...};
  /// Byte offset of part i from the aligned base (a multiple of its alignment). Parts are placed in
  /// order of decreasing alignment (stable): every footprint is a multiple of its part's alignment,
  /// so no padding falls between parts.
  static PORTER_HOST_DEVICE constexpr std::size_t offset(int i) {
    std::size_t o = 0;
    for (int j = 0; j < parts; ++j)
      if (part_alignment[j] > part_alignment[i] || (part_alignment[j] == part_alignment[i] && j < i)) o += part_bytes[j];
    return o;
  }
  /// Bytes of all parts from the aligned base: the sum of their footprints.
  static constexpr std::size_t footprint = [] {
    std::size_t t = 0;
    for (int j = 0; j < parts; ++j) t += part_bytes[j];
    return t;
  }();
  /// Dynamic shared memory to request at launch: the parts plus ONE slack of `alignment - 16` bytes
  /// (dynamic shared memory is at least 16-byte aligned; CUDA C++ Programming Guide, "Shared Memory").
  static constexpr std::size_t bytes = footprint + alignment - 16;

  /// Part I of the layout over dynamic shared memory `smem` (the same pointer in every thread).
  template <int I>
  PORTER_HOST_DEVICE static unsigned char* part(void* smem) {
    static_assert(I >= 0 && I < int(sizeof...(Parts)), "porter::shared_layout::part<I>: I must name one of the parts.");
    unsigned char* p = static_cast<unsigned char*>(smem);
    // Align up by adding bytes to the pointer, so the compiler keeps knowing it points to shared
    // memory. On the device the pad comes from the shared-window offset (the vendor registry's
    // detail::shared_alignment_pad), as in porter::pipeline: it folds into the later shared-space
    // addresses, and to zero when `smem` is declared __align__(alignment) or wider; a pad from the
    // generic address is opaque to the compiler (it kept the bf16 port's wmma loads generic).
#if PORTER_DEVICE_PASS
    const std::size_t pad = detail::shared_alignment_pad(p, alignment);
#else
    const std::uintptr_t pad = (alignment - (reinterpret_cast<std::uintptr_t>(p) & (alignment - 1))) & (alignment - 1);
#endif
    constexpr std::size_t at = offset(I);  // at compile time: the part arrays stay host data
    return p + pad + at;
  }
};

}  // namespace porter
