// tests/device/test_roles.cu — porter::role_pipeline: producer warps copy, consumer warps read,
// stages complete on FULL / EMPTY mbarriers (no CTA barrier after construction), on every path.
//
// The same differential matrix as the CTA-collective kernels (random layouts, boxes at the
// tensor's edges, poisoned outputs with guards, prefilled stages, trip counts 0 .. 3S+2 per CTA),
// with CTAs of exactly Roles::threads threads: one producer warp and 1 or 4 consumer warps, several
// producer warps, warpgroups with a register request, depths 1..6, element sizes 1..16 B, ranks
// 1..3 and a 128 B-swizzled box. Random inner coordinates send some tma boxes to the producers'
// thread-load fallback, whose stores each producer publishes with its own arrival (no barrier).
#include "runners.cuh"

namespace pt = porter_test;

namespace {

using f32_box = porter::box<float, 8, 32>;  // 128-byte rows
using one_four = porter::roles<porter::warps<1>, porter::warps<4>>;
using one_one = porter::roles<porter::warps<1>, porter::warps<1>>;
using two_two = porter::roles<porter::warps<2>, porter::warps<2>>;
using wg_regs = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>, porter::registers<40, 232>>;

struct e8 { std::uint32_t w[2]; };
struct e16 { std::uint32_t w[4]; };

template <class Path, class Roles, int S, class Box>
void role_cases(pt::test_tally& tt, const std::string& list, const pt::case_options& opt) {
  pt::run_tile_cases(tt, list, opt, pt::role_kernel_under_test<Path, Roles, S, Box>());
}

template <class P>
class Roles : public ::testing::Test {};
TYPED_TEST_SUITE(Roles, pt::all_paths, pt::path_names);

TYPED_TEST(Roles, one_producer_warp_four_consumer_warps_depths_1_to_6) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(30, 2)};
  role_cases<TypeParam, one_four, 1, f32_box>(tt, "roles 1+4", o);
  role_cases<TypeParam, one_four, 2, f32_box>(tt, "roles 1+4", o);
  role_cases<TypeParam, one_four, 3, f32_box>(tt, "roles 1+4", o);
  role_cases<TypeParam, one_four, 4, f32_box>(tt, "roles 1+4", o);
  role_cases<TypeParam, one_four, 5, f32_box>(tt, "roles 1+4", o);
  role_cases<TypeParam, one_four, 6, f32_box>(tt, "roles 1+4", o);
}

TYPED_TEST(Roles, role_shapes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(30, 2)};
  role_cases<TypeParam, one_one, 2, f32_box>(tt, "roles 1+1", o);
  role_cases<TypeParam, two_two, 3, f32_box>(tt, "roles 2+2", o);
  role_cases<TypeParam, wg_regs, 4, f32_box>(tt, "roles wg1+wg2 registers", o);
}

TYPED_TEST(Roles, element_sizes_ranks_and_swizzle) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(24, 2)};
  role_cases<TypeParam, one_four, 3, porter::box<std::uint8_t, 6, 64>>(tt, "roles elements", o);
  role_cases<TypeParam, one_four, 3, porter::box<std::uint16_t, 2, 5, 24>>(tt, "roles elements", o);
  role_cases<TypeParam, two_two, 2, porter::box<e8, 7, 8>>(tt, "roles elements", o);
  role_cases<TypeParam, one_four, 4, porter::box<e16, 3, 8>>(tt, "roles elements", o);
  role_cases<TypeParam, one_four, 3, porter::box<float, 1000>>(tt, "roles 1d", o);
  role_cases<TypeParam, one_four, 3, porter::swizzled<porter::box<std::uint16_t, 16, 64>, porter::swizzle::b128>>(tt, "roles swizzle", o);
}

}  // namespace
