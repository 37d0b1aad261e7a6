// tests/host/tiled_source_test.cpp — tiled_source storage (128-byte aligned tensor map first) and make_tiled_source/explain on a machine without a GPU.
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/device.hpp"
#include "porter/source.hpp"

namespace {

using porter::box;
using porter::path_bit;
using porter::path_id;
using porter::tiled_source;
using porter_test::Contains;

struct alignas(16) float4_like { float x, y, z, w; };

// ---- storage: the CUtensorMap the TMA unit reads must be 128-byte aligned, at offset 0 ------------

template <class B>
constexpr bool storage_ok() {
  using S = tiled_source<B>;
  return alignof(S) == 128 && sizeof(S) % 128 == 0 && offsetof(S, tensor_map) == 0 && sizeof(S::tensor_map) == 128 &&
         offsetof(S, ptr) == 128 && std::is_trivially_copyable_v<S> && std::is_standard_layout_v<S>;
}
static_assert(storage_ok<box<float, 8, 8>>(), "2D float source");
static_assert(storage_ok<box<char, 256>>(), "1D byte source");
static_assert(storage_ok<box<double, 2, 4, 8>>(), "3D double source");
static_assert(storage_ok<box<std::uint16_t, 1, 2, 3, 4, 8>>(), "5D source (largest extent/stride arrays)");
static_assert(storage_ok<box<float4_like, 4, 4>>(), "16-byte elements");
static_assert(std::is_same_v<tiled_source<box<float, 8, 8>>::element_type, float> && tiled_source<box<float, 2, 3, 4>>::rank == 3,
              "element type and rank come from the box");

TEST(TiledSource, StorageIs128ByteAlignedWithTheTensorMapFirst) {
  // The same facts at run time, on objects the compiler actually placed.
  std::vector<tiled_source<box<float, 8, 8>>> many(3);
  for (const auto& s : many) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&s) % 128, 0u);
    EXPECT_EQ(static_cast<const void*>(s.tensor_map), static_cast<const void*>(&s));
  }
}

// ---- make_tiled_source without a GPU --------------------------------------------------------------

class NoGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto caps = porter::query_device(-1, &why_))
      GTEST_SKIP() << "a GPU is present (" << caps->describe() << "); these tests cover machines without one";
  }
  std::string why_;
};

TEST_F(NoGpu, QueryDeviceReturnsNothingAndSaysWhy) {
  EXPECT_TRUE(Contains(why_, PORTER_HIP ? "hipGetDeviceCount" : "cudaGetDeviceCount"));
  const auto e = porter_test::thrown([] { porter::require_device(); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), porter::errc::no_device);
  EXPECT_EQ(e->rule(), "device.available");
  EXPECT_TRUE(Contains(e->what(), "no usable GPU"));
  EXPECT_TRUE(Contains(e->what(), why_));
}

TEST_F(NoGpu, MakeTiledSourceSucceedsAndSupportsOnlyStaged) {
  using B = box<float, 16, 64>;
  std::vector<float> host(100 * 200);
  const auto s = porter::make_tiled_source<B>(host.data(), {100, 200});
  EXPECT_EQ(s.supported, path_bit(path_id::staged));
  EXPECT_TRUE(s.supports(path_id::staged));
  EXPECT_FALSE(s.supports(path_id::tma));
  EXPECT_FALSE(s.supports(path_id::cp_async));
  EXPECT_EQ(s.ptr, host.data());
  EXPECT_EQ(s.extent[0], 100);
  EXPECT_EQ(s.extent[1], 200);
  EXPECT_EQ(s.stride[0], 200);  // dense: row pitch = innermost extent
  EXPECT_EQ(s.stride[1], 1);
  EXPECT_EQ(s.tma_split_rows, 16);
  for (unsigned char b : s.tensor_map) ASSERT_EQ(b, 0) << "no tensor map is encoded without a device";
  const std::string text = porter::explain(s);
  EXPECT_TRUE(Contains(text, "device: none (no usable GPU)"));
  EXPECT_TRUE(Contains(text, "needs a device with TMA"));
  EXPECT_TRUE(Contains(text, "needs a device with cp.async"));
  EXPECT_TRUE(Contains(text, "staged: yes"));
  EXPECT_TRUE(Contains(text, "automatic: staged"));
}

TEST_F(NoGpu, PitchedAnd3dAnd1dSourcesKeepTheirGeometry) {
  std::vector<float> host(100 * 256);
  const auto p = porter::make_tiled_source<box<float, 16, 64>>(host.data(), {100, 200}, {256});
  EXPECT_EQ(p.stride[0], 256);
  const auto d = p.desc();
  EXPECT_EQ(d.rank, 2);
  EXPECT_EQ(d.elem_bytes, 4);
  EXPECT_EQ(d.ptr, host.data());
  EXPECT_EQ(d.box[0], 16);
  EXPECT_EQ(d.box[1], 64);
  EXPECT_EQ(d.stride[1], 1);

  std::vector<double> vol(4 * 10 * 30);
  const auto v = porter::make_tiled_source<box<double, 2, 5, 16>>(vol.data(), {4, 10, 30});
  EXPECT_EQ(v.stride[0], 300);
  EXPECT_EQ(v.stride[1], 30);
  EXPECT_EQ(v.stride[2], 1);
  EXPECT_EQ(v.supported, path_bit(path_id::staged));

  std::vector<float4_like> line(1000);
  const auto l = porter::make_tiled_source<box<float4_like, 256>>(line.data(), {1000});
  EXPECT_EQ(l.extent[0], 1000);
  EXPECT_EQ(l.stride[0], 1);
  EXPECT_EQ(l.desc().elem_bytes, 16);
}

TEST_F(NoGpu, OutermostSplitIsRecordedEvenWithoutADevice) {
  std::vector<float> host(4096 * 32);
  const auto s = porter::make_tiled_source<box<float, 512, 32>>(host.data(), {4096, 32});
  EXPECT_EQ(s.tma_split_rows, 256);
}

TEST_F(NoGpu, ExplainListsLayoutRefusalsAsWellAsTheMissingDevice) {
  std::vector<float> host(64 * 1001);
  const auto s = porter::make_tiled_source<box<float, 16, 64>>(host.data(), {64, 1000}, {1001});
  const std::string text = porter::explain(s);
  EXPECT_TRUE(Contains(text, "4004 B, not a multiple of 16 B [rule tma.stride_multiple_of_16]"));
  EXPECT_TRUE(Contains(text, "[rule tma.device]"));
}

TEST(TiledSource, InvalidInputThrowsOnTheHostWithOrWithoutAGpu) {
  std::vector<float> host(16);
  const auto null = porter_test::thrown([] { porter::make_tiled_source<box<float, 4, 4>>(nullptr, {4, 4}); });
  ASSERT_TRUE(null);
  EXPECT_EQ(null->code(), porter::errc::invalid_argument);
  EXPECT_EQ(null->rule(), "source.null_pointer");
  const auto zero = porter_test::thrown([&] { porter::make_tiled_source<box<float, 4, 4>>(host.data(), {4, 0}, {4}); });
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->rule(), "source.extent_positive");
  EXPECT_TRUE(Contains(zero->what(), "extent of dimension 1 is 0"));
  const auto pitch = porter_test::thrown([&] { porter::make_tiled_source<box<float, 4, 4>>(host.data(), {4, 4}, {0}); });
  ASSERT_TRUE(pitch);
  EXPECT_EQ(pitch->rule(), "source.stride_positive");
}

// Found by the validation fuzz: reports are interned by layout and the pointer's offset within 16
// bytes, so a null pointer shared its key with every aligned one and, once such a source existed,
// was accepted without validation.
TEST(TiledSource, NullPointerIsRefusedEvenAfterTheSameLayoutWasBuilt) {
  alignas(16) static float host[64 * 64];
  using B = box<float, 8, 32>;
  (void)porter::make_tiled_source<B>(host, {64, 64});
  const auto null = porter_test::thrown([] { porter::make_tiled_source<B>(nullptr, {64, 64}); });
  ASSERT_TRUE(null);
  EXPECT_EQ(null->rule(), "source.null_pointer");
}

// With the dense overload a zero innermost extent makes the derived row pitch 0; the error must
// still name the extent the caller passed, not the stride derived from it.
TEST(TiledSource, DenseSourceWithAZeroExtentNamesTheExtent) {
  std::vector<float> host(16);
  const auto zero = porter_test::thrown([&] { porter::make_tiled_source<box<float, 4, 4>>(host.data(), {4, 0}); });
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->rule(), "source.extent_positive");
  EXPECT_TRUE(Contains(zero->what(), "extent of dimension 1 is 0"));
}

}  // namespace
