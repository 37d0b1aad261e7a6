// tests/device/test_roles_counters.cu — the staged role protocol on shared-memory phase counters
// (porter/ptx/smem_counter.hpp), the form it takes on sm_75, run on the GPU at hand.
//
// Built as a program of its own with PORTER_STAGED_ROLE_COUNTERS=1 (tests/device/CMakeLists.txt): there
// the staged role pipeline completes FULL and EMPTY on 32-bit counters (atom.release add per arrival,
// a polled ld.acquire per wait) instead of mbarriers, so a GPU that has mbarriers runs the sm_75
// protocol. The cases are test_roles.cu's matrix on path staged: random layouts, boxes at the edges,
// poisoned outputs with guards, prefilled stages (the producers' own stores), trip counts 0 .. 3S+2
// per CTA, role shapes from 1 + 1 to 4 + 8 warps, depths 1..6, element sizes 1..16 B, ranks 1..3 and
// a 128 B-swizzled box; sync_role is not used by these kernels.
#include "runners.cuh"

namespace pt = porter_test;

namespace {

static_assert(PORTER_STAGED_ROLE_COUNTERS == 1, "this program tests the counter form (tests/device/CMakeLists.txt)");

using f32_box = porter::box<float, 8, 32>;
using one_four = porter::roles<porter::warps<1>, porter::warps<4>>;
using one_one = porter::roles<porter::warps<1>, porter::warps<1>>;
using two_two = porter::roles<porter::warps<2>, porter::warps<2>>;
using wg_regs = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>, porter::registers<40, 232>>;

struct e8 { std::uint32_t w[2]; };
struct e16 { std::uint32_t w[4]; };

template <class Roles, int S, class Box>
void role_cases(pt::test_tally& tt, const std::string& list, const pt::case_options& opt) {
  pt::run_tile_cases(tt, list, opt, pt::role_kernel_under_test<porter::path::staged, Roles, S, Box>());
}

TEST(RoleCounters, staged_one_producer_warp_four_consumer_warps_depths_1_to_6) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::staged);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(30, 2)};
  role_cases<one_four, 1, f32_box>(tt, "counter roles 1+4", o);
  role_cases<one_four, 2, f32_box>(tt, "counter roles 1+4", o);
  role_cases<one_four, 3, f32_box>(tt, "counter roles 1+4", o);
  role_cases<one_four, 4, f32_box>(tt, "counter roles 1+4", o);
  role_cases<one_four, 5, f32_box>(tt, "counter roles 1+4", o);
  role_cases<one_four, 6, f32_box>(tt, "counter roles 1+4", o);
}

TEST(RoleCounters, staged_role_shapes) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::staged);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(30, 2)};
  role_cases<one_one, 2, f32_box>(tt, "counter roles 1+1", o);
  role_cases<two_two, 3, f32_box>(tt, "counter roles 2+2", o);
  role_cases<wg_regs, 4, f32_box>(tt, "counter roles wg1+wg2 registers", o);
  role_cases<porter::roles<porter::warps<4>, porter::warps<8>>, 2, f32_box>(tt, "counter roles 4+8", o);
}

TEST(RoleCounters, staged_element_sizes_ranks_and_swizzle) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::staged);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(24, 2)};
  role_cases<one_four, 3, porter::box<std::uint8_t, 6, 64>>(tt, "counter roles elements", o);
  role_cases<one_four, 3, porter::box<std::uint16_t, 2, 5, 24>>(tt, "counter roles elements", o);
  role_cases<two_two, 2, porter::box<e8, 7, 8>>(tt, "counter roles elements", o);
  role_cases<one_four, 4, porter::box<e16, 3, 8>>(tt, "counter roles elements", o);
  role_cases<one_four, 3, porter::box<float, 1000>>(tt, "counter roles 1d", o);
  role_cases<one_four, 3, porter::swizzled<porter::box<std::uint16_t, 16, 64>, porter::swizzle::b128>>(tt, "counter roles swizzle", o);
}

}  // namespace
