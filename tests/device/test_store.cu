// tests/device/test_store.cu — async_store and async_reduce on every path: tiles of every rank and
// element size, swizzled and not, at every edge of tensors with unaligned pitches and first elements
// (random_geometry), TMA-legal layouts (the bulk tensor store runs), byte ranges with unaligned heads
// and tails, and reductions (add on f32, s32, u32, u64; min and max on s32, u32) checked against the
// CPU model over the whole destination allocation (store_harness.hpp).
#include "store_kernels.cuh"

namespace pt = porter_test;

namespace {

struct e8 { std::uint32_t w[2]; };
struct e16 { std::uint32_t w[4]; };
template <class B, porter::swizzle S> using sw = porter::swizzled<B, S>;

pt::case_options legal(int rank, int es, std::initializer_list<int> box, int n) {
  pt::case_options o{n};
  o.tma_must_run = true;
  std::vector<int> b(box);
  o.geometry = [rank, es, b](std::mt19937_64& rng) { return pt::tma_legal_geometry(rng, rank, es, b.data()); };
  return o;
}

template <class P>
class Store : public ::testing::Test {};
TYPED_TEST_SUITE(Store, pt::all_paths, pt::path_names);

TYPED_TEST(Store, boxes_of_every_rank_and_element_size) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(24, 2)};
  pt::store_cases<TypeParam, porter::box<float, 200>>(tt, "store", o);
  pt::store_cases<TypeParam, porter::box<std::uint8_t, 5, 40>>(tt, "store", o);
  pt::store_cases<TypeParam, porter::box<std::uint16_t, 16, 32>>(tt, "store", o);
  pt::store_cases<TypeParam, porter::box<float, 8, 64>>(tt, "store", o);
  pt::store_cases<TypeParam, porter::box<e8, 3, 4, 8>>(tt, "store", o);
  pt::store_cases<TypeParam, porter::box<e16, 2, 3, 2, 4>>(tt, "store", o);
  pt::store_cases<TypeParam, porter::box<float, 2, 2, 2, 3, 16>>(tt, "store", o);
  pt::store_cases<TypeParam, porter::box<std::uint16_t, 7, 6>>(tt, "store", o);  // 12-byte rows: no TMA
}

TYPED_TEST(Store, swizzled_boxes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(24, 2)};
  pt::store_cases<TypeParam, sw<porter::box<std::uint16_t, 16, 64>, porter::swizzle::b128>>(tt, "store", o);
  pt::store_cases<TypeParam, sw<porter::box<float, 6, 16>, porter::swizzle::b64>>(tt, "store", o);
  pt::store_cases<TypeParam, sw<porter::box<std::uint8_t, 3, 4, 32>, porter::swizzle::b32>>(tt, "store", o);
  pt::store_cases<TypeParam, sw<porter::box<e16, 8, 8>, porter::swizzle::b128>>(tt, "store", o);
}

TYPED_TEST(Store, tma_legal_layouts) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::store_cases<TypeParam, porter::box<float, 16, 32>>(tt, "store legal", legal(2, 4, {16, 32}, pt::cases(24, 2)));
  pt::store_cases<TypeParam, sw<porter::box<std::uint16_t, 32, 64>, porter::swizzle::b128>>(tt, "store legal",
                                                                                          legal(2, 2, {32, 64}, pt::cases(24, 2)));
  pt::store_cases<TypeParam, porter::box<std::uint8_t, 4, 8, 48>>(tt, "store legal", legal(3, 1, {4, 8, 48}, pt::cases(16, 2)));
  pt::store_cases<TypeParam, porter::box<float, 300, 32>>(tt, "store legal split", legal(2, 4, {300, 32}, pt::cases(8, 1)));
}

TYPED_TEST(Store, byte_ranges) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::store_bytes_cases<TypeParam>(tt, "bytes", pt::cases(12, 2));
}

TYPED_TEST(Store, reductions) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  const pt::case_options o{pt::cases(16, 2)};
  using pt::store_mode;
  pt::store_cases<TypeParam, porter::box<float, 8, 32>, store_mode::add>(tt, "reduce", o);
  pt::store_cases<TypeParam, porter::box<float, 256>, store_mode::add>(tt, "reduce", o);
  pt::store_cases<TypeParam, porter::box<std::int32_t, 4, 4, 16>, store_mode::add>(tt, "reduce", o);
  pt::store_cases<TypeParam, porter::box<std::int32_t, 8, 16>, store_mode::min>(tt, "reduce", o);
  pt::store_cases<TypeParam, porter::box<std::int32_t, 100>, store_mode::max>(tt, "reduce", o);
  pt::store_cases<TypeParam, porter::box<std::uint32_t, 8, 16>, store_mode::max>(tt, "reduce", o);
  pt::store_cases<TypeParam, porter::box<std::uint32_t, 5, 12>, store_mode::min>(tt, "reduce", o);
  pt::store_cases<TypeParam, porter::box<unsigned long long, 8, 8>, store_mode::add>(tt, "reduce", o);
  pt::store_cases<TypeParam, sw<porter::box<float, 8, 32>, porter::swizzle::b128>, store_mode::add>(tt, "reduce", o);
  pt::store_cases<TypeParam, porter::box<float, 16, 32>, store_mode::add>(tt, "reduce legal", legal(2, 4, {16, 32}, pt::cases(16, 2)));
  pt::store_cases<TypeParam, porter::box<std::int32_t, 16, 32>, store_mode::min>(tt, "reduce legal", legal(2, 4, {16, 32}, pt::cases(16, 2)));
}

}  // namespace
