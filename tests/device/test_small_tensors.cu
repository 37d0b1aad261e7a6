// tests/device/test_small_tensors.cu — problems smaller than one tile: tensors whose extent is below
// the box in every dimension, ranks 2 to 5, forced through every path and bit-exact against the CPU
// reference (the elements outside the tensor read as zero; outputs poisoned, guards checked).
//
// These are the H200 evidence for dropping the rule tma.box_within_extent: the layouts are
// TMA-legal apart from the box size (tma_must_run), so on a TMA GPU the tma instantiation must be
// allowed and must land every byte. If the hardware refused such boxes, the tma cases here would
// fail (a launch error, or wrong bytes) and the rule would come back with the measured reason.
#include "runners.cuh"

namespace pt = porter_test;

namespace {

template <class Box>
pt::case_options smaller(int full, int sanitizer) {
  pt::case_options o{pt::cases(full, sanitizer)};
  o.geometry = [](std::mt19937_64& rng) { return pt::smaller_than_box_geometry(rng, Box::rank, int(sizeof(typename Box::element_type)), Box::dims); };
  o.tma_must_run = true;
  return o;
}

template <class P>
class SmallTensor : public ::testing::Test {};
TYPED_TEST_SUITE(SmallTensor, pt::all_paths, pt::path_names);

// 1..7 rows of 1..31 floats (4 to 124 B per row, below TMA's 16-byte multiple for most) under 8 x 32 boxes.
TYPED_TEST(SmallTensor, r2_f32_box_8x32) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, porter::box<float, 8, 32>>(tt, "small", smaller<porter::box<float, 8, 32>>(40, 3));
}
TYPED_TEST(SmallTensor, r3_u16_box_4x6x16) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, porter::box<std::uint16_t, 4, 6, 16>>(tt, "small", smaller<porter::box<std::uint16_t, 4, 6, 16>>(40, 3));
}
TYPED_TEST(SmallTensor, r4_u8_box_2x3x4x32) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, porter::box<std::uint8_t, 2, 3, 4, 32>>(tt, "small", smaller<porter::box<std::uint8_t, 2, 3, 4, 32>>(40, 3));
}
TYPED_TEST(SmallTensor, r5_f32_box_2x2x3x2x8) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, porter::box<float, 2, 2, 3, 2, 8>>(tt, "small", smaller<porter::box<float, 2, 2, 3, 2, 8>>(40, 3));
}
// The outermost dimension split into 2 TMA copies of 150 rows, over fewer rows than one copy.
TYPED_TEST(SmallTensor, r2_u8_box_300x256_split) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, porter::box<std::uint8_t, 300, 256>>(tt, "small", smaller<porter::box<std::uint8_t, 300, 256>>(8, 1));
}

}  // namespace
