// tests/device/test_trap.cu — release builds (porter_device_tests; PORTER_DEBUG=0) copying, on
// path tma, a source that tma refuses, in a kernel launched with <<<>>> (bypassing porter::launch,
// which refuses such a launch on the host).
//
// Release builds do not test the source's tma support in device code (backends/tma/porter/tma/
// copy.hpp: every form of the test cost the issuing loop, up to 7% of sgemm's time on an H200):
//   * a 2D box of a source whose base is 4 bytes past a 16-byte boundary (rule
//     tma.global_address_alignment, so make_tiled_source left its tensor map all zeros) must make
//     the launch fail, not run on: the TMA unit rejects the zero tensor map with "an illegal
//     instruction was encountered" (seen on an H200);
//   * the same kernel over the aligned source runs to the end and lands the box;
//   * a 1D box needs no tensor map: over the same unaligned base it lands correctly (cp.async.bulk
//     where both addresses allow it, thread loads elsewhere).
// A failed launch kills the CUDA context, so each case runs in a child process (gtest death test,
// "threadsafe" style, as test_debug.cu): the child exits 3 when the kernel failed, 0 when it ran
// to the end and its bytes matched, 6 on a mismatch, 5 on a setup failure.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runners.cuh"

#if PORTER_DEBUG
#  error "test_trap.cu tests the release build's trap: build it with PORTER_DEBUG=0"
#endif

namespace pt = porter_test;

namespace {

using f32_box = porter::box<float, 8, 32>;
constexpr int rows = 64, cols = 256;  // the tensor, elements (one row of slack for the offset base)

using f32_row = porter::box<float, 200>;  // 800 B: a 1D box with a bulk body and thread-load edges at base + 4 B

/// One box of `src` at (0, 0) (1D: at 0) through a 1-stage tma pipeline; the landed box goes to out.
template <class Box>
__global__ void trap_box_kernel(const __grid_constant__ porter::tiled_source<Box> src, float* out) {
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<porter::path::tma, 1, Box> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(slot, src, porter::coord<Box::rank>{});
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait();
  const float* t = ready.tile().data();
  for (int j = int(threadIdx.x); j < int(Box::elements); j += int(blockDim.x)) out[j] = t[j];
  pipe.consumer_release(ready);
}

/// The child: a rows x (cols - 1) tensor (1D: its first cols - 1 elements) at element `offset` of a
/// fresh buffer (element i = i * 3 + 1), one box through trap_box_kernel<<<1, 128>>>; exit as the
/// file comment says.
template <class Box>
[[noreturn]] void run_child(int offset) {
  std::fflush(stdout);
  dup2(2, 1);  // device printf goes to stdout; the death test reads stderr
  std::vector<float> host(std::size_t(rows) * cols);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i * 3 + 1);
  float *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_in, host.size() * sizeof(float)) != cudaSuccess || cudaMalloc(&d_out, Box::bytes) != cudaSuccess) std::_Exit(5);
  cudaMemcpy(d_in, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0xA5, Box::bytes);
  const auto src = [&] {
    if constexpr (Box::rank == 1) {
      const std::int64_t ext[1] = {cols - 1};
      return porter::make_tiled_source<Box>(d_in + offset, ext);
    } else {
      const std::int64_t ext[2] = {rows, cols - 1}, str[1] = {cols};
      return porter::make_tiled_source<Box>(d_in + offset, ext, str);
    }
  }();
  if (src.supports(porter::path_id::tma) != (offset % 4 == 0)) {
    std::fprintf(stderr, "child: the source's tma support is not what the case needs\n%s", porter::explain(src).c_str());
    std::_Exit(5);
  }
  trap_box_kernel<Box><<<1, 128, porter::pipeline<porter::path::tma, 1, Box>::shared_bytes>>>(src, d_out);
  const cudaError_t e = cudaDeviceSynchronize();
  std::fprintf(stderr, "child: cudaDeviceSynchronize: %s\n", cudaGetErrorString(e));
  if (e != cudaSuccess) std::_Exit(3);
  std::vector<float> got(Box::elements);
  cudaMemcpy(got.data(), d_out, Box::bytes, cudaMemcpyDeviceToHost);
  constexpr int box_rows = Box::rank == 1 ? 1 : Box::dim(0), box_cols = Box::dim(Box::rank - 1);
  for (int r = 0; r < box_rows; ++r)
    for (int c = 0; c < box_cols; ++c)
      if (got[std::size_t(r) * box_cols + c] != host[std::size_t(offset) + std::size_t(r) * cols + c]) {
        std::fprintf(stderr, "child: landed element (%d, %d) differs\n", r, c);
        std::_Exit(6);
      }
  std::_Exit(0);
}

TEST(TmaTrap, a_2d_box_of_a_source_tma_refuses_fails_the_launch_in_release_builds) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::tma);
  // Release builds do not test the source in device code; the TMA unit rejects the all-zero
  // tensor map. (Before session 20 a predicated trap read "unspecified launch failure" here.)
  EXPECT_EXIT(run_child<f32_box>(1), ::testing::ExitedWithCode(3), "child: cudaDeviceSynchronize: an illegal instruction was encountered");
}
TEST(TmaTrap, the_same_kernel_over_an_aligned_source_lands_the_box) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::tma);
  EXPECT_EXIT(run_child<f32_box>(0), ::testing::ExitedWithCode(0), "child: cudaDeviceSynchronize: no error");
}
TEST(TmaTrap, a_1d_box_of_a_source_tma_refuses_still_lands_correctly) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::tma);
  EXPECT_EXIT(run_child<f32_row>(1), ::testing::ExitedWithCode(0), "child: cudaDeviceSynchronize: no error");
}
TEST(TmaTrap, a_1d_box_of_an_aligned_source_lands_correctly) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::tma);
  EXPECT_EXIT(run_child<f32_row>(0), ::testing::ExitedWithCode(0), "child: cudaDeviceSynchronize: no error");
}

}  // namespace
