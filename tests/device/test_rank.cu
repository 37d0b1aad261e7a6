// tests/device/test_rank.cu — 3D, 4D and 5D boxes crossing every edge of their tensors.
#include "runners.cuh"

namespace pt = porter_test;

namespace {

template <class P>
class Rank : public ::testing::Test {};
TYPED_TEST_SUITE(Rank, pt::all_paths, pt::path_names);

TYPED_TEST(Rank, r3_f32) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, porter::box<float, 4, 6, 8>>(tt, "rank", {pt::cases(40, 2)});
}
// Middle box dimension 260 > 256: tma cannot split it (only the outermost), so it refuses.
TYPED_TEST(Rank, r3_u8_middle_260_refused_by_tma) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  using B = porter::box<std::uint8_t, 2, 260, 16>;
  pt::test_tally tt;
  pt::case_options o{pt::cases(16, 1)};
  o.geometry = [](std::mt19937_64& rng) { return pt::tma_legal_geometry(rng, B::rank, 1, B::dims); };
  o.tma_rule = "tma.box_dim_range";
  pt::box_cases<TypeParam, 2, B>(tt, "rank middle", o);
}
TYPED_TEST(Rank, r4_u16) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, porter::box<std::uint16_t, 2, 3, 4, 8>>(tt, "rank", {pt::cases(40, 2)});
}
TYPED_TEST(Rank, r5_f32) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, porter::box<float, 2, 2, 3, 2, 4>>(tt, "rank", {pt::cases(40, 2)});
}

}  // namespace
