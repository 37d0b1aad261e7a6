// tests/device/test_pair.cu — two sources per stage (pipeline<Path, 3, A, B>, as a GEMM reads A and
// B). Each source has its own layout, so under automatic one
// stage may be filled by two lowerings at once (TMA for one source, cp.async or staged for the other).
#include "runners.cuh"

namespace pt = porter_test;

namespace {

template <class P>
class TwoSources : public ::testing::Test {};
TYPED_TEST_SUITE(TwoSources, pt::all_paths, pt::path_names);

TYPED_TEST(TwoSources, f32_8x32_and_u16_4x8x16) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::run_tile_cases(tt, "pair", {pt::cases(60, 3)},
                     pt::pair_kernel_under_test<TypeParam, 3, porter::box<float, 8, 32>, porter::box<std::uint16_t, 4, 8, 16>>());
}

// Two rings of different depths and shapes (one of them swizzled) and a scratch tile in one
// shared_layout; the consumer writes into the landed stages of ring A (porter::stage_written).
TYPED_TEST(TwoSources, two_rings_in_one_shared_layout) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  using sw = porter::swizzled<porter::box<std::uint16_t, 16, 64>, porter::swizzle::b128>;
  pt::run_tile_cases(tt, "two rings", {pt::cases(40, 3)},
                     pt::two_rings_kernel_under_test<TypeParam, 3, 2, porter::box<float, 8, 32>, sw>());
  pt::run_tile_cases(tt, "two rings", {pt::cases(40, 3)},
                     pt::two_rings_kernel_under_test<TypeParam, 2, 4, porter::box<std::uint8_t, 3, 48>, porter::box<float, 300>>());
}

}  // namespace
