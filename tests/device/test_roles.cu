// tests/device/test_roles.cu — porter::role_pipeline: producer warps copy, consumer warps read,
// stages complete on FULL / EMPTY mbarriers (no CTA barrier after construction), on every path.
//
// The same differential matrix as the CTA-collective kernels (random layouts, boxes at the
// tensor's edges, poisoned outputs with guards, prefilled stages, trip counts 0 .. 3S+2 per CTA),
// with CTAs of exactly Roles::threads threads: one producer warp and 1 or 4 consumer warps, several
// producer warps, warpgroups with a register request, depths 1..6, element sizes 1..16 B, ranks
// 1..3 and a 128 B-swizzled box. Random inner coordinates send some tma boxes to the producers'
// thread-load fallback, whose stores each producer publishes with its own arrival (no barrier).
#include "role_matrix.cuh"

namespace pt = porter_test;
namespace rm = porter_test::role_matrix;

namespace {

template <class P>
class Roles : public ::testing::Test {};
TYPED_TEST_SUITE(Roles, pt::all_paths, pt::path_names);

TYPED_TEST(Roles, one_producer_warp_four_consumer_warps_depths_1_to_6) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  rm::depths_1_to_6<TypeParam>(tt, "");
}

TYPED_TEST(Roles, role_shapes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  rm::shapes<TypeParam>(tt, "");
}

TYPED_TEST(Roles, element_sizes_ranks_and_swizzle) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  rm::elements_ranks_and_swizzle<TypeParam>(tt, "");
}

}  // namespace
