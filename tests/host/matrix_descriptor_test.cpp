// tests/host/matrix_descriptor_test.cpp — the wgmma shared-memory matrix descriptor's bits against
// PTX ISA 9.7.15.5.1 "Matrix Descriptor Format", and the matrix view fragment loads address a tile
// through (tile_view::matrix_byte_offset), against tile_view::byte_offset. Plain C++, no GPU.
#include <gtest/gtest.h>

#include <cstdint>

#include "porter/box.hpp"
#include "porter/matrix_descriptor.hpp"

namespace {

using porter::swizzle;

/// The spec's fields, written out bit by bit (independent of encode_matrix_descriptor's masks).
std::uint64_t spec_bits(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo, unsigned base, unsigned code) {
  std::uint64_t d = 0;
  for (int b = 0; b < 14; ++b) {
    d |= std::uint64_t((addr >> (4 + b)) & 1u) << b;         // bits 0-13: start address >> 4
    d |= std::uint64_t((lbo >> (4 + b)) & 1u) << (16 + b);   // bits 16-29: LBO >> 4
    d |= std::uint64_t((sbo >> (4 + b)) & 1u) << (32 + b);   // bits 32-45: SBO >> 4
  }
  for (int b = 0; b < 3; ++b) d |= std::uint64_t((base >> b) & 1u) << (49 + b);  // bits 49-51
  for (int b = 0; b < 2; ++b) d |= std::uint64_t((code >> b) & 1u) << (62 + b);  // bits 62-63
  return d;
}

TEST(MatrixDescriptor, SwizzleCodesAreTheSpecs) {
  EXPECT_EQ(porter::matrix_descriptor_swizzle_code(swizzle::none), 0u);
  EXPECT_EQ(porter::matrix_descriptor_swizzle_code(swizzle::b128), 1u);
  EXPECT_EQ(porter::matrix_descriptor_swizzle_code(swizzle::b64), 2u);
  EXPECT_EQ(porter::matrix_descriptor_swizzle_code(swizzle::b32), 3u);
}

TEST(MatrixDescriptor, KnownValues) {
  // 128 B swizzle, start 0x400 (1 KiB), LBO 16, SBO 1024: CUTLASS's K-major SW128 bf16 descriptor.
  constexpr porter::matrix_descriptor_fields f{0x400, 16, 1024, 0, swizzle::b128};
  static_assert(porter::encode_matrix_descriptor(f) == 0x4000004000010040ull);
  EXPECT_EQ(porter::encode_matrix_descriptor(f), 0x4000004000010040ull);
  // Every field at its largest, separately: no field bleeds into another.
  EXPECT_EQ(porter::encode_matrix_descriptor({0x3FFF0, 0, 0, 0, swizzle::none}), 0x3FFFull);
  EXPECT_EQ(porter::encode_matrix_descriptor({0, 0x3FFF0, 0, 0, swizzle::none}), 0x3FFFull << 16);
  EXPECT_EQ(porter::encode_matrix_descriptor({0, 0, 0x3FFF0, 0, swizzle::none}), 0x3FFFull << 32);
  EXPECT_EQ(porter::encode_matrix_descriptor({0, 0, 0, 7, swizzle::none}), 7ull << 49);
  EXPECT_EQ(porter::encode_matrix_descriptor({0, 0, 0, 0, swizzle::b32}), 3ull << 62);
  // The low 4 bits of addresses and offsets are not encoded; bits past the 14-bit fields neither.
  EXPECT_EQ(porter::encode_matrix_descriptor({0x40F, 0x1F, 0x40000, 0, swizzle::none}), 0x40ull | (1ull << 16));
}

TEST(MatrixDescriptor, EveryFieldAgainstTheSpecBitByBit) {
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  const swizzle modes[] = {swizzle::none, swizzle::b128, swizzle::b64, swizzle::b32};
  for (int i = 0; i < 4000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const std::uint32_t addr = std::uint32_t(x) & 0x3FFF0u, lbo = std::uint32_t(x >> 18) & 0x3FFF0u,
                        sbo = std::uint32_t(x >> 36) & 0x3FFF0u;
    const unsigned base = unsigned(x >> 58) & 7u, m = unsigned(x >> 61) & 3u;
    const porter::matrix_descriptor_fields f{addr, lbo, sbo, base, modes[m]};
    const unsigned code = m;  // `modes` lists none, b128, b64, b32: the spec's codes 0..3
    ASSERT_EQ(porter::encode_matrix_descriptor(f), spec_bits(addr, lbo, sbo, base, code)) << "case " << i;
  }
}

TEST(MatrixDescriptor, KMajorLayoutOfSwizzledBoxes) {
  using sw128 = porter::swizzled<porter::box<std::uint16_t, 64, 64>, swizzle::b128>;
  using sw64 = porter::swizzled<porter::box<std::uint16_t, 2, 8, 32>, swizzle::b64>;
  using sw32 = porter::swizzled<porter::box<std::uint16_t, 16, 16>, swizzle::b32>;
  // SBO: 8 rows of one span; LBO unused (16 by convention).
  EXPECT_EQ(porter::wgmma_k_major<sw128>::stride_byte_offset, 1024u);
  EXPECT_EQ(porter::wgmma_k_major<sw64>::stride_byte_offset, 512u);
  EXPECT_EQ(porter::wgmma_k_major<sw32>::stride_byte_offset, 256u);
  EXPECT_EQ(porter::wgmma_k_major<sw128>::leading_byte_offset, 16u);
  EXPECT_EQ(porter::wgmma_k_major<sw64>::mode, swizzle::b64);
}

TEST(TileView, MatrixByteOffsetIsByteOffsetWithTheOuterDimensionsFlattened) {
  using b2 = porter::swizzled<porter::box<std::uint16_t, 16, 64>, swizzle::b128>;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 64; ++c) ASSERT_EQ(porter::tile_view<b2>::matrix_byte_offset(r, c), porter::tile_view<b2>::byte_offset(r, c));
  using b3 = porter::swizzled<porter::box<std::uint16_t, 3, 8, 32>, swizzle::b64>;
  for (int a = 0; a < 3; ++a)
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 32; ++c)
        ASSERT_EQ(porter::tile_view<b3>::matrix_byte_offset(a * 8 + r, c), porter::tile_view<b3>::byte_offset(a, r, c));
  using d3 = porter::box<std::uint16_t, 2, 4, 24>;
  for (int a = 0; a < 2; ++a)
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 24; ++c)
        ASSERT_EQ(porter::tile_view<d3>::matrix_byte_offset(a * 4 + r, c), porter::tile_view<d3>::byte_offset(a, r, c));
}

// The split form load_fragments addresses through, matrix_byte_offset(row8, row_lo, col), is the
// plain form at row8 + row_lo for every mode, element size and split (row8 a multiple of 8, row_lo
// up to 14: a row0 that is not a multiple of 8 plus a lane row).
template <class Box>
void expect_split_matches() {
  using view = porter::tile_view<Box>;
  for (int row8 = 0; row8 < int(Box::rows); row8 += 8)
    for (int lo = 0; lo < 15 && row8 + lo < int(Box::rows); ++lo)
      for (int c = 0; c < Box::inner; ++c)
        ASSERT_EQ(view::matrix_byte_offset(row8, lo, c), view::matrix_byte_offset(row8 + lo, c))
            << "span " << porter::swizzle_span(Box::swizzle_mode) << " B, element " << sizeof(typename Box::element_type) << " B, row " << row8
            << " + " << lo << ", column " << c;
}

TEST(TileView, SplitMatrixByteOffsetIsThePlainOneForEveryModeAndElementSize) {
  expect_split_matches<porter::swizzled<porter::box<std::uint16_t, 40, 64>, swizzle::b128>>();
  expect_split_matches<porter::swizzled<porter::box<std::uint8_t, 24, 128>, swizzle::b128>>();
  expect_split_matches<porter::swizzled<porter::box<float, 3, 8, 32>, swizzle::b128>>();
  expect_split_matches<porter::swizzled<porter::box<std::uint16_t, 40, 32>, swizzle::b64>>();
  expect_split_matches<porter::swizzled<porter::box<double, 24, 8>, swizzle::b64>>();
  expect_split_matches<porter::swizzled<porter::box<std::uint16_t, 40, 16>, swizzle::b32>>();
  expect_split_matches<porter::swizzled<porter::box<std::uint32_t, 2, 12, 8>, swizzle::b32>>();
  expect_split_matches<porter::box<std::uint16_t, 24, 40>>();
  expect_split_matches<porter::box<std::uint16_t, 2, 12, 24>>();
}

}  // namespace
