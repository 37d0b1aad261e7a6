// porter/matrix_descriptor.hpp — the shared-memory matrix descriptor of sm_90's wgmma, as bits.
//
// Vocabulary (plain C++, host and device; no instruction): the 64-bit descriptor a
// wgmma.mma_async consumer passes for an operand in shared memory, and the K-major layout of a
// swizzled porter box in its terms. porter::wgmma_descriptor (porter/fragment.hpp) builds one from a
// landed tile on the device.
//
// Source: PTX ISA 9.x, 9.7.15.5.1 "Matrix Descriptor Format" (sm_90a):
//   bits  0-13  matrix start address          (shared-window address >> 4)
//   bits 16-29  leading dimension byte offset (>> 4)
//   bits 32-45  stride dimension byte offset  (>> 4)
//   bits 49-51  matrix base offset            (0 when the start lies on the swizzle pattern's repeat)
//   bits 62-63  swizzle mode                  (0 none / interleave, 1 = 128 B, 2 = 64 B, 3 = 32 B)
// every other bit 0. Addresses and offsets are in bytes and multiples of 16 (the low 4 bits are
// dropped). A core matrix is 8 rows x 16 bytes. For a K-major swizzled operand (each row of the
// tile one swizzle span of K, rows along M or N: porter's swizzled box), the stride dimension byte
// offset is the distance between two groups of 8 rows, 8 x span bytes (1024 / 512 / 256 for
// 128 / 64 / 32 B), and the leading dimension byte offset is not used by the hardware (the K
// extent of one instruction, 32 bytes, lies inside one span); porter writes 16 (field 1), as
// CUTLASS does (cute/atom/mma_traits_sm90_gmma.hpp, make_gmma_desc).
#pragma once
#include <cstdint>

#include "porter/box.hpp"
#include "porter/config.hpp"
#include "porter/swizzle.hpp"

namespace porter {

/// The fields of a wgmma matrix descriptor, in bytes (PTX ISA 9.7.15.5.1).
struct matrix_descriptor_fields {
  std::uint32_t start_address = 0;        ///< shared-window address of the matrix, 16-byte aligned
  std::uint32_t leading_byte_offset = 0;  ///< LBO, bytes (multiple of 16, < 2^18)
  std::uint32_t stride_byte_offset = 0;   ///< SBO, bytes (multiple of 16, < 2^18)
  unsigned base_offset = 0;               ///< 0..7
  porter::swizzle mode = porter::swizzle::none;
};

/// The descriptor's 2-bit swizzle code: none 0, b128 1, b64 2, b32 3.
PORTER_HOST_DEVICE constexpr std::uint64_t matrix_descriptor_swizzle_code(porter::swizzle s) {
  return s == porter::swizzle::b128 ? 1 : s == porter::swizzle::b64 ? 2 : s == porter::swizzle::b32 ? 3 : 0;
}

/// Pack the fields into the 64-bit descriptor (PTX ISA 9.7.15.5.1; layout in the file comment).
/// Bits of an address or offset beyond the 14-bit fields (>= 256 KiB) are dropped.
PORTER_HOST_DEVICE constexpr std::uint64_t encode_matrix_descriptor(const matrix_descriptor_fields& f) {
  return (std::uint64_t((f.start_address >> 4) & 0x3FFFu)) | (std::uint64_t((f.leading_byte_offset >> 4) & 0x3FFFu) << 16) |
         (std::uint64_t((f.stride_byte_offset >> 4) & 0x3FFFu) << 32) | (std::uint64_t(f.base_offset & 7u) << 49) |
         (matrix_descriptor_swizzle_code(f.mode) << 62);
}

/// A swizzled porter box as a K-major wgmma operand: rows along M (or N), the innermost row one
/// swizzle span of K. Box: porter::swizzled<porter::box<T, ..., inner>, mode>, 2-byte T (bf16, f16:
/// the types whose K-major operands wgmma reads from shared memory with one span of 16..64
/// elements), rows a multiple of 8.
template <class Box>
struct wgmma_k_major {
  static_assert(is_box<Box>::value, "porter::wgmma_k_major: give a porter::swizzled box.");
  static_assert(Box::swizzle_mode != porter::swizzle::none,
                "porter::wgmma_k_major: a dense box is not a canonical wgmma layout (the rows of its 8 x 16 B core matrices are "
                "a whole box row apart, not 16 bytes); land the tile as porter::swizzled<box, mode> with mode = its row bytes.");
  static_assert(sizeof(typename Box::element_type) == 2,
                "porter::wgmma_k_major: the element type must be 2 bytes (bf16 or f16), the operand types this layout describes.");
  static_assert(Box::rows % 8 == 0, "porter::wgmma_k_major: the tile's rows (outer dimensions multiplied) must be a multiple of 8 (core matrices).");
  /// LBO, bytes: unused by the hardware for K-major swizzled operands; 16 by convention.
  static constexpr std::uint32_t leading_byte_offset = 16;
  /// SBO, bytes: from one group of 8 rows to the next, 8 x the span.
  static constexpr std::uint32_t stride_byte_offset = 8u * std::uint32_t(swizzle_span(Box::swizzle_mode));
  static constexpr porter::swizzle mode = Box::swizzle_mode;
};

}  // namespace porter
