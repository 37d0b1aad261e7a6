// porter/stage_ring.hpp — compile-time shared-memory layout of a pipeline's stages.
//
// Layout (bytes from the start, aligned to `alignment`):
//   [0, header_bytes)             the protocol's barriers: room for a FULL and an EMPTY mbarrier per
//                                 stage (8 bytes each; the tma protocol uses FULL, the others none),
//                                 rounded up to `alignment`
//   [header_bytes + s*stage_bytes + buffer_offset<I>, ...)   buffer I of stage s
// Every buffer starts on a 128-byte boundary (what cp.async.bulk.tensor needs without swizzle;
// PTX ISA 9.7.9.25.5.1), so two buffers never share a 128-byte line, however small a box is; a
// swizzled buffer starts on its mode's atom (swizzle_atom_bytes: 256 / 512 / 1024 B), so the
// hardware's address-based swizzle and porter's offset-based one agree. `alignment` is the largest
// of those; stage_bytes is a multiple of it, so every stage keeps every buffer's alignment.
// `bytes` includes `alignment` bytes of slack because dynamic shared memory is only guaranteed
// 16-byte alignment (CUDA C++ Programming Guide, "Shared Memory"); the pipeline aligns the
// pointer up, whatever the base.
#pragma once
#include <cstddef>
#include <initializer_list>

#include "porter/box.hpp"

namespace porter {

namespace detail {
PORTER_HOST_DEVICE constexpr std::size_t round_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }
constexpr std::size_t max_of(std::initializer_list<std::size_t> v) {
  std::size_t m = 128;
  for (std::size_t x : v) m = x > m ? x : m;
  return m;
}
template <int I, class... B> struct nth {
  static_assert(I >= 0 && I < int(sizeof...(B)), "porter::buffer<I>: I must name one of the stage's buffers.");
  using type = void;
};
template <class B0, class... B> struct nth<0, B0, B...> { using type = B0; };
template <int I, class B0, class... B> struct nth<I, B0, B...> { using type = typename nth<I - 1, B...>::type; };
}  // namespace detail

/// The shared-memory layout of `Stages` stages, each holding one buffer per box in `Boxes`.
template <int Stages, class... Boxes>
struct stage_ring {
  static_assert(Stages >= 1 && Stages <= 8, "porter::stage_ring: a pipeline has 1 to 8 stages.");
  static_assert(sizeof...(Boxes) >= 1, "porter::stage_ring: a stage holds at least one box.");
  static_assert((is_box<Boxes>::value && ...), "porter::stage_ring: every buffer type must be a porter::box<T, dims...>.");
  static_assert(((Boxes::bytes > 0) && ...), "porter::stage_ring: every box must hold at least one byte.");  // completes each box: its own checks fire here

  /// Alignment of buffer i, bytes: 128, or its swizzle atom (porter/swizzle.hpp).
  static constexpr std::size_t buffer_alignment[sizeof...(Boxes)] = {swizzle_atom_bytes(Boxes::swizzle_mode)...};
  /// Alignment of the ring and of every stage, bytes: the largest buffer alignment (128 at least).
  static constexpr std::size_t alignment = detail::max_of({swizzle_atom_bytes(Boxes::swizzle_mode)...});
  static constexpr int stages = Stages;
  static constexpr int buffers = sizeof...(Boxes);
  /// The box type of buffer I.
  template <int I> using box_type = typename detail::nth<I, Boxes...>::type;
  /// Bytes of the barrier header: 8 per FULL and EMPTY mbarrier of each stage, rounded to `alignment`.
  static constexpr std::size_t header_bytes = detail::round_up(16 * std::size_t(Stages), alignment);
  /// Bytes each buffer occupies in a stage (its box, rounded up to 128).
  static constexpr std::size_t buffer_bytes[sizeof...(Boxes)] = {detail::round_up(Boxes::bytes, 128)...};
  /// Byte offset of buffer I inside a stage (rounded up to its alignment).
  static PORTER_HOST_DEVICE constexpr std::size_t buffer_offset(int i) {
    std::size_t o = 0;
    for (int j = 0; j < i; ++j) o = detail::round_up(o, buffer_alignment[j]) + buffer_bytes[j];
    return i < int(sizeof...(Boxes)) ? detail::round_up(o, buffer_alignment[i]) : o;
  }
  /// Bytes of one stage (a multiple of `alignment`).
  static constexpr std::size_t stage_bytes = detail::round_up(buffer_offset(sizeof...(Boxes)), alignment);
  /// Byte offset of stage s from the aligned start.
  static PORTER_HOST_DEVICE constexpr std::size_t stage_offset(int s) { return header_bytes + std::size_t(s) * stage_bytes; }
  /// Bytes from the aligned start to the end of the last stage (no slack): a ring's part of a
  /// porter::shared_layout.
  static constexpr std::size_t footprint = header_bytes + std::size_t(Stages) * stage_bytes;
  /// Dynamic shared memory to request at launch, bytes (includes `alignment` bytes of slack).
  static constexpr std::size_t bytes = alignment + header_bytes + std::size_t(Stages) * stage_bytes;
};

}  // namespace porter
