// porter/swizzle.hpp — the shared-memory swizzle modes a box can land in.
//
// A swizzled box lands in shared memory with its 16-byte chunks permuted inside each swizzle span,
// so that a warp reading a column of the tile (8 rows x 16 B, the shape of an ldmatrix fragment)
// touches 8 different bank groups instead of one. The modes are the TMA tensor-map swizzle modes
// (CUDA Driver API, CUtensorMapSwizzle: CU_TENSOR_MAP_SWIZZLE_32B / _64B / _128B), and the
// permutation is theirs, on the byte offset o from a buffer aligned to the mode's atom:
//
//   swizzled(o) = o XOR (((o >> 7) & (span/16 - 1)) << 4)
//
// i.e. the 16-byte chunk index inside a span (bits 4..) is XORed with the index of the 128-byte
// row (bits 7..) modulo span/16. This is CuTe's Swizzle<B, 4, 3> with B = log2(span / 16)
// (CUTLASS, cute/swizzle.hpp; the wgmma shared-memory matrix layouts of PTX ISA 9.7.15.5.1 use the
// same three modes). The pattern repeats every `atom` = 2^(7+B) bytes: 256 B (32 B mode),
// 512 B (64 B), 1024 B (128 B: 8 rows of 128 B); a buffer must start on that boundary for the
// offset formula to agree with the hardware, which swizzles on the shared-memory address. The
// permutation only moves bytes inside each span-aligned block of `span` bytes, so any range of a
// whole number of spans maps onto itself.
//
// On every path the same bytes land at the same place: TMA swizzles in hardware (the tensor map is
// encoded with the mode); cp_async, staged and the AMD flavour compute swizzled destinations.
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/config.hpp"

namespace porter {

/// Swizzle mode of a box in shared memory; the value is the span in bytes (0: dense, unswizzled).
enum class swizzle : int {
  none = 0,    ///< dense row-major, no permutation
  b32 = 32,    ///< 16-byte chunks XORed within 32-byte spans  (CU_TENSOR_MAP_SWIZZLE_32B)
  b64 = 64,    ///< ... within 64-byte spans                    (CU_TENSOR_MAP_SWIZZLE_64B)
  b128 = 128,  ///< ... within 128-byte spans                   (CU_TENSOR_MAP_SWIZZLE_128B)
};

/// Span of a mode in bytes: 0, 32, 64 or 128 (the innermost box row of a swizzled box).
PORTER_HOST_DEVICE constexpr int swizzle_span(swizzle s) { return int(s); }

/// Bytes after which the mode's pattern repeats, and the alignment a buffer in that mode needs:
/// 256, 512, 1024 (128 for none: porter's alignment of every stage buffer).
PORTER_HOST_DEVICE constexpr std::size_t swizzle_atom_bytes(swizzle s) {
  return s == swizzle::b32 ? 256 : s == swizzle::b64 ? 512 : s == swizzle::b128 ? 1024 : 128;
}

/// True for the four modes (a run-time value from a type-erased description may be anything).
PORTER_HOST_DEVICE constexpr bool is_swizzle_span(int span) { return span == 0 || span == 32 || span == 64 || span == 128; }

/// Where byte `o` of a dense box lands (and, being an involution, where it is read back from):
/// o XOR (((o >> 7) & (span/16 - 1)) << 4). Identity for swizzle::none. `o` is the byte offset from
/// the buffer's start, which is aligned to swizzle_atom_bytes(s).
PORTER_HOST_DEVICE constexpr std::uint32_t swizzle_offset(swizzle s, std::uint32_t o) {
  return s == swizzle::none ? o : o ^ (((o >> 7) & std::uint32_t(int(s) / 16 - 1)) << 4);
}

}  // namespace porter
