// tests/device/test_schedule.cu — porter::for_each_tile over a porter::tile_schedule: one tile per
// CTA, several tiles per CTA, and the persistent round-robin. Every tile must land in its own slot,
// byte for byte, whichever CTA ran it, on every path and at depths 1 and 3. The *_coordinate tests
// use bodies that take the box coordinate (body(tile, t, at)): a tile is stored only when `at` is
// the coordinate the schedule asked for at that step, so a wrong one shows as a mismatch.
#include <porter/planner.hpp>

#include "runners.cuh"

namespace pt = porter_test;

namespace {

using f32_box = porter::box<float, 8, 32>;
using u8_box = porter::box<unsigned char, 4, 3, 48>;

template <class P>
class Schedules : public ::testing::Test {};
TYPED_TEST_SUITE(Schedules, pt::all_paths, pt::path_names);

TYPED_TEST(Schedules, one_tile_per_cta) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::run_tile_cases(tt, "sched1", {pt::cases(24, 3)}, pt::schedule_kernel_under_test<TypeParam, 1, f32_box>(1, 0));
  pt::run_tile_cases(tt, "sched1", {pt::cases(24, 3)}, pt::schedule_kernel_under_test<TypeParam, 3, f32_box>(1, 0));
}
TYPED_TEST(Schedules, three_tiles_per_cta) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::run_tile_cases(tt, "sched3", {pt::cases(24, 3)}, pt::schedule_kernel_under_test<TypeParam, 3, f32_box>(3, 0));
  pt::run_tile_cases(tt, "sched3", {pt::cases(24, 3)}, pt::schedule_kernel_under_test<TypeParam, 3, u8_box>(3, 0));
}
TYPED_TEST(Schedules, persistent_round_robin) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::run_tile_cases(tt, "schedp", {pt::cases(24, 3)}, pt::schedule_kernel_under_test<TypeParam, 3, f32_box>(0, 5));
  pt::run_tile_cases(tt, "schedp", {pt::cases(24, 3)}, pt::schedule_kernel_under_test<TypeParam, 1, u8_box>(0, 2));
}

TYPED_TEST(Schedules, body_receives_coordinate_count_form) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::run_tile_cases(tt, "coord", {pt::cases(16, 2)}, pt::for_each_tile_kernel_under_test<TypeParam, 1, f32_box, true>());
  pt::run_tile_cases(tt, "coord", {pt::cases(16, 2)}, pt::for_each_tile_kernel_under_test<TypeParam, 3, u8_box, true>());
}
TYPED_TEST(Schedules, body_receives_coordinate_blocked_and_persistent) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::run_tile_cases(tt, "coord1", {pt::cases(16, 2)}, pt::schedule_kernel_under_test<TypeParam, 3, f32_box, true>(1, 0));
  pt::run_tile_cases(tt, "coord3", {pt::cases(16, 2)}, pt::schedule_kernel_under_test<TypeParam, 2, u8_box, true>(3, 0));
  pt::run_tile_cases(tt, "coordp", {pt::cases(16, 2)}, pt::schedule_kernel_under_test<TypeParam, 3, f32_box, true>(0, 5));
}

}  // namespace
