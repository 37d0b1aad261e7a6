// tests/hip/hip_host_test.cpp — what the HIP build promises on the host, checked without a GPU.
//
// Built by hipcc (PORTER_HIP = 1) with PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH=1, so that a kernel
// forced to tma can be instantiated and its launch refused. Covers: the hip backend mirrors staged
// (compile time); automatic is staged on AMD; the LDS limit is enforced on the host naming need and
// limit; forced NVIDIA paths are refused before the runtime is touched; without an AMD GPU the core
// says why and offers staged only.
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "backends/conformance.hpp"
#include "porter/porter.hpp"

namespace {

static_assert(PORTER_HIP, "tests/hip is built by hipcc");
static_assert(porter::backend::check_conformance<porter::backend::staged>(), "the staged lowering's AMD flavour conforms");
static_assert(porter::backend::check_fragment_conformance<porter::backend::fragment_loads>(), "the AMD fragment loads conform");
static_assert(porter::backend::check_grid_conformance<porter::backend::grid_control>(), "the AMD grid control conforms");

using box24k = porter::box<float, 24, 256>;  // 24 KiB
using three_stages = porter::pipeline<porter::path::staged, 3, box24k>;
using two_stages = porter::pipeline<porter::path::staged, 2, box24k>;

porter::device_caps gfx90a() {
  porter::device_caps c;
  c.name = "AMD Instinct MI250X";
  c.arch = "gfx90a";
  c.hip = true;
  c.cc_major = 9;
  c.cc_minor = 0;
  c.sm_count = 110;
  c.warp_size = 64;
  c.smem_per_block_optin = 64 * 1024;
  return c;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

template <class Path>
__global__ void forced(const __grid_constant__ porter::tiled_source<box24k> src, float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, box24k> pipe(smem);
  porter::for_each_tile(pipe, src, 1, [](int) { return porter::coord<2>{0, 0}; },
                        [&](const porter::tile_view<box24k>& t, int) { out[threadIdx.x] = t(0, threadIdx.x); });
}

TEST(HipBackend, MirrorsStagedAndOwnsTheStagedPath) {
  EXPECT_TRUE((std::is_same_v<porter::lowering_for<porter::path::staged>::path, porter::path::staged>));
  EXPECT_EQ(porter::lowering_for<porter::path::staged>::path::completion, porter::completion::cta_barrier);
  int n = 0;
  porter::lowerings::for_each_path(porter::lowerings::all{}, [&](auto p) {
    EXPECT_TRUE((std::is_same_v<decltype(p), porter::path::staged>)) << "the AMD registry lowers staged only";
    ++n;
  });
  EXPECT_EQ(n, 1);
  EXPECT_EQ(porter::backend::staged_copy::deferred_chunks<box24k>, 0);
  EXPECT_TRUE(porter::arch::hip);
  EXPECT_FALSE(porter::arch::has_tma);
  EXPECT_FALSE(porter::arch::has_cp_async);
}

TEST(HipLds, ThreeStagesOf24KiBAreRefusedNamingNeedAndLimit) {
  const std::size_t need = three_stages::shared_bytes;
  ASSERT_GT(need, 64u * 1024);
  try {
    porter::check_shared_memory(need, gfx90a());
    FAIL() << "3 x 24 KiB was accepted on a 64 KiB device";
  } catch (const porter::error& e) {
    EXPECT_EQ(e.code(), porter::errc::shared_memory);
    EXPECT_EQ(e.rule(), "launch.lds_capacity");
    EXPECT_TRUE(contains(e.what(), std::to_string(need) + " B of LDS")) << e.what();
    EXPECT_TRUE(contains(e.what(), "at most 65536 B (64 KiB)")) << e.what();
    EXPECT_TRUE(contains(e.what(), "gfx90a")) << e.what();
  }
  EXPECT_NO_THROW(porter::check_shared_memory(two_stages::shared_bytes, gfx90a()));
  EXPECT_NO_THROW(porter::check_shared_memory(64 * 1024, gfx90a()));
}

TEST(HipLaunch, ForcedNvidiaPathsAreRefusedBeforeTheRuntimeIsAsked) {
  const auto src = porter::make_tiled_source<box24k>(reinterpret_cast<const float*>(std::uintptr_t(0x10000)), {48, 512});
  for (int which = 0; which < 2; ++which) {
    try {
      if (which == 0)
        porter::launch<porter::path::tma>(forced<porter::path::tma>, dim3(1), dim3(256), 0, nullptr, src, nullptr);
      else
        porter::launch<porter::path::cp_async>(forced<porter::path::cp_async>, dim3(1), dim3(256), 0, nullptr, src, nullptr);
      FAIL() << "a forced NVIDIA path was launched under HIP";
    } catch (const porter::error& e) {
      EXPECT_EQ(e.code(), porter::errc::path_unsupported);
      EXPECT_EQ(e.rule(), "launch.path_vendor");
      EXPECT_TRUE(contains(e.what(), which == 0 ? "path tma" : "path cp_async")) << e.what();
      EXPECT_TRUE(contains(e.what(), "AMD GPUs with HIP")) << e.what();
    }
  }
}

TEST(HipDevice, WithoutAnAmdGpuTheCoreSaysWhyAndOffersStagedOnly) {
  std::string why;
  if (porter::query_device(-1, &why)) GTEST_SKIP() << "an AMD GPU is present; this test is about its absence";
  EXPECT_TRUE(contains(why, "hipGetDeviceCount")) << why;
  try {
    porter::launch<porter::path::staged>(forced<porter::path::staged>, dim3(1), dim3(256), two_stages::shared_bytes,
                                         nullptr, porter::tiled_source<box24k>{}, nullptr);
    FAIL() << "launch without a device did not throw";
  } catch (const porter::error& e) {
    EXPECT_EQ(e.code(), porter::errc::no_device);
    EXPECT_TRUE(contains(e.what(), "hipGetDeviceCount")) << e.what();
  }
  const auto src = porter::make_tiled_source<box24k>(reinterpret_cast<const float*>(std::uintptr_t(0x10000)), {48, 512});
  EXPECT_EQ(src.supported, porter::path_bit(porter::path_id::staged));
  const std::string s = porter::explain(src);
  EXPECT_TRUE(contains(s, "device: none (no usable GPU)")) << s;
  EXPECT_TRUE(contains(s, "\nautomatic: staged")) << s;
}

TEST(HipDevice, AmdCapsNeverOfferNvidiaPathsAndExplainSaysWhy) {
  const auto caps = gfx90a();
  EXPECT_EQ(caps.describe(), "AMD Instinct MI250X (gfx90a, 110 CUs)");
  EXPECT_FALSE(caps.has_tma());
  EXPECT_FALSE(caps.has_cp_async());
  EXPECT_EQ(porter::select_path(~0u, caps.compute_capability(), true), porter::path_id::staged);
  porter::source_desc d;
  d.rank = 2;
  d.elem_bytes = 4;
  d.ptr = reinterpret_cast<const void*>(std::uintptr_t(0x10000));
  d.extent[0] = 48; d.extent[1] = 512;
  d.stride[0] = 512; d.stride[1] = 1;
  d.box[0] = 24; d.box[1] = 256;
  unsigned char map[128];
  int split = 0;
  EXPECT_EQ(porter::detail::prepare_source(d, &caps, map, &split, nullptr), porter::path_bit(porter::path_id::staged));
  const std::string s = porter::explain(d, &caps);
  EXPECT_TRUE(contains(s, "device 'AMD Instinct MI250X' is an AMD GPU; TMA is an NVIDIA instruction family")) << s;
  EXPECT_TRUE(contains(s, "\nautomatic: staged")) << s;
}

}  // namespace
