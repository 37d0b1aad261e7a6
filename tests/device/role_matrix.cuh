// tests/device/role_matrix.cuh — the porter::role_pipeline case matrix, shared by test_roles.cu (every
// path, mbarriers) and test_roles_counters.cu (path staged on shared-memory phase counters, a program
// of its own): random layouts, boxes at the tensor's edges, poisoned outputs with guards, prefilled
// stages, trip counts 0 .. 3S+2 per CTA, with CTAs of exactly Roles::threads threads.
#pragma once
#include "runners.cuh"

namespace porter_test::role_matrix {

using f32_box = porter::box<float, 8, 32>;  // 128-byte rows
using one_four = porter::roles<porter::warps<1>, porter::warps<4>>;
using one_one = porter::roles<porter::warps<1>, porter::warps<1>>;
using two_two = porter::roles<porter::warps<2>, porter::warps<2>>;
using wg_regs = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>, porter::registers<40, 232>>;

struct e8 { std::uint32_t w[2]; };
struct e16 { std::uint32_t w[4]; };

template <class Path, class Roles, int S, class Box>
void role_cases(test_tally& tt, const std::string& list, const case_options& opt) {
  run_tile_cases(tt, list, opt, role_kernel_under_test<Path, Roles, S, Box>());
}

/// One producer warp and four consumer warps, depths 1..6.
template <class Path>
void depths_1_to_6(test_tally& tt, const std::string& prefix) {
  const case_options o{cases(30, 2)};
  role_cases<Path, one_four, 1, f32_box>(tt, prefix + "roles 1+4", o);
  role_cases<Path, one_four, 2, f32_box>(tt, prefix + "roles 1+4", o);
  role_cases<Path, one_four, 3, f32_box>(tt, prefix + "roles 1+4", o);
  role_cases<Path, one_four, 4, f32_box>(tt, prefix + "roles 1+4", o);
  role_cases<Path, one_four, 5, f32_box>(tt, prefix + "roles 1+4", o);
  role_cases<Path, one_four, 6, f32_box>(tt, prefix + "roles 1+4", o);
}

/// One producer and one consumer warp, two and two, and warpgroups with a register request.
template <class Path>
void shapes(test_tally& tt, const std::string& prefix) {
  const case_options o{cases(30, 2)};
  role_cases<Path, one_one, 2, f32_box>(tt, prefix + "roles 1+1", o);
  role_cases<Path, two_two, 3, f32_box>(tt, prefix + "roles 2+2", o);
  role_cases<Path, wg_regs, 4, f32_box>(tt, prefix + "roles wg1+wg2 registers", o);
}

/// Element sizes 1..16 B, ranks 1..3 and a 128 B-swizzled box.
template <class Path>
void elements_ranks_and_swizzle(test_tally& tt, const std::string& prefix) {
  const case_options o{cases(24, 2)};
  role_cases<Path, one_four, 3, porter::box<std::uint8_t, 6, 64>>(tt, prefix + "roles elements", o);
  role_cases<Path, one_four, 3, porter::box<std::uint16_t, 2, 5, 24>>(tt, prefix + "roles elements", o);
  role_cases<Path, two_two, 2, porter::box<e8, 7, 8>>(tt, prefix + "roles elements", o);
  role_cases<Path, one_four, 4, porter::box<e16, 3, 8>>(tt, prefix + "roles elements", o);
  role_cases<Path, one_four, 3, porter::box<float, 1000>>(tt, prefix + "roles 1d", o);
  role_cases<Path, one_four, 3, porter::swizzled<porter::box<std::uint16_t, 16, 64>, porter::swizzle::b128>>(tt, prefix + "roles swizzle", o);
}

}  // namespace porter_test::role_matrix
