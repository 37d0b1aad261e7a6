// tests/host/select_path_test.cpp — porter::select_path over every support mask x {sm_75, sm_80, sm_90, HIP}, and device_caps' capability names.
#include <string>

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "porter/path.hpp"
#include "porter/source.hpp"

namespace {

using porter::path_bit;
using porter::path_id;

constexpr unsigned T = 1u << 0, C = 1u << 1, S = 1u << 2;  // tma, cp_async, staged bits (see below)
constexpr path_id tma = path_id::tma, cpa = path_id::cp_async, stg = path_id::staged;

TEST(SelectPath, MaskBitsAreTheOnesTheTableUses) {
  EXPECT_EQ(path_bit(path_id::tma), T);
  EXPECT_EQ(path_bit(path_id::cp_async), C);
  EXPECT_EQ(path_bit(path_id::staged), S);
}

// docs/design.md: automatic takes tma where the device has TMA and the source allows it, else cp_async
// likewise, else staged; a HIP device has neither (gfx90a reports compute capability 9.0).
struct row {
  unsigned mask;
  path_id sm75, sm80, sm90, hip;
};
constexpr row table[] = {
    //  mask          sm_75  sm_80  sm_90  hip (cc 9.0)
    {0,             stg,   stg,   stg,   stg},
    {T,             stg,   stg,   tma,   stg},
    {C,             stg,   cpa,   cpa,   stg},
    {T | C,         stg,   cpa,   tma,   stg},
    {S,             stg,   stg,   stg,   stg},
    {T | S,         stg,   stg,   tma,   stg},
    {C | S,         stg,   cpa,   cpa,   stg},
    {T | C | S,     stg,   cpa,   tma,   stg},
};

TEST(SelectPath, FullTableOverMasksAndTargets) {
  for (const row& r : table) {
    SCOPED_TRACE("mask " + std::to_string(r.mask));
    EXPECT_EQ(porter::select_path(r.mask, 75), r.sm75);
    EXPECT_EQ(porter::select_path(r.mask, 80), r.sm80);
    EXPECT_EQ(porter::select_path(r.mask, 90), r.sm90);
    EXPECT_EQ(porter::select_path(r.mask, 90, /*hip=*/true), r.hip);
  }
}

TEST(SelectPath, NewerDevicesBehaveLikeTheOldestTheyContain) {
  for (const row& r : table) {
    SCOPED_TRACE("mask " + std::to_string(r.mask));
    EXPECT_EQ(porter::select_path(r.mask, 86), r.sm80);   // GA102
    EXPECT_EQ(porter::select_path(r.mask, 89), r.sm80);   // AD102 (no TMA)
    EXPECT_EQ(porter::select_path(r.mask, 100), r.sm90);  // B200
    EXPECT_EQ(porter::select_path(r.mask, 120), r.sm90);  // RTX 50
    EXPECT_EQ(porter::select_path(r.mask, 94, true), r.hip);  // MI300X (gfx942)
    EXPECT_EQ(porter::select_path(r.mask, 0), stg);           // no device
  }
}

TEST(DeviceCaps, CapabilityNamesFollowComputeCapabilityAndVendor) {
  const auto h = porter_test::h200(), a = porter_test::a100(), t = porter_test::t4(), m = porter_test::mi250x();
  EXPECT_EQ(h.compute_capability(), 90);
  EXPECT_TRUE(h.has_tma());
  EXPECT_TRUE(h.has_cp_async());
  EXPECT_EQ(a.compute_capability(), 80);
  EXPECT_FALSE(a.has_tma());
  EXPECT_TRUE(a.has_cp_async());
  EXPECT_EQ(t.compute_capability(), 75);
  EXPECT_FALSE(t.has_tma());
  EXPECT_FALSE(t.has_cp_async());
  EXPECT_EQ(m.compute_capability(), 90);
  EXPECT_FALSE(m.has_tma());
  EXPECT_FALSE(m.has_cp_async());
  EXPECT_EQ(h.describe(), "NVIDIA H200 (sm_90, 132 SMs)");
  EXPECT_EQ(t.describe(), "Tesla T4 (sm_75, 40 SMs)");
  EXPECT_EQ(m.describe(), "AMD Instinct MI250X (gfx90a, 110 CUs)");
  auto unnamed = porter_test::a100();  // no arch string: the name is derived from the capability
  unnamed.arch.clear();
  EXPECT_EQ(unnamed.describe(), "NVIDIA A100-SXM4-80GB (sm_80, 108 SMs)");
}

TEST(DeviceCaps, PeakDramBandwidthFromClockAndBusWidth) {
  auto h = porter_test::h200();
  EXPECT_EQ(h.peak_dram_bytes_per_second(), 0.0);  // clock unknown
  h.mem_clock_khz = 2619000;                       // HBM3e, as cudaDevAttrMemoryClockRate reports it
  h.mem_bus_width_bits = 6144;
  // Double data rate: 2 transfers per clock, 6144 bits = 768 bytes per transfer.
  EXPECT_DOUBLE_EQ(h.peak_dram_bytes_per_second(), 2.0 * 2619000e3 * 768.0);
}

}  // namespace
