// tests/device/test_trap.cu — release-build traps (porter_device_tests; PORTER_DEBUG=0).
//
// TmaTrap: on path tma the issuing thread tests that the source allows tma with a predicated trap
//          and no message (backends/tma/porter/tma/copy.hpp; the message is PORTER_DEBUG's). A
//          kernel launched with <<<>>> (bypassing porter::launch, which refuses such a source on
//          the host) over a source whose base is 4 bytes past a 16-byte boundary (rule
//          tma.global_address_alignment) must fail, not run on with a tensor map that was never
//          encoded; the same kernel over the aligned source runs to the end and lands the box.
//          A trap kills the CUDA context, so each case runs in a child process (gtest death test,
//          "threadsafe" style, as test_debug.cu): the child exits 3 when the kernel failed, 0 when
//          it ran to the end and its bytes matched, 6 on a mismatch, 5 on a setup failure.
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

/// One box of `src` at (0, 0) through a 1-stage tma pipeline; the landed box goes to out.
__global__ void trap_box_kernel(const __grid_constant__ porter::tiled_source<f32_box> src, float* out) {
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<porter::path::tma, 1, f32_box> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(slot, src, porter::coord<2>{0, 0});
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait();
  const float* t = ready.tile().data();
  for (int j = int(threadIdx.x); j < int(f32_box::elements); j += int(blockDim.x)) out[j] = t[j];
  pipe.consumer_release(ready);
}

/// The child: a rows x (cols - 1) tensor at element `offset` of a fresh buffer (element i = i * 3 + 1),
/// one box through trap_box_kernel<<<1, 128>>>; exit as the file comment says.
[[noreturn]] void run_child(int offset) {
  std::fflush(stdout);
  dup2(2, 1);  // device printf goes to stdout; the death test reads stderr
  std::vector<float> host(std::size_t(rows) * cols);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i * 3 + 1);
  float *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_in, host.size() * sizeof(float)) != cudaSuccess || cudaMalloc(&d_out, f32_box::bytes) != cudaSuccess) std::_Exit(5);
  cudaMemcpy(d_in, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0xA5, f32_box::bytes);
  const std::int64_t ext[2] = {rows, cols - 1}, str[1] = {cols};
  const auto src = porter::make_tiled_source<f32_box>(d_in + offset, ext, str);
  if (src.supports(porter::path_id::tma) != (offset % 4 == 0)) {
    std::fprintf(stderr, "child: the source's tma support is not what the case needs\n%s", porter::explain(src).c_str());
    std::_Exit(5);
  }
  trap_box_kernel<<<1, 128, porter::pipeline<porter::path::tma, 1, f32_box>::shared_bytes>>>(src, d_out);
  const cudaError_t e = cudaDeviceSynchronize();
  std::fprintf(stderr, "child: cudaDeviceSynchronize: %s\n", cudaGetErrorString(e));
  if (e != cudaSuccess) std::_Exit(3);
  std::vector<float> got(f32_box::elements);
  cudaMemcpy(got.data(), d_out, f32_box::bytes, cudaMemcpyDeviceToHost);
  for (int r = 0; r < f32_box::dim(0); ++r)
    for (int c = 0; c < f32_box::dim(1); ++c)
      if (got[std::size_t(r) * f32_box::dim(1) + c] != host[std::size_t(offset) + std::size_t(r) * cols + c]) {
        std::fprintf(stderr, "child: landed element (%d, %d) differs\n", r, c);
        std::_Exit(6);
      }
  std::_Exit(0);
}

TEST(TmaTrap, a_source_tma_cannot_take_traps_in_release_builds) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::tma);
  // The trap reads "unspecified launch failure"; a TMA copy issued with the never-encoded tensor
  // map instead reads "an illegal instruction was encountered" (both seen on an H200), so the
  // message tells the check from a fault that merely follows its absence.
  EXPECT_EXIT(run_child(1), ::testing::ExitedWithCode(3), "child: cudaDeviceSynchronize: unspecified launch failure");
}
TEST(TmaTrap, the_same_kernel_over_an_aligned_source_lands_the_box) {
  PORTER_DEVICE_TEST_REQUIRE(porter::path::tma);
  EXPECT_EXIT(run_child(0), ::testing::ExitedWithCode(0), "child: cudaDeviceSynchronize: no error");
}

}  // namespace
