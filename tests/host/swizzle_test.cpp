// tests/host/swizzle_test.cpp — swizzle modes: the permutation against an independent model, the
// swizzled box type, tile_view reading through the swizzle, stage-ring alignment to the swizzle atom,
// the validation rules and the tensor-map arguments of swizzled sources.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "porter/box.hpp"
#include "porter/error.hpp"
#include "porter/source.hpp"
#include "porter/stage_ring.hpp"
#include "porter/swizzle.hpp"
#include "tensor_map.hpp"

namespace {

using porter::box;
using porter::swizzle;
using porter::swizzled;

const swizzle modes[] = {swizzle::b32, swizzle::b64, swizzle::b128};

/// The model, written from the tensor-map description rather than from porter's formula: in every
/// 128-byte row r of the buffer, the 16-byte chunk c of each span-sized group moves to chunk
/// c XOR (r mod chunks-per-span) of the same group.
std::size_t model_swizzle(int span, std::size_t o) {
  if (span == 0) return o;
  const std::size_t per_span = std::size_t(span) / 16;  // chunks in a span: 2, 4, 8
  const std::size_t row = o / 128;                      // 128-byte row of the buffer
  const std::size_t group = o / std::size_t(span);      // which span the byte is in
  const std::size_t chunk = (o % std::size_t(span)) / 16;
  const std::size_t within = o % 16;
  const std::size_t moved = chunk ^ (row % per_span);
  return group * std::size_t(span) + moved * 16 + within;
}

TEST(Swizzle, OffsetMatchesTheModelForEveryByteOfEightAtoms) {
  for (swizzle s : modes) {
    const int span = porter::swizzle_span(s);
    for (std::uint32_t o = 0; o < 8 * 1024; ++o)
      ASSERT_EQ(porter::swizzle_offset(s, o), model_swizzle(span, o)) << span << " B mode, byte " << o;
  }
  for (std::uint32_t o = 0; o < 4096; ++o) ASSERT_EQ(porter::swizzle_offset(swizzle::none, o), o);
}

TEST(Swizzle, IsAnInvolutionAndAPermutationOfEverySpanAlignedRange) {
  for (swizzle s : modes) {
    const std::uint32_t span = std::uint32_t(porter::swizzle_span(s));
    for (std::uint32_t o = 0; o < 4096; ++o) ASSERT_EQ(porter::swizzle_offset(s, porter::swizzle_offset(s, o)), o);
    // A box of n rows of one span each maps onto itself, for every n (not only whole atoms).
    for (std::uint32_t rows = 1; rows <= 20; ++rows) {
      std::set<std::uint32_t> seen;
      for (std::uint32_t o = 0; o < rows * span; ++o) {
        const std::uint32_t t = porter::swizzle_offset(s, o);
        ASSERT_LT(t, rows * span) << span << " B mode, " << rows << " rows, byte " << o;
        seen.insert(t);
      }
      ASSERT_EQ(seen.size(), std::size_t(rows * span));
    }
  }
}

TEST(Swizzle, MovesWhole16ByteChunksAndRepeatsEveryAtom) {
  for (swizzle s : modes) {
    const std::uint32_t atom = std::uint32_t(porter::swizzle_atom_bytes(s));
    for (std::uint32_t o = 0; o < 4 * atom; ++o) {
      EXPECT_EQ(porter::swizzle_offset(s, o) % 16, o % 16);
      EXPECT_EQ(porter::swizzle_offset(s, o + atom), porter::swizzle_offset(s, o) + atom);
    }
  }
  EXPECT_EQ(porter::swizzle_atom_bytes(swizzle::b32), 256u);
  EXPECT_EQ(porter::swizzle_atom_bytes(swizzle::b64), 512u);
  EXPECT_EQ(porter::swizzle_atom_bytes(swizzle::b128), 1024u);
  EXPECT_EQ(porter::swizzle_atom_bytes(swizzle::none), 128u);
}

TEST(Swizzle, ColumnOfEightRowsTouchesEightDistinctBankGroupsIn128ByteMode) {
  // A column of 16-byte chunks down 8 rows of 128 B (an ldmatrix 8x8 b16 fragment) lands in 8
  // distinct 16-byte bank groups with 128 B swizzle, and in one without.
  for (std::uint32_t col = 0; col < 8; ++col) {
    std::set<std::uint32_t> groups, dense;
    for (std::uint32_t r = 0; r < 8; ++r) {
      groups.insert((porter::swizzle_offset(swizzle::b128, r * 128 + col * 16) % 128) / 16);
      dense.insert(((r * 128 + col * 16) % 128) / 16);
    }
    EXPECT_EQ(groups.size(), 8u);
    EXPECT_EQ(dense.size(), 1u);
  }
}

// ---- the type ------------------------------------------------------------------------------------

using bf16_tile = swizzled<box<std::uint16_t, 64, 64>, swizzle::b128>;
static_assert(porter::is_box<bf16_tile>::value, "a swizzled box is a box");
static_assert(bf16_tile::swizzle_mode == swizzle::b128 && box<std::uint16_t, 64, 64>::swizzle_mode == swizzle::none,
              "the mode is part of the type");
static_assert(bf16_tile::bytes == 8192 && bf16_tile::rank == 2 && bf16_tile::inner_bytes == 128 && bf16_tile::dim(0) == 64,
              "same shape and sizes as the dense box");
static_assert(!std::is_same_v<bf16_tile, box<std::uint16_t, 64, 64>>, "a distinct type from the dense box");
static_assert(std::is_same_v<bf16_tile::dense_box, box<std::uint16_t, 64, 64>>, "the dense box of the same shape");

// ---- tile_view -----------------------------------------------------------------------------------

/// Lay a dense box image out in swizzle mode `span` with the model.
std::vector<unsigned char> swizzle_image(int span, const std::vector<unsigned char>& dense) {
  std::vector<unsigned char> out(dense.size(), 0);
  for (std::size_t o = 0; o < dense.size(); ++o) out[model_swizzle(span, o)] = dense[o];
  return out;
}

template <class B>
void check_view_reads_through_the_swizzle() {
  using T = typename B::element_type;
  std::mt19937_64 rng(0x5eed + B::bytes);
  std::vector<unsigned char> dense(B::bytes);
  for (auto& b : dense) b = static_cast<unsigned char>(rng() | 1);
  std::vector<unsigned char> img = swizzle_image(porter::swizzle_span(B::swizzle_mode), dense);
  alignas(1024) static unsigned char mem[1 << 16];
  ASSERT_LE(img.size(), sizeof(mem));
  std::memcpy(mem, img.data(), img.size());
  const porter::tile_view<B> v(reinterpret_cast<T*>(mem));
  static_assert(decltype(v)::swizzle_mode == B::swizzle_mode, "the view carries the mode");
  for (std::size_t e = 0; e < B::elements; ++e) {
    T want;
    std::memcpy(&want, dense.data() + e * sizeof(T), sizeof(T));
    ASSERT_EQ(std::memcmp(&v.element(e), &want, sizeof(T)), 0) << "element " << e;
  }
  if constexpr (B::rank == 2) {
    for (int i = 0; i < B::dim(0); ++i)
      for (int j = 0; j < B::dim(1); ++j) {
        const std::size_t e = std::size_t(i) * std::size_t(B::dim(1)) + std::size_t(j);
        ASSERT_EQ(std::memcmp(&v(i, j), dense.data() + e * sizeof(T), sizeof(T)), 0) << "(" << i << ", " << j << ")";
        ASSERT_EQ(v.byte_offset(i, j), model_swizzle(porter::swizzle_span(B::swizzle_mode), e * sizeof(T)));
      }
  }
}

struct e16 { std::uint32_t w[4]; };

TEST(Swizzle, TileViewReadsThroughTheSwizzleForEveryModeAndElementSize) {
  check_view_reads_through_the_swizzle<swizzled<box<std::uint8_t, 24, 128>, swizzle::b128>>();
  check_view_reads_through_the_swizzle<swizzled<box<std::uint16_t, 17, 64>, swizzle::b128>>();
  check_view_reads_through_the_swizzle<swizzled<box<float, 9, 32>, swizzle::b128>>();
  check_view_reads_through_the_swizzle<swizzled<box<double, 8, 16>, swizzle::b128>>();
  check_view_reads_through_the_swizzle<swizzled<box<e16, 11, 8>, swizzle::b128>>();
  check_view_reads_through_the_swizzle<swizzled<box<std::uint16_t, 40, 32>, swizzle::b64>>();
  check_view_reads_through_the_swizzle<swizzled<box<float, 5, 16>, swizzle::b64>>();
  check_view_reads_through_the_swizzle<swizzled<box<std::uint8_t, 33, 32>, swizzle::b32>>();
  check_view_reads_through_the_swizzle<swizzled<box<float, 3, 4, 8>, swizzle::b32>>();
}

// ---- the stage ring ------------------------------------------------------------------------------

template <int S, class... B>
void check_ring_alignment() {
  using R = porter::stage_ring<S, B...>;
  const std::size_t atoms[] = {porter::swizzle_atom_bytes(B::swizzle_mode)...};
  const std::size_t sizes[] = {B::bytes...};
  std::size_t want_align = 128;
  for (std::size_t a : atoms) want_align = std::max(want_align, a);
  EXPECT_EQ(R::alignment, want_align);
  EXPECT_EQ(R::header_bytes % R::alignment, 0u);
  EXPECT_EQ(R::stage_bytes % R::alignment, 0u);
  EXPECT_EQ(R::bytes, R::alignment + R::header_bytes + std::size_t(S) * R::stage_bytes);
  std::size_t end = 0;
  for (int i = 0; i < int(sizeof...(B)); ++i) {
    EXPECT_EQ(R::buffer_offset(i) % atoms[i], 0u) << "buffer " << i;
    EXPECT_GE(R::buffer_offset(i), end) << "buffer " << i << " overlaps the one before";
    // No more padding before a buffer than its alignment needs.
    EXPECT_LT(R::buffer_offset(i) - end, atoms[i]) << "buffer " << i;
    EXPECT_GE(R::buffer_bytes[i], sizes[i]);
    end = R::buffer_offset(i) + R::buffer_bytes[i];
    for (int s = 0; s < S; ++s) EXPECT_EQ((R::stage_offset(s) + R::buffer_offset(i)) % atoms[i], 0u) << "stage " << s << " buffer " << i;
  }
  EXPECT_LE(end, R::stage_bytes);
  EXPECT_LT(R::stage_bytes - end, R::alignment);
}

TEST(Swizzle, StageRingAlignsEveryBufferToItsAtomInEveryStage) {
  using a128 = swizzled<box<std::uint16_t, 24, 64>, swizzle::b128>;  // 3 KiB: not a multiple of 1 KiB
  using a64 = swizzled<box<float, 3, 16>, swizzle::b64>;              // 192 B
  using a32 = swizzled<box<std::uint8_t, 5, 32>, swizzle::b32>;       // 160 B
  using dense = box<float, 7, 9>;                                     // 252 B
  check_ring_alignment<1, a128>();
  check_ring_alignment<3, a128, a64>();
  check_ring_alignment<4, dense, a128>();
  check_ring_alignment<2, a32, dense, a64>();
  check_ring_alignment<8, a64, a32>();
  check_ring_alignment<5, dense, dense>();
  using R = porter::stage_ring<3, dense, a128>;
  EXPECT_EQ(R::buffer_offset(1), 1024u) << "a 252-byte dense buffer, then the swizzled one on the next 1 KiB";
}

// ---- validation and explain ----------------------------------------------------------------------

porter::source_desc desc2d(int es, std::int64_t rows, std::int64_t cols, int box0, int box1, int sw) {
  static std::vector<unsigned char> mem(1 << 20);
  porter::source_desc d;
  d.rank = 2;
  d.elem_bytes = es;
  d.ptr = reinterpret_cast<const void*>((reinterpret_cast<std::uintptr_t>(mem.data()) + 255) & ~std::uintptr_t(255));
  d.extent[0] = rows;
  d.extent[1] = cols;
  d.stride[0] = cols;
  d.stride[1] = 1;
  d.box[0] = box0;
  d.box[1] = box1;
  d.swizzle = sw;
  return d;
}

std::string rule_of(const porter::source_desc& d) {
  try {
    (void)porter::validate_source(d);
  } catch (const porter::error& e) {
    return e.rule();
  }
  return "";
}

TEST(Swizzle, ValidationNamesEachRuleAndAcceptsEveryElementSize) {
  EXPECT_EQ(rule_of(desc2d(2, 256, 256, 64, 64, 128)), "");
  EXPECT_EQ(rule_of(desc2d(2, 256, 256, 64, 64, 96)), "swizzle.mode");
  EXPECT_EQ(rule_of(desc2d(2, 256, 256, 64, 32, 128)), "swizzle.inner_row_is_span") << "a 64-byte row in 128 B mode";
  EXPECT_EQ(rule_of(desc2d(4, 256, 256, 8, 64, 128)), "swizzle.inner_row_is_span") << "a 256-byte row in 128 B mode";
  porter::source_desc one = desc2d(4, 256, 256, 8, 32, 128);
  one.rank = 1;
  one.extent[0] = 4096;
  one.stride[0] = 1;
  one.box[0] = 32;
  EXPECT_EQ(rule_of(one), "swizzle.rank");
  for (int es : {1, 2, 4, 8, 16})
    for (int span : {32, 64, 128}) {
      const porter::support_report r = porter::validate_source(desc2d(es, 64, 4096 / es, 8, span / es, span));
      EXPECT_EQ(r.mask, porter::path_bit(porter::path_id::tma) | porter::path_bit(porter::path_id::cp_async) |
                            porter::path_bit(porter::path_id::staged))
          << es << "-byte elements, " << span << " B mode";
    }
}

TEST(Swizzle, SplitOfTheOutermostDimensionLandsOnTheAtom) {
  // 300 rows of 128 B: unswizzled, 2 copies of 150 rows (19200 B, a multiple of 128); in 128 B mode
  // no equal split of 300 rows lands each copy on 1 KiB, so tma is refused with the rule named.
  const porter::support_report dense = porter::validate_source(desc2d(4, 4096, 32, 300, 32, 0));
  EXPECT_TRUE(dense.supports(porter::path_id::tma));
  EXPECT_EQ(dense.tma_split_rows, 150);
  const porter::support_report sw = porter::validate_source(desc2d(4, 4096, 32, 300, 32, 128));
  EXPECT_FALSE(sw.supports(porter::path_id::tma));
  bool named = false;
  for (const auto& v : sw.refusals) named = named || (v.path == porter::path_id::tma && v.rule == "tma.split_alignment");
  EXPECT_TRUE(named);
  EXPECT_TRUE(sw.supports(porter::path_id::cp_async) && sw.supports(porter::path_id::staged));
  // 512 rows of 128 B in 128 B mode: 2 copies of 256 rows, each 32 KiB.
  const porter::support_report ok = porter::validate_source(desc2d(4, 4096, 32, 512, 32, 128));
  EXPECT_TRUE(ok.supports(porter::path_id::tma));
  EXPECT_EQ(ok.tma_split_rows, 256);
}

TEST(Swizzle, ReportsAreInternedPerSwizzleMode) {
  const porter::source_desc a = desc2d(4, 256, 256, 300, 32, 0), b = desc2d(4, 256, 256, 300, 32, 128);
  EXPECT_NE(&porter::detail::report_for(a), &porter::detail::report_for(b));
  EXPECT_EQ(&porter::detail::report_for(b), &porter::detail::report_for(b));
}

TEST(Swizzle, ExplainNamesTheMode) {
  const std::string s = porter::explain(desc2d(2, 256, 256, 64, 64, 128), nullptr);
  EXPECT_NE(s.find("128 B swizzle"), std::string::npos) << s;
  EXPECT_EQ(porter::explain(desc2d(2, 256, 256, 64, 64, 0), nullptr).find("swizzle"), std::string::npos);
}

TEST(Swizzle, TypedSourceCarriesTheModeIntoItsDescription) {
  using B = swizzled<box<std::uint16_t, 16, 32>, swizzle::b64>;
  static std::vector<std::uint16_t> mem(64 * 1024);
  const std::int64_t ext[2] = {100, 200};
  const porter::tiled_source<B> s = porter::make_tiled_source<B>(mem.data(), ext);
  EXPECT_EQ(s.desc().swizzle, 64);
  EXPECT_NE(porter::explain(s).find("64 B swizzle"), std::string::npos);
}

// ---- the tensor map's arguments ------------------------------------------------------------------

TEST(Swizzle, TensorMapIsEncodedWithTheMode) {
#if PORTER_HIP
  GTEST_SKIP() << "a HIP build encodes no tensor maps";
#else
  // CU_TENSOR_MAP_SWIZZLE_NONE / 32B / 64B / 128B are 0..3 in cuda.h.
  const int want[] = {0, 1, 2, 3};
  const int spans[] = {0, 32, 64, 128};
  for (int i = 0; i < 4; ++i) {
    const int span = spans[i] ? spans[i] : 64;
    const porter::source_desc d = desc2d(2, 300, 1000, 40, span / 2, spans[i]);
    const porter::detail::tensor_map_params t = porter::detail::tensor_map_params_for(d, 40);
    EXPECT_EQ(t.swizzle, want[i]) << spans[i];
    EXPECT_EQ(t.rank, 2);
    EXPECT_EQ(t.dims[0], 1000u);
    EXPECT_EQ(t.dims[1], 300u);
    EXPECT_EQ(t.strides[0], 2000u);
    EXPECT_EQ(t.box[0], unsigned(span / 2));
    EXPECT_EQ(t.box[1], 40u);
  }
  // 16-byte elements: the inner dimension counts 8-byte TMA elements, the swizzle is unchanged.
  porter::source_desc d = desc2d(16, 64, 64, 8, 8, 128);
  const porter::detail::tensor_map_params t = porter::detail::tensor_map_params_for(d, 8);
  EXPECT_EQ(t.box[0], 16u);
  EXPECT_EQ(t.dims[0], 128u);
  EXPECT_EQ(t.swizzle, 3);
#endif
}

}  // namespace
