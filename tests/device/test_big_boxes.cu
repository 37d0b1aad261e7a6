// tests/device/test_big_boxes.cu — box dimensions at and above TMA's 256.
//   300 x 256 (u8): innermost exactly 256; outermost 300 > 256, which tma splits into 2 copies of 150.
//   257 x 8 (u16):  outermost 257 (prime) > 256: tma splits it into 257 copies of 1 row.
//   4 x 272 (u8):   innermost 272 > 256: tma refuses it (rule tma.box_dim_range); other paths run.
#include "runners.cuh"

namespace pt = porter_test;

namespace {

using box_300x256 = porter::box<std::uint8_t, 300, 256>;
using box_257x8 = porter::box<std::uint16_t, 257, 8>;
using box_4x272 = porter::box<std::uint8_t, 4, 272>;

template <class Box>
pt::geometry_fn tma_legal() {
  return [](std::mt19937_64& rng) { return pt::tma_legal_geometry(rng, Box::rank, int(sizeof(typename Box::element_type)), Box::dims); };
}

template <class P>
class BigBox : public ::testing::Test {};
TYPED_TEST_SUITE(BigBox, pt::all_paths, pt::path_names);

TYPED_TEST(BigBox, outer_300_split_inner_256) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::case_options legal{pt::cases(6, 1), tma_legal<box_300x256>(), "", true};
  pt::box_cases<TypeParam, 2, box_300x256>(tt, "big legal", legal);
  pt::box_cases<TypeParam, 2, box_300x256>(tt, "big", {pt::cases(6, 0)});
}
// 257 rows of 16 B: TMA could only split into single rows, which would land on 16-byte (not
// 128-byte) boundaries, so TMA must refuse (tma.split_alignment) and the other paths must copy it.
TYPED_TEST(BigBox, outer_257_rows_of_16_bytes_refused_by_tma) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::case_options o{pt::cases(8, 1), tma_legal<box_257x8>(), "tma.split_alignment"};
  pt::box_cases<TypeParam, 2, box_257x8>(tt, "big 257", o);
  pt::box_cases<TypeParam, 2, box_257x8>(tt, "big", {pt::cases(8, 0)});
}
TYPED_TEST(BigBox, inner_272_refused_by_tma) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::case_options o{pt::cases(16, 1), tma_legal<box_4x272>(), "tma.box_dim_range"};
  pt::box_cases<TypeParam, 3, box_4x272>(tt, "big inner", o);
}

}  // namespace
