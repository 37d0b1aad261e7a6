// tests/device/test_roles_counters.cu — the staged role protocol on shared-memory phase counters
// (porter/ptx/smem_counter.hpp), the form it takes on sm_75, run on the GPU at hand.
//
// Built as a program of its own with PORTER_STAGED_ROLE_COUNTERS=1 (tests/device/CMakeLists.txt): there
// the staged role pipeline completes FULL and EMPTY on 32-bit counters (atom.release add per arrival,
// a polled ld.acquire per wait) instead of mbarriers, so a GPU that has mbarriers runs the sm_75
// protocol. The cases are test_roles.cu's matrix (role_matrix.cuh) on path staged: random layouts, boxes at the edges,
// poisoned outputs with guards, prefilled stages (the producers' own stores), trip counts 0 .. 3S+2
// per CTA, role shapes from 1 + 1 to 4 + 8 warps, depths 1..6, element sizes 1..16 B, ranks 1..3 and
// a 128 B-swizzled box; sync_role is not used by these kernels.
#include "role_matrix.cuh"

namespace pt = porter_test;
namespace rm = porter_test::role_matrix;

namespace {

static_assert(PORTER_STAGED_ROLE_COUNTERS == 1, "this program tests the counter form (tests/device/CMakeLists.txt)");

TEST(RoleCounters, staged_one_producer_warp_four_consumer_warps_depths_1_to_6) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::staged);
  pt::test_tally tt;
  rm::depths_1_to_6<porter::path::staged>(tt, "counter ");
}

TEST(RoleCounters, staged_role_shapes) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::staged);
  pt::test_tally tt;
  rm::shapes<porter::path::staged>(tt, "counter ");
  // 12 warps: a phase of 256 consumer arrivals on one counter word.
  rm::role_cases<porter::path::staged, porter::roles<porter::warps<4>, porter::warps<8>>, 2, rm::f32_box>(
      tt, "counter roles 4+8", pt::case_options{pt::cases(30, 2)});
}

TEST(RoleCounters, staged_element_sizes_ranks_and_swizzle) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::staged);
  pt::test_tally tt;
  rm::elements_ranks_and_swizzle<porter::path::staged>(tt, "counter ");
}

}  // namespace
