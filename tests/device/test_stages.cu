// tests/device/test_stages.cu — pipeline depths 1..6, row pitches, and the launch guard.
//
// Suites are typed over the paths, so test names read Suite/path.test and gtest filters select a
// path: --gtest_filter='*/tma.*'.
#include "runners.cuh"

namespace pt = porter_test;

namespace {

using f32_box = porter::box<float, 8, 32>;  // 128-byte rows

// ---- pipeline depths: every stage count 1..6 on every path, trip counts 0, 1, S-1, S, S+1, 2S+1,
// 3S+2 per CTA in the same launch, the producer 1..S steps ahead.
template <class P>
class Stages : public ::testing::Test {};
TYPED_TEST_SUITE(Stages, pt::all_paths, pt::path_names);

TYPED_TEST(Stages, depth_1) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 1, f32_box>(tt, "stages", {pt::cases(40, 2)});
}
TYPED_TEST(Stages, depth_2) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 2, f32_box>(tt, "stages", {pt::cases(40, 2)});
}
TYPED_TEST(Stages, depth_3) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 3, f32_box>(tt, "stages", {pt::cases(40, 2)});
}
TYPED_TEST(Stages, depth_4) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 4, f32_box>(tt, "stages", {pt::cases(40, 2)});
}
TYPED_TEST(Stages, depth_5) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 5, f32_box>(tt, "stages", {pt::cases(40, 2)});
}
TYPED_TEST(Stages, depth_6) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::box_cases<TypeParam, 6, f32_box>(tt, "stages", {pt::cases(40, 2)});
}

// ---- the high-level schedule: porter::for_each_tile (prologue, steady state and drain inside).
template <class P>
class HighLevel : public ::testing::Test {};
TYPED_TEST_SUITE(HighLevel, pt::all_paths, pt::path_names);

TYPED_TEST(HighLevel, for_each_tile_depth_1) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::run_tile_cases(tt, "high level", {pt::cases(30, 2)}, pt::for_each_tile_kernel_under_test<TypeParam, 1, f32_box>());
}
TYPED_TEST(HighLevel, for_each_tile_depth_4) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  pt::run_tile_cases(tt, "high level", {pt::cases(30, 2)}, pt::for_each_tile_kernel_under_test<TypeParam, 4, f32_box>());
}

// ---- named row pitches (fp32): 2008 B and 2004 B are not multiples of 16 (tma refused, naming the
// rule; cp.async with 8- and 4-byte chunks; automatic falls back to cp_async), 2000 B and 2048 B are.
template <class P>
class Pitch : public ::testing::Test {};
TYPED_TEST_SUITE(Pitch, pt::all_paths, pt::path_names);

TYPED_TEST(Pitch, fp32_rows_multiple_and_not_multiple_of_16_bytes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  for (const std::int64_t pitch : {502, 501, 503, 500, 512}) {
    pt::case_options o{pt::cases(6, 1)};
    o.geometry = [pitch](std::mt19937_64& rng) {
      pt::geometry g;
      g.rank = 2;
      g.es = 4;
      g.box[0] = 8;
      g.box[1] = 32;
      g.extent[0] = 1 + std::int64_t(rng() % 40);
      g.extent[1] = pitch - std::int64_t(rng() % 24);
      g.stride[0] = pitch;
      g.stride[1] = 1;
      g.offset = 0;
      return g;
    };
    if ((pitch * 4) % 16 != 0) o.tma_rule = "tma.stride_multiple_of_16";
    pt::box_cases<TypeParam, 3, f32_box>(tt, "pitch " + std::to_string(pitch * 4) + " B", o);
  }
}

// ---- the launch guard on GPUs that lack a path (on an H200 these skip: the host tests cover the
// refusal logic; here the real device and the real kernel are used).
template <class P>
void expect_refused_on_this_gpu() {
  std::string why;
  const porter::device_caps* caps = pt::gpu(&why);
  if (caps == nullptr) GTEST_SKIP() << "no usable GPU: " << why;
  if (caps->compute_capability() >= P::min_compute_capability)
    GTEST_SKIP() << "this GPU (" << caps->describe() << ") has path " << P::name << "; nothing to refuse";
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64 * 64 * sizeof(float)), cudaSuccess);
  const auto src = porter::make_tiled_source<f32_box>(d, {64, 64}, f32_box{});
  EXPECT_FALSE(src.supports(P::id)) << porter::explain(src);
  int2* work = nullptr;
  ASSERT_EQ(cudaMalloc(&work, sizeof(int2)), cudaSuccess);
  cudaMemset(work, 0, sizeof(int2));
  try {
    porter::launch<P>(&pt::box_kernel<P, 3, f32_box>, dim3(1), dim3(32), porter::pipeline<P, 3, f32_box>::shared_bytes,
                      nullptr, src, static_cast<const porter::coord<2>*>(nullptr), static_cast<const int2*>(work),
                      static_cast<unsigned char*>(nullptr), 1, 0);
    cudaDeviceSynchronize();
    ADD_FAILURE() << "porter::launch<" << P::name << "> ran on " << caps->describe();
  } catch (const porter::error& e) {
    EXPECT_EQ(e.code(), porter::errc::path_unsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find(caps->name), std::string::npos) << "the refusal should name the device: " << e.what();
  }
  cudaFree(work);
  cudaFree(d);
}

TEST(LaunchGuard, tma_refused_on_a_gpu_without_tma) { expect_refused_on_this_gpu<porter::path::tma>(); }
TEST(LaunchGuard, cp_async_refused_on_a_gpu_without_cp_async) { expect_refused_on_this_gpu<porter::path::cp_async>(); }

}  // namespace
