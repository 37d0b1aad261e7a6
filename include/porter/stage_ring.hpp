// porter/stage_ring.hpp — compile-time shared-memory layout of a pipeline's stages.
//
// Layout (bytes from the 128-byte aligned start):
//   [0, header_bytes)             full mbarriers [Stages], empty mbarriers [Stages], init word
//   [header_bytes + s*stage_bytes + buffer_offset<I>, ...)   buffer I of stage s
// Every buffer starts on a 128-byte boundary (what cp.async.bulk.tensor needs without swizzle;
// PTX ISA 9.7.9.25.5.1), so two buffers never share a 128-byte line, however small a box is.
// `bytes` includes 128 bytes of slack because dynamic shared memory is only guaranteed 16-byte
// alignment (CUDA C++ Programming Guide, "Shared Memory"); the pipeline aligns the pointer up.
#pragma once
#include <cstddef>

#include "porter/box.hpp"

namespace porter {

namespace detail {
constexpr std::size_t round_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }
}  // namespace detail

/// The shared-memory layout of `Stages` stages, each holding one buffer per box in `Boxes`.
template <int Stages, class... Boxes>
struct stage_ring {
  static_assert(Stages >= 1 && Stages <= 8, "porter::stage_ring: a pipeline has 1 to 8 stages.");
  static_assert(sizeof...(Boxes) >= 1, "porter::stage_ring: a stage holds at least one box.");
  static_assert((is_box<Boxes>::value && ...), "porter::stage_ring: every buffer type must be a porter::box<T, dims...>.");
  static_assert(((Boxes::bytes > 0) && ...), "porter::stage_ring: every box must hold at least one byte.");  // completes each box: its own checks fire here

  /// Alignment of every buffer and of the ring, bytes.
  static constexpr std::size_t alignment = 128;
  static constexpr int stages = Stages;
  static constexpr int buffers = sizeof...(Boxes);
  /// Bytes of the barrier header: 8 per full and empty mbarrier, 8 for the init word, rounded to 128.
  static constexpr std::size_t header_bytes = detail::round_up(16 * std::size_t(Stages) + 8, alignment);
  /// Bytes each buffer occupies in a stage (its box, rounded up to 128).
  static constexpr std::size_t buffer_bytes[sizeof...(Boxes)] = {detail::round_up(Boxes::bytes, alignment)...};
  /// Byte offset of buffer I inside a stage.
  static constexpr std::size_t buffer_offset(int i) {
    std::size_t o = 0;
    for (int j = 0; j < i; ++j) o += buffer_bytes[j];
    return o;
  }
  /// Bytes of one stage.
  static constexpr std::size_t stage_bytes = buffer_offset(sizeof...(Boxes));
  /// Byte offset of stage s from the aligned start.
  static constexpr std::size_t stage_offset(int s) { return header_bytes + std::size_t(s) * stage_bytes; }
  /// Dynamic shared memory to request at launch, bytes (includes 128 bytes of alignment slack).
  static constexpr std::size_t bytes = alignment + header_bytes + std::size_t(Stages) * stage_bytes;
};

}  // namespace porter
