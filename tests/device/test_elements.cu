// tests/device/test_elements.cu — element sizes 1, 2, 8 and 16 bytes (4 is in test_stages.cu), box
// rows that are not multiples of 16 bytes, and a row pitch of 2002 B.
#include "runners.cuh"

namespace pt = porter_test;

namespace {

struct e8 { std::uint32_t w[2]; };   // 8-byte element, 4-byte aligned
struct e16 { std::uint32_t w[4]; };  // 16-byte element (TMA moves it as two 8-byte elements)

template <class P>
class ElementSize : public ::testing::Test {};
TYPED_TEST_SUITE(ElementSize, pt::all_paths, pt::path_names);

TYPED_TEST(ElementSize, u8) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, porter::box<std::uint8_t, 8, 64>>(tt, "element", {pt::cases(40, 2)});
}
TYPED_TEST(ElementSize, u16) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, porter::box<std::uint16_t, 8, 32>>(tt, "element", {pt::cases(40, 2)});
}
TYPED_TEST(ElementSize, b8) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, porter::box<e8, 8, 8>>(tt, "element", {pt::cases(40, 2)});
}
TYPED_TEST(ElementSize, b16) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, porter::box<e16, 4, 8>>(tt, "element", {pt::cases(40, 2)});
}

// Box rows of 13 B (no path but staged can read them: tma needs 16-byte rows, cp.async 4-byte
// granules) and 12 B (cp.async with 4-byte chunks; tma refused).
TYPED_TEST(ElementSize, u8_rows_of_13_bytes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::case_options o{pt::cases(40, 2)};
  o.tma_rule = "tma.inner_box_multiple_of_16";
  pt::box_cases<TypeParam, 2, porter::box<std::uint8_t, 5, 13>>(tt, "odd rows", o);
}
TYPED_TEST(ElementSize, u16_rows_of_12_bytes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::case_options o{pt::cases(40, 2)};
  o.tma_rule = "tma.inner_box_multiple_of_16";
  pt::box_cases<TypeParam, 2, porter::box<std::uint16_t, 7, 6>>(tt, "odd rows", o);
}

// A row pitch of 2002 B (uint16, 1001 elements): neither tma (not a multiple of 16) nor cp.async (not
// a multiple of 4) can read it; staged must, and automatic must fall back to it.
TYPED_TEST(ElementSize, u16_row_pitch_2002_bytes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::case_options o{pt::cases(10, 1)};
  o.geometry = [](std::mt19937_64& rng) {
    pt::geometry g;
    g.rank = 2;
    g.es = 2;
    g.box[0] = 8;
    g.box[1] = 32;
    g.extent[0] = 1 + std::int64_t(rng() % 40);
    g.extent[1] = 1001 - std::int64_t(rng() % 40);
    g.stride[0] = 1001;
    g.stride[1] = 1;
    g.offset = 0;
    return g;
  };
  o.tma_rule = "tma.stride_multiple_of_16";
  pt::box_cases<TypeParam, 3, porter::box<std::uint16_t, 8, 32>>(tt, "pitch 2002 B", o);
}

}  // namespace
