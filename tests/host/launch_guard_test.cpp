// tests/host/launch_guard_test.cpp — the launch guard's host rules (path on device, kernel binary, shared memory, source path) on fake devices.
#include <cstddef>
#include <string>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/launch.hpp"
#include "porter/pipeline.hpp"
#include "porter/source.hpp"

namespace {

using porter::errc;
using porter::path_id;
using porter_test::Contains;
using porter_test::thrown;

template <class P>
void check_path(const porter::device_caps& caps, int kernel_ptx_cc) {
  if constexpr (porter::is_concrete_path<P>::value) porter::check_path_on_device(P::id, caps, kernel_ptx_cc);
}

TEST(LaunchGuard, TmaForcedOnACc80DeviceIsRefusedNamingPathDeviceAndCapability) {
  const auto e = thrown([] { check_path<porter::path::tma>(porter_test::a100(), 80); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::path_unsupported);
  EXPECT_EQ(e->rule(), "launch.path_device");
  EXPECT_TRUE(Contains(e->what(), "path tma"));
  EXPECT_TRUE(Contains(e->what(), "NVIDIA A100-SXM4-80GB"));
  EXPECT_TRUE(Contains(e->what(), "needs compute capability 9.0"));
  EXPECT_TRUE(Contains(e->what(), "has 8.0"));
}

TEST(LaunchGuard, CpAsyncForcedOnATuringDeviceIsRefused) {
  const auto e = thrown([] { check_path<porter::path::cp_async>(porter_test::t4(), 75); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rule(), "launch.path_device");
  EXPECT_TRUE(Contains(e->what(), "path cp_async"));
  EXPECT_TRUE(Contains(e->what(), "Tesla T4"));
  EXPECT_TRUE(Contains(e->what(), "needs compute capability 8.0"));
  EXPECT_TRUE(Contains(e->what(), "has 7.5"));
}

TEST(LaunchGuard, KernelCompiledForCompute80RunWithTmaOnAnH200IsRefused) {
  const auto e = thrown([] { check_path<porter::path::tma>(porter_test::h200(), 80); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::path_unsupported);
  EXPECT_EQ(e->rule(), "launch.path_binary");
  EXPECT_TRUE(Contains(e->what(), "compute_80"));
  EXPECT_TRUE(Contains(e->what(), "sm_90"));
  EXPECT_TRUE(Contains(e->what(), "NVIDIA H200"));
  EXPECT_TRUE(Contains(e->what(), "CUDA_ARCHITECTURES"));
  const auto c = thrown([] { check_path<porter::path::cp_async>(porter_test::h200(), 75); });
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rule(), "launch.path_binary");
  EXPECT_TRUE(Contains(c->what(), "compute_75"));
}

TEST(LaunchGuard, PathsThatFitTheDeviceAndTheBinaryPass) {
  EXPECT_NO_THROW(check_path<porter::path::tma>(porter_test::h200(), 90));
  EXPECT_NO_THROW(check_path<porter::path::tma>(porter_test::h200(), 0));  // binary version unknown
  EXPECT_NO_THROW(check_path<porter::path::cp_async>(porter_test::h200(), 80));
  EXPECT_NO_THROW(check_path<porter::path::cp_async>(porter_test::a100(), 80));
  for (const auto& caps : {porter_test::h200(), porter_test::a100(), porter_test::t4(), porter_test::mi250x()}) {
    SCOPED_TRACE(caps.name);
    EXPECT_NO_THROW(check_path<porter::path::staged>(caps, 75));
    EXPECT_NO_THROW(check_path<porter::path::automatic>(caps, 75));
  }
}

TEST(LaunchGuard, NvidiaPathsAreRefusedOnAHipDevice) {
  for (porter::path_id p : {porter::path_id::tma, porter::path_id::cp_async}) {
    const std::string name = porter::path_id_name(p);
    SCOPED_TRACE(name);
    const auto e = thrown([&] { porter::check_path_on_device(p, porter_test::mi250x(), 0); });
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code(), errc::path_unsupported);
    EXPECT_EQ(e->rule(), "launch.path_vendor");
    EXPECT_TRUE(Contains(e->what(), std::string("path ") + name));
    EXPECT_TRUE(Contains(e->what(), "AMD Instinct MI250X"));
    EXPECT_TRUE(Contains(e->what(), "AMD GPU"));
  }
}

TEST(LaunchGuard, SharedMemoryBeyondTheOptInLimitNamesBothNumbers) {
  const auto h = porter_test::h200();
  EXPECT_NO_THROW(porter::check_shared_memory(h.smem_per_block_optin, h));
  const auto e = thrown([&] { porter::check_shared_memory(h.smem_per_block_optin + 1, h); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::shared_memory);
  EXPECT_EQ(e->rule(), "launch.shared_memory_optin");
  EXPECT_TRUE(Contains(e->what(), std::to_string(h.smem_per_block_optin + 1) + " B"));
  EXPECT_TRUE(Contains(e->what(), std::to_string(h.smem_per_block_optin) + " B per block"));
  EXPECT_TRUE(Contains(e->what(), "NVIDIA H200"));
}

TEST(LaunchGuard, LdsBeyondAnAmdWorkgroupLimitNamesNeedAndLimit) {
  const auto m = porter_test::mi250x();
  EXPECT_NO_THROW(porter::check_shared_memory(65536, m));
  const auto e = thrown([&] { porter::check_shared_memory(70000, m); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::shared_memory);
  EXPECT_EQ(e->rule(), "launch.lds_capacity");
  EXPECT_TRUE(Contains(e->what(), "70000 B of LDS"));
  EXPECT_TRUE(Contains(e->what(), "65536 B (64 KiB)"));
  EXPECT_TRUE(Contains(e->what(), "AMD Instinct MI250X (gfx90a, 110 CUs)"));
}

TEST(LaunchGuard, AnEightStagePipelineOf32KiBBoxesDoesNotFitAnH200) {
  using big = porter::pipeline<porter::path::tma, 8, porter::box<float, 64, 128>>;  // 8 x 32 KiB + header + slack
  using fits = porter::pipeline<porter::path::tma, 6, porter::box<float, 64, 128>>;
  const auto h = porter_test::h200();
  static_assert(big::shared_bytes > 8 * 32768, "the ring holds 8 stages of 32 KiB");
  const auto e = thrown([&] { porter::check_shared_memory(big::shared_bytes, h); });
  ASSERT_TRUE(e);
  EXPECT_TRUE(Contains(e->what(), std::to_string(big::shared_bytes) + " B"));
  EXPECT_NO_THROW(porter::check_shared_memory(fits::shared_bytes, h));
}

TEST(LaunchGuard, ABlockLargerThanTheInstantiationAllowsIsRefusedNamingBoth) {
  EXPECT_NO_THROW(porter::check_block_size(256, 256, "tma"));
  EXPECT_NO_THROW(porter::check_block_size(1024, 0, "tma"));  // unknown: not checked
  const auto e = thrown([] { porter::check_block_size(1024, 640, "cp_async"); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::invalid_argument);
  EXPECT_EQ(e->rule(), "launch.block_size");
  EXPECT_TRUE(Contains(e->what(), "1024 threads per CTA"));
  EXPECT_TRUE(Contains(e->what(), "cp_async instantiation allows at most 640"));
}

TEST(LaunchGuard, ForcedPathThatTheSourceRefusesQuotesExplain) {
  const auto d = porter_test::desc(4, {64, 1000}, {1001, 1}, {16, 64});  // pitch 4004 B: no tma
  const auto h = porter_test::h200();
  const unsigned mask = porter::validate_source(d).mask;
  const auto e = thrown([&] { porter::check_source_path(path_id::tma, mask, d, h, 2); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), errc::path_unsupported);
  EXPECT_EQ(e->rule(), "launch.source_path");
  EXPECT_TRUE(Contains(e->what(), "path tma cannot read kernel argument 2"));
  EXPECT_TRUE(Contains(e->what(), "4004 B"));
  EXPECT_TRUE(Contains(e->what(), "[rule tma.stride_multiple_of_16]"));
  EXPECT_TRUE(Contains(e->what(), "automatic: cp_async")) << e->what();
  EXPECT_NO_THROW(porter::check_source_path(path_id::cp_async, mask, d, h, 2));
  EXPECT_NO_THROW(porter::check_source_path(path_id::staged, mask, d, h, 2));
}

}  // namespace
