// tests/device/test_swizzle.cu — swizzled boxes: the bytes that land in shared memory are the
// test's model of the tensor-map swizzle applied to the dense box, on every path (tma swizzles in
// hardware, the others compute swizzled destinations), for every mode x element size 1..16 B, at the
// tensor's edges (random_coord), with pipelines built at base offsets that are not a multiple of the
// swizzle atom (the ring must align itself); and tile_view reads the dense box back through the
// swizzle (for_each_tile cases store through the view).
#include "runners.cuh"

namespace pt = porter_test;

namespace {

struct e8 { std::uint32_t w[2]; };
struct e16 { std::uint32_t w[4]; };

template <class B, porter::swizzle S> using sw = porter::swizzled<B, S>;
constexpr porter::swizzle b32 = porter::swizzle::b32, b64 = porter::swizzle::b64, b128 = porter::swizzle::b128;

template <class P>
class Swizzle : public ::testing::Test {};
TYPED_TEST_SUITE(Swizzle, pt::all_paths, pt::path_names);

TYPED_TEST(Swizzle, mode_128B_every_element_size) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(24, 2)};
  pt::box_cases<TypeParam, 3, sw<porter::box<std::uint8_t, 8, 128>, b128>, 0>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 2, sw<porter::box<std::uint16_t, 16, 64>, b128>, 384>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 3, sw<porter::box<float, 9, 32>, b128>, 128>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 2, sw<porter::box<float, 2, 4, 32>, b128>, 896>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 4, sw<porter::box<e8, 8, 16>, b128>, 512>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 2, sw<porter::box<e16, 5, 8>, b128>, 640>(tt, "swizzle", o);
}

TYPED_TEST(Swizzle, mode_64B_every_element_size) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(24, 2)};
  pt::box_cases<TypeParam, 3, sw<porter::box<std::uint8_t, 12, 64>, b64>, 256>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 2, sw<porter::box<std::uint16_t, 16, 32>, b64>, 0>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 3, sw<porter::box<float, 5, 16>, b64>, 128>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 2, sw<porter::box<e8, 3, 2, 8>, b64>, 384>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 2, sw<porter::box<e16, 6, 4>, b64>, 0>(tt, "swizzle", o);
}

TYPED_TEST(Swizzle, mode_32B_every_element_size) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(24, 2)};
  pt::box_cases<TypeParam, 3, sw<porter::box<std::uint8_t, 8, 32>, b32>, 128>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 2, sw<porter::box<std::uint16_t, 7, 16>, b32>, 0>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 2, sw<porter::box<float, 3, 3, 8>, b32>, 128>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 3, sw<porter::box<e8, 2, 2, 2, 4>, b32>, 0>(tt, "swizzle", o);
  pt::box_cases<TypeParam, 2, sw<porter::box<e16, 8, 2>, b32>, 128>(tt, "swizzle", o);
}

// A box of 512 rows: TMA issues it as 2 copies of 256 rows, each landing on the 1 KiB atom.
TYPED_TEST(Swizzle, split_box_of_512_rows) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, sw<porter::box<float, 512, 32>, b128>, 128>(tt, "swizzle", {pt::cases(8, 1)});
}

// TMA-legal layouts (first element on 256 B, 16-byte strides): on a TMA GPU the tma path runs them.
TYPED_TEST(Swizzle, tma_legal_layouts) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::case_options o{pt::cases(24, 2)};
  o.tma_must_run = true;
  o.geometry = [](std::mt19937_64& rng) {
    const int box[2] = {32, 64};
    return pt::tma_legal_geometry(rng, 2, 2, box);
  };
  pt::box_cases<TypeParam, 4, sw<porter::box<std::uint16_t, 32, 64>, b128>, 256>(tt, "swizzle legal", o);
  o.geometry = [](std::mt19937_64& rng) {
    const int box[3] = {4, 8, 16};
    return pt::tma_legal_geometry(rng, 3, 4, box);
  };
  pt::box_cases<TypeParam, 3, sw<porter::box<float, 4, 8, 16>, b64>, 0>(tt, "swizzle legal", o);
}

// tile_view reads through the swizzle: for_each_tile's body stores the view in dense order.
TYPED_TEST(Swizzle, tile_view_reads_the_dense_box) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(16, 2)};
  pt::for_each_tile_cases<TypeParam, 3, sw<porter::box<std::uint16_t, 64, 64>, b128>>(tt, "swizzle view", o);
  pt::for_each_tile_cases<TypeParam, 2, sw<porter::box<float, 8, 16>, b64>>(tt, "swizzle view", o);
  pt::for_each_tile_cases<TypeParam, 4, sw<porter::box<std::uint8_t, 6, 32>, b32>>(tt, "swizzle view", o);
}

}  // namespace
