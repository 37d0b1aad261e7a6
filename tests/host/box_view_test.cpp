// tests/host/box_view_test.cpp — box shape traits, tile_view indexing over a host array, coord, and the path tags' names and properties.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "porter/box.hpp"
#include "porter/cp_async/path.hpp"
#include "porter/path.hpp"
#include "porter/staged/path.hpp"
#include "porter/tma/path.hpp"

namespace {

using porter::box;
using porter::coord;
using porter::tile_view;

// ---- box: outermost first, dense row-major --------------------------------------------------------

using b3 = box<float, 2, 3, 4>;
static_assert(b3::rank == 3 && b3::elements == 24 && b3::bytes == 96, "2 x 3 x 4 floats");
static_assert(b3::inner == 4 && b3::inner_bytes == 16 && b3::rows == 6, "rows of 4 floats, 6 of them");
static_assert(b3::dim(0) == 2 && b3::dim(1) == 3 && b3::dim(2) == 4, "dimensions outermost first");
static_assert(box<char, 300>::rows == 1 && box<char, 300>::inner_bytes == 300, "a 1D box is one row");
static_assert(porter::is_box<b3>::value && !porter::is_box<float>::value, "is_box recognises boxes only");

TEST(TileView, IndexingIsRowMajorOutermostFirst) {
  std::vector<float> mem(b3::elements);
  std::iota(mem.begin(), mem.end(), 0.0f);
  const tile_view<b3> t(mem.data());
  EXPECT_EQ(t.data(), mem.data());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        EXPECT_EQ(&t(i, j, k), mem.data() + (i * 3 + j) * 4 + k) << i << "," << j << "," << k;
        EXPECT_EQ(t(i, j, k), float((i * 3 + j) * 4 + k));
      }
  EXPECT_EQ(tile_view<b3>::extent(0), 2);
  EXPECT_EQ(tile_view<b3>::extent(2), 4);
  EXPECT_EQ(tile_view<b3>::rank, 3);
}

TEST(TileView, WritesGoThroughToTheUnderlyingBuffer) {
  using b2 = box<std::int16_t, 18, 72>;  // the stencil's halo shape, 2-byte elements
  std::vector<std::int16_t> mem(b2::elements, 0);
  const tile_view<b2> t(mem.data());
  t(17, 71) = 7;
  t(1, 0) = 5;
  EXPECT_EQ(mem[17 * 72 + 71], 7);
  EXPECT_EQ(mem[72], 5);
  EXPECT_EQ(std::count(mem.begin(), mem.end(), 0), std::ptrdiff_t(mem.size()) - 2);
}

TEST(TileView, FiveDimensionsAndOneDimension) {
  using b5 = box<unsigned char, 2, 3, 4, 5, 6>;
  std::vector<unsigned char> mem(b5::elements);
  const tile_view<b5> t(mem.data());
  EXPECT_EQ(&t(1, 2, 3, 4, 5) - mem.data(), std::ptrdiff_t(b5::elements - 1));
  EXPECT_EQ(&t(1, 0, 0, 0, 0) - mem.data(), 3 * 4 * 5 * 6);
  EXPECT_EQ(&t(0, 0, 0, 1, 0) - mem.data(), 6);
  using b1 = box<double, 256>;
  std::vector<double> line(256);
  const tile_view<b1> l(line.data());
  EXPECT_EQ(&l(255), line.data() + 255);
}

// ---- coord ---------------------------------------------------------------------------------------

TEST(Coord, HoldsSignedOutermostFirstIndices) {
  coord<3> c{1, -2, 300};
  EXPECT_EQ(c[0], 1);
  EXPECT_EQ(c[1], -2);  // boxes may start before the tensor: those elements read as zero
  EXPECT_EQ(c[2], 300);
  c[1] = 7;
  EXPECT_EQ(c.v[1], 7);
  const coord d{4, 5};  // deduction guide: rank from the number of indices
  static_assert(std::is_same_v<std::remove_const_t<decltype(d)>, coord<2>>, "coord{a, b} is a coord<2>");
  EXPECT_EQ(d[0] + d[1], 9);
  constexpr coord<1> e{-1};
  static_assert(e[0] == -1, "coord is usable in constant expressions");
}

// ---- path tags -----------------------------------------------------------------------------------

TEST(Path, NamesIdsCompletionAndMinimumCapability) {
  EXPECT_EQ(std::string(porter::path_name<porter::path::tma>), "tma");
  EXPECT_EQ(std::string(porter::path_name<porter::path::cp_async>), "cp_async");
  EXPECT_EQ(std::string(porter::path_name<porter::path::staged>), "staged");
  EXPECT_EQ(std::string(porter::path_name<porter::path::automatic>), "automatic");
  EXPECT_EQ(std::string(porter::path_id_name(porter::path::tma::id)), "tma");
  EXPECT_EQ(std::string(porter::path_id_name(porter::path::cp_async::id)), "cp_async");
  EXPECT_EQ(std::string(porter::path_id_name(porter::path::staged::id)), "staged");
  EXPECT_EQ(porter::path::tma::min_compute_capability, 90);
  EXPECT_EQ(porter::path::cp_async::min_compute_capability, 80);
  EXPECT_EQ(porter::path::staged::min_compute_capability, 0);
  EXPECT_EQ(porter::path::tma::completion, porter::completion::mbarrier_tx);
  EXPECT_EQ(porter::path::cp_async::completion, porter::completion::async_group);
  EXPECT_EQ(porter::path::staged::completion, porter::completion::cta_barrier);
  EXPECT_EQ(std::string(porter::completion_name(porter::completion::cta_barrier)), "CTA barrier");
  EXPECT_TRUE(porter::is_path<porter::path::automatic>::value);
  EXPECT_FALSE(porter::is_concrete_path<porter::path::automatic>::value);
  EXPECT_TRUE(porter::is_concrete_path<porter::path::tma>::value);
  EXPECT_FALSE(porter::is_path<int>::value);
  EXPECT_TRUE(porter::path::tma::nvidia_only && porter::path::cp_async::nvidia_only && !porter::path::staged::nvidia_only);
  EXPECT_FALSE(porter::arch::device_pass);
}

}  // namespace
