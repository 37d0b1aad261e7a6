// tests/host/tiled_source_forms_test.cpp — every spelling of make_tiled_source builds the same
// source: C arrays (outer strides, every stride, dense), std::array, std::vector, std::span,
// std::initializer_list, a cuda::std::mdspan (layout_right, layout_stride; static and dynamic
// extents) and a pointer plus an mdspan mapping. The strides that reach the source's description
// must equal those of the C-array form; wrong counts and innermost strides other than 1 throw.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>
#if __has_include(<span>) && __cplusplus >= 202002L
#  include <span>
#endif
#if __has_include(<cuda/std/mdspan>)
#  include <cuda/std/mdspan>
#  define PORTER_TEST_HAVE_MDSPAN 1
#endif

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/source.hpp"

namespace {

using porter::box;
using porter_test::Contains;

/// The description (extents, strides, box, pointer) two sources hand to the host core must agree.
template <class B>
void expect_same(const porter::tiled_source<B>& got, const porter::tiled_source<B>& want) {
  const porter::source_desc g = got.desc(), w = want.desc();
  EXPECT_EQ(g.rank, w.rank);
  EXPECT_EQ(g.elem_bytes, w.elem_bytes);
  EXPECT_EQ(g.ptr, w.ptr);
  for (int i = 0; i < g.rank; ++i) {
    EXPECT_EQ(g.extent[i], w.extent[i]) << "extent " << i;
    EXPECT_EQ(g.stride[i], w.stride[i]) << "stride " << i;
    EXPECT_EQ(g.box[i], w.box[i]) << "box " << i;
  }
  EXPECT_EQ(got.supported, want.supported);
  EXPECT_EQ(got.report, want.report);  // interned by layout: the same report object
  EXPECT_EQ(got.tma_split_rows, want.tma_split_rows);
}

using B2 = box<float, 8, 32>;
using B3 = box<std::uint16_t, 2, 4, 16>;
std::vector<float> host2(64 * 200);
std::vector<std::uint16_t> host3(6 * 40 * 104);

TEST(TiledSourceForms, EveryStrideCArrayEqualsOuterStrides) {
  const auto want = porter::make_tiled_source<B2>(host2.data(), {64, 100}, {200});
  expect_same(porter::make_tiled_source<B2>(host2.data(), {64, 100}, {200, 1}), want);
  const auto want3 = porter::make_tiled_source<B3>(host3.data(), {6, 40, 100}, {40 * 104, 104});
  expect_same(porter::make_tiled_source<B3>(host3.data(), {6, 40, 100}, {40 * 104, 104, 1}), want3);
}

TEST(TiledSourceForms, StdArrayVectorAndInitializerList) {
  const auto want = porter::make_tiled_source<B2>(host2.data(), {64, 100}, {200});
  const std::array<std::int64_t, 2> ext{64, 100};
  const std::array<std::int64_t, 1> outer{200};
  const std::array<int, 2> every{200, 1};  // any integral type
  expect_same(porter::make_tiled_source<B2>(host2.data(), ext, outer), want);
  expect_same(porter::make_tiled_source<B2>(host2.data(), ext, every), want);
  const std::vector<long> vext{64, 100}, vstr{200, 1};
  expect_same(porter::make_tiled_source<B2>(host2.data(), vext, vstr), want);
  const std::initializer_list<std::int64_t> il_e{64, 100}, il_s{200};
  expect_same(porter::make_tiled_source<B2>(host2.data(), il_e, il_s, B2{}), want);
  // Dense from a container.
  expect_same(porter::make_tiled_source<B2>(host2.data(), std::array<unsigned, 2>{64, 100}),
              porter::make_tiled_source<B2>(host2.data(), {64, 100}));
}

#if defined(__cpp_lib_span)
TEST(TiledSourceForms, StdSpan) {
  const std::int64_t e[2] = {64, 100}, s[2] = {200, 1};
  expect_same(porter::make_tiled_source<B2>(host2.data(), std::span<const std::int64_t>(e), std::span<const std::int64_t, 2>(s)),
              porter::make_tiled_source<B2>(host2.data(), {64, 100}, {200}));
}
#else
TEST(TiledSourceForms, StdSpan) {
  GTEST_SKIP() << "std::span needs C++20; porter builds its tests as C++17 (the std::vector and std::array forms take the same path)";
}
#endif

TEST(TiledSourceForms, WrongCountsAndInnerStridesThrowWithASentence) {
  const std::vector<std::int64_t> three{1, 2, 3}, two{200, 2}, four{1, 2, 3, 4};
  auto e = porter_test::thrown([&] { porter::make_tiled_source<B2>(host2.data(), three, std::vector<int>{200}); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), porter::errc::invalid_argument);
  EXPECT_EQ(e->rule(), "source.extent_count");
  EXPECT_TRUE(Contains(e->what(), "3 extents were given for a box of rank 2"));
  e = porter_test::thrown([&] { porter::make_tiled_source<B2>(host2.data(), std::vector<int>{64, 100}, four); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "source.stride_count");
  EXPECT_TRUE(Contains(e->what(), "4 strides were given for a box of rank 2; give 1 (the outer dimensions) or 2"));
  // Innermost stride 2 (C array, container): refused, naming the value.
  e = porter_test::thrown([&] { porter::make_tiled_source<B2>(host2.data(), {64, 100}, {200, 2}); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), porter::errc::invalid_argument);
  EXPECT_EQ(e->rule(), "source.inner_contiguous");
  EXPECT_TRUE(Contains(e->what(), "the innermost stride is 2 elements; the innermost dimension must be contiguous (stride 1)"));
  e = porter_test::thrown([&] { porter::make_tiled_source<B2>(host2.data(), std::vector<int>{64, 100}, two); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "source.inner_contiguous");
  e = porter_test::thrown([&] { porter::make_tiled_source<B2>(host2.data(), {64, 100}, {200, 0}); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "source.stride_positive");
  EXPECT_TRUE(Contains(e->what(), "stride of dimension 1 is 0 elements"));
}

TEST(TiledSourceForms, RankOneTakesZeroOrOneStride) {
  using B1 = box<float, 64>;
  const auto want = porter::make_tiled_source<B1>(host2.data(), {1000});
  expect_same(porter::make_tiled_source<B1>(host2.data(), std::vector<int>{1000}, std::vector<int>{1}), want);
  expect_same(porter::make_tiled_source<B1>(host2.data(), std::vector<int>{1000}, std::vector<int>{}), want);
  const auto e = porter_test::thrown([&] { porter::make_tiled_source<B1>(host2.data(), std::vector<int>{1000}, std::vector<int>{3}); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "source.inner_contiguous");
}

#if PORTER_TEST_HAVE_MDSPAN
namespace md = cuda::std;

TEST(TiledSourceForms, MdspanLayoutRightDynamicAndStaticExtents) {
  const auto want = porter::make_tiled_source<B2>(host2.data(), {64, 200});
  md::mdspan<float, md::dextents<int, 2>> dyn(host2.data(), 64, 200);
  expect_same(porter::make_tiled_source<B2>(dyn), want);
  md::mdspan<const float, md::extents<std::size_t, 64, 200>> fixed(host2.data());
  expect_same(porter::make_tiled_source<B2>(fixed), want);
  md::mdspan<std::uint16_t, md::extents<long, md::dynamic_extent, 40, 104>> mixed(host3.data(), 6);
  expect_same(porter::make_tiled_source<B3>(mixed), porter::make_tiled_source<B3>(host3.data(), {6, 40, 104}));
}

TEST(TiledSourceForms, MdspanLayoutStrideAndPointerPlusMapping) {
  // 64 x 100 floats with a row pitch of 200 (a window of a wider array).
  using ext = md::dextents<std::int64_t, 2>;
  const md::layout_stride::mapping<ext> map(ext(64, 100), md::array<std::int64_t, 2>{200, 1});
  md::mdspan<float, ext, md::layout_stride> win(host2.data(), map);
  const auto want = porter::make_tiled_source<B2>(host2.data(), {64, 100}, {200});
  expect_same(porter::make_tiled_source<B2>(win), want);
  expect_same(porter::make_tiled_source<B2>(host2.data(), map), want);
  expect_same(porter::make_tiled_source<B2>(host2.data(), md::layout_right::mapping<ext>(ext(64, 100))),
              porter::make_tiled_source<B2>(host2.data(), {64, 100}));
  // A column-major view has innermost stride 64: refused with the sentence.
  md::mdspan<float, ext, md::layout_left> colmajor(host2.data(), 64, 100);
  const auto e = porter_test::thrown([&] { porter::make_tiled_source<B2>(colmajor); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "source.inner_contiguous");
  EXPECT_TRUE(Contains(e->what(), "the innermost stride is 64 elements"));
}
#else
TEST(TiledSourceForms, MdspanLayoutRightDynamicAndStaticExtents) {
  GTEST_SKIP() << "<cuda/std/mdspan> is not on this compiler's include path (HIP build or a toolkit without CCCL)";
}
#endif

}  // namespace
