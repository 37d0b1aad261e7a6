// tests/device/test_cache_hint.cu — L2 eviction hints (porter::evict_first / evict_last /
// evict_normal, porter/cache_hint.hpp) change no byte that lands, on every path.
//
// The same differential matrix as the unhinted kernels (random layouts around the box, fresh random
// bytes, guards that are never zero, boxes inside, across every edge and far outside, unaligned inner
// coordinates that send tma boxes to the thread-load fallback, prefilled stages, poisoned outputs
// with sentinel guards, trip counts 0 .. 3S+2), with every copy hinted: tma issues
// cp.async.bulk{.tensor}...L2::cache_hint, cp_async cp.async...L2::cache_hint, staged ignores the
// hint (tests/lowering checks the instructions). Ranks 1-3, element sizes 1..16 B, a 128 B-swizzled
// box, byte ranges at every alignment, and a role pipeline (one producer warp, four consumer warps).
#include "runners.cuh"

namespace pt = porter_test;

namespace {

using H = porter::cache_hint;
struct e16 { std::uint32_t w[4]; };
using one_four = porter::roles<porter::warps<1>, porter::warps<4>>;

template <class P>
class CacheHint : public ::testing::Test {};
TYPED_TEST_SUITE(CacheHint, pt::all_paths, pt::path_names);

TYPED_TEST(CacheHint, box2d_f32_evict_first) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, porter::box<float, 8, 32>, 0, 0, H::evict_first>(tt, "hint", {pt::cases(40, 2)});
  pt::box_cases<TypeParam, 1, porter::box<float, 8, 32>, 0, 0, H::evict_last>(tt, "hint", {pt::cases(20, 1)});
}
TYPED_TEST(CacheHint, box3d_u16_evict_last) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, porter::box<std::uint16_t, 3, 6, 16>, 0, 0, H::evict_last>(tt, "hint", {pt::cases(40, 2)});
}
TYPED_TEST(CacheHint, box2d_u8_and_e16_evict_normal) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, porter::box<std::uint8_t, 12, 48>, 0, 0, H::evict_normal>(tt, "hint", {pt::cases(30, 2)});
  pt::box_cases<TypeParam, 4, porter::box<e16, 6, 4>, 0, 0, H::evict_first>(tt, "hint", {pt::cases(30, 2)});
}
TYPED_TEST(CacheHint, box1d_f32_evict_first) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, porter::box<float, 100>, 0, 0, H::evict_first>(tt, "hint 1d", {pt::cases(40, 2)});
  pt::box_cases<TypeParam, 2, porter::box<float, 256>, 0, 0, H::evict_last>(tt, "hint 1d", {pt::cases(30, 2)});
}
// A 128 B-swizzled box, the pipeline 64 bytes past the base of dynamic shared memory.
TYPED_TEST(CacheHint, swizzled_b128_evict_last) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  using B = porter::swizzled<porter::box<std::uint16_t, 16, 64>, porter::swizzle::b128>;
  pt::box_cases<TypeParam, 2, B, 64, 0, H::evict_last>(tt, "hint swizzle", {pt::cases(40, 2)});
}
TYPED_TEST(CacheHint, bytes_every_alignment) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::bytes_cases<TypeParam, 2, H::evict_first>(tt, "hint bytes", pt::cases(120, 6));
  pt::bytes_cases<TypeParam, 1, H::evict_last>(tt, "hint bytes", pt::cases(60, 3));
}
TYPED_TEST(CacheHint, role_pipeline_evict_first) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::run_tile_cases(tt, "hint roles", {pt::cases(30, 2)},
                     pt::role_kernel_under_test<TypeParam, one_four, 3, porter::box<float, 8, 32>, H::evict_first>());
}

}  // namespace
