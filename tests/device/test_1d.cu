// tests/device/test_1d.cu — 1D boxes and contiguous byte ranges.
//   Box1D: 1D tiled sources (tma lowers them to cp.async.bulk plus thread loads for the unaligned
//          head/tail and zero stores for the part outside the tensor).
//   Bytes: async_copy(buffer<0>(slot), ptr, n) with n in {0, 1, 3, 4, 12, 15, 16, 17, 40, 64, 132,
//          508, 1024, 2046, 2047, 2048} and source offsets {0, 4, 8, 12, 16, 1, 2, 3, 7, 13} bytes
//          from a 256-byte boundary, every pair, plus random ones.
#include "runners.cuh"

namespace pt = porter_test;

namespace {

template <class P>
class Box1D : public ::testing::Test {};
TYPED_TEST_SUITE(Box1D, pt::all_paths, pt::path_names);

TYPED_TEST(Box1D, f32_100) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, porter::box<float, 100>>(tt, "1d", {pt::cases(40, 2)});
}
// 30-byte boxes: tma refused (not a multiple of 16 B), cp.async refused (2-byte granules).
TYPED_TEST(Box1D, u8_30) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::case_options o{pt::cases(40, 2)};
  o.tma_rule = "tma.inner_box_multiple_of_16";
  o.geometry = [](std::mt19937_64& rng) {
    pt::geometry g = pt::random_geometry(rng, 1, 1, porter::box<std::uint8_t, 30>::dims);
    if (rng() % 2) g.offset = 0;  // refused for the box alone, not the address, half of the time
    return g;
  };
  pt::box_cases<TypeParam, 2, porter::box<std::uint8_t, 30>>(tt, "1d", o);
}

template <class P>
class Bytes : public ::testing::Test {};
TYPED_TEST_SUITE(Bytes, pt::all_paths, pt::path_names);

TYPED_TEST(Bytes, depth_1) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::bytes_cases<TypeParam, 1>(tt, "bytes", pt::cases(40, 3));
}
TYPED_TEST(Bytes, depth_4) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::bytes_cases<TypeParam, 4>(tt, "bytes", pt::cases(40, 3));
}

}  // namespace
