// tests/device/test_strict.cu — PORTER_STRICT_PATHS=1 (built into porter_device_strict_tests only).
//
// StrictTrap: a forced path whose copy would fall back to thread loads traps with porter's message
//             instead; the same kernel with an aligned copy runs to the end and lands the right
//             bytes. A trap kills the CUDA context, so each case runs in a child process (gtest
//             death test, "threadsafe" style), as in test_debug.cu: the child exits 3 when the
//             kernel failed, 0 when it ran to the end and its bytes matched, 6 on a mismatch.
// StrictHost: porter::launch with launch_options{}.strict() and the sources' coordinate pattern
//             refuses on the host, before anything runs (rule launch.strict_paths); this needs no
//             GPU (the check runs before the device is queried).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runners.cuh"

#if !PORTER_STRICT_PATHS
#  error "test_strict.cu must be built with PORTER_STRICT_PATHS=1"
#endif

namespace pt = porter_test;

namespace {

using f32_box = porter::box<float, 8, 32>;
using u8_box = porter::box<unsigned char, 8, 32>;
constexpr int rows = 64, cols = 1024;  // the tensor, elements

/// One box of `src` at `at` through a 1-stage pipeline; the landed box goes to out.
template <class P, class Box>
__global__ void strict_box_kernel(const __grid_constant__ porter::tiled_source<Box> src, porter::coord<2> at, unsigned char* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<P, 1, Box> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(slot, src, at);
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait();
  for (unsigned j = threadIdx.x; j < Box::bytes; j += blockDim.x) out[j] = ready.bytes()[j];
  pipe.consumer_release(ready);
}

/// `n` bytes from `src` through a 1-stage pipeline of a 2 KiB buffer; the landed bytes go to out.
template <class P>
__global__ void strict_bytes_kernel(const unsigned char* src, int n, unsigned char* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<P, 1, pt::bytes_box> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(porter::buffer<0>(slot), src, std::size_t(n));
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait();
  for (int j = int(threadIdx.x); j < n; j += int(blockDim.x)) out[j] = ready.bytes()[j];
  pipe.consumer_release(ready);
}

/// The child: upload a tensor of rows x cols elements of Box's type (byte i = i * 7 + 1), run one
/// copy (a box at (0, col), or with col < 0 a byte range of `n` bytes at byte offset -col - 1),
/// compare with the host's bytes; exit 0 (ran, matched), 3 (kernel failed), 6 (ran, mismatch).
template <class P, class Box>
[[noreturn]] void run_child(int col, int n) {
  std::fflush(stdout);
  dup2(2, 1);  // device printf goes to stdout; the death test reads stderr
  using T = typename Box::element_type;
  const std::size_t bytes = std::size_t(rows) * cols * sizeof(T);
  std::vector<unsigned char> host(bytes);
  for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>(i * 7 + 1);
  unsigned char *d_in = nullptr, *d_out = nullptr;
  if (cudaMalloc(&d_in, bytes) != cudaSuccess || cudaMalloc(&d_out, 4096) != cudaSuccess) std::_Exit(5);
  cudaMemcpy(d_in, host.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0xA5, 4096);
  std::vector<unsigned char> want;
  try {
    if (col >= 0) {
      const auto src = porter::make_tiled_source<Box>(reinterpret_cast<const T*>(d_in), {rows, cols});
      porter::launch<P>(&strict_box_kernel<P, Box>, dim3(1), dim3(128), porter::pipeline<P, 1, Box>::shared_bytes, nullptr, src,
                        porter::coord<2>{0, col}, d_out);
      for (int r = 0; r < Box::dim(0); ++r)
        for (int c = 0; c < Box::dim(1) * int(sizeof(T)); ++c) want.push_back(host[std::size_t(r) * cols * sizeof(T) + std::size_t(col) * sizeof(T) + std::size_t(c)]);
    } else {
      const int off = -col - 1;
      porter::launch<P>(&strict_bytes_kernel<P>, dim3(1), dim3(128), porter::pipeline<P, 1, pt::bytes_box>::shared_bytes, nullptr,
                        static_cast<const unsigned char*>(d_in + off), n, d_out);
      want.assign(host.begin() + off, host.begin() + off + n);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child: porter::launch threw: %s\n", e.what());
    std::fflush(stderr);
    std::_Exit(4);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::fflush(stdout);
  std::fprintf(stderr, "child: cudaDeviceSynchronize: %s\n", cudaGetErrorString(e));
  if (e != cudaSuccess) {
    std::fflush(stderr);
    std::_Exit(3);
  }
  std::vector<unsigned char> got(want.size());
  cudaMemcpy(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost);
  const bool same = std::memcmp(got.data(), want.data(), want.size()) == 0;
  std::fprintf(stderr, "child: %s\n", same ? "bytes match" : "bytes differ");
  std::fflush(stderr);
  std::_Exit(same ? 0 : 6);
}

template <class P>
class StrictTrap : public ::testing::Test {};
using strict_paths = ::testing::Types<porter::path::tma, porter::path::cp_async>;
TYPED_TEST_SUITE(StrictTrap, strict_paths, pt::path_names);

TYPED_TEST(StrictTrap, aligned_box_runs_and_lands_its_bytes) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT((run_child<TypeParam, f32_box>(4, 0)), ::testing::ExitedWithCode(0), "child: bytes match");
}
TYPED_TEST(StrictTrap, unaligned_box_traps) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  if constexpr (std::is_same_v<TypeParam, porter::path::tma>) {
    // Float column 1 = 4 B: tma would move the box with thread loads.
    EXPECT_EXIT((run_child<TypeParam, f32_box>(1, 0)), ::testing::ExitedWithCode(3),
                "porter: strict paths: tma box at an innermost coordinate that is not a multiple of 16 B");
  } else {
    // Byte column 1: rows 1-byte aligned, below cp.async's 4 bytes.
    EXPECT_EXIT((run_child<TypeParam, u8_box>(1, 0)), ::testing::ExitedWithCode(3),
                "porter: strict paths: cp_async box whose rows are less than 4-byte aligned");
  }
}
TYPED_TEST(StrictTrap, unaligned_byte_range_traps) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  // 100 bytes from byte 3 into a 128-byte aligned buffer: source and destination disagree mod 16
  // (tma) and are only 1-byte aligned together (cp_async).
  const char* expect = std::is_same_v<TypeParam, porter::path::tma> ? "porter: strict paths: tma byte range whose source and destination disagree"
                                                                    : "porter: strict paths: cp_async byte range";
  EXPECT_EXIT((run_child<TypeParam, u8_box>(-4, 100)), ::testing::ExitedWithCode(3), expect);
}
TYPED_TEST(StrictTrap, aligned_byte_range_of_whole_chunks_runs) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  EXPECT_EXIT((run_child<TypeParam, u8_box>(-1, 512)), ::testing::ExitedWithCode(0), "child: bytes match");
}

// The host refuses what it can see, before the device is asked anything.
TEST(StrictHost, LaunchRefusesAForcedPathWhoseCopiesFallBack) {
  std::vector<float> host(std::size_t(rows) * cols);
  const auto src = porter::make_tiled_source<f32_box>(host.data(), {rows, cols});
  const porter::source_desc d = src.desc();
  unsigned char* out = nullptr;
  const auto opts = porter::launch_options{}.strict().copies_of(0, porter::tile_grid<2>({0, 1}, {8, 32}, {8, 32}));
  try {
    porter::launch<porter::path::tma>(opts, &strict_box_kernel<porter::path::tma, f32_box>, dim3(1), dim3(128), 4096, nullptr, src,
                                      porter::coord<2>{0, 1}, out);
    ADD_FAILURE() << "porter::launch accepted a strict launch whose copies fall back";
  } catch (const porter::error& e) {
    EXPECT_EQ(e.code(), porter::errc::path_unsupported);
    EXPECT_EQ(e.rule(), "launch.strict_paths");
    EXPECT_NE(std::string(e.what()).find("the box at (0, 1) (copy 0)"), std::string::npos) << e.what();
  }
  // A pattern for an argument that is not a tiled source is named as such.
  try {
    porter::launch<porter::path::tma>(porter::launch_options{}.copies_of(1, porter::tile_grid<2>({0, 0}, {8, 32}, {1, 1})),
                                      &strict_box_kernel<porter::path::tma, f32_box>, dim3(1), dim3(128), 4096, nullptr, src,
                                      porter::coord<2>{0, 0}, out);
    ADD_FAILURE() << "porter::launch accepted a copy pattern for a non-source argument";
  } catch (const porter::error& e) {
    EXPECT_EQ(e.rule(), "launch.copies_argument") << e.what();
  }
  (void)d;
}

}  // namespace
