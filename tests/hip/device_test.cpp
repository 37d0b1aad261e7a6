// tests/hip/device_test.cpp — tiles copied on an AMD GPU must equal the reference, byte for byte.
//
// Needs an AMD GPU; without one every test is skipped with the runtime's reason (this is the case in
// porter's CI, which compiles for gfx90a and checks the instructions but has no AMD hardware).
// Each test streams boxes through a 2-stage pipeline (staged and automatic, the two paths HIP has),
// writes every landed tile to global memory and compares it with the dense box layout built on the
// host: the same promise the NVIDIA paths keep (docs/design.md, invariant 1: bit-identical tiles across paths).
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "porter/porter.hpp"

namespace {

std::string no_gpu_reason() {
  std::string why;
  return porter::query_device(-1, &why) ? std::string() : why;
}

#define PORTER_REQUIRE_AMD_GPU()                                             \
  do {                                                                       \
    const std::string why_ = no_gpu_reason();                                \
    if (!why_.empty()) GTEST_SKIP() << "no AMD GPU to run on: " << why_;     \
  } while (0)

template <class Path, class Box>
__global__ void stream_tiles(const __grid_constant__ porter::tiled_source<Box> src, const porter::coord<Box::rank>* at,
                             int count, typename Box::element_type* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, Box> pipe(smem);
  porter::for_each_tile(pipe, src, count, [&](int i) { return at[i]; },
                        [&](const porter::tile_view<Box>& t, int i) {
                          for (unsigned k = threadIdx.x; k < Box::elements; k += blockDim.x)
                            out[std::size_t(i) * Box::elements + k] = t.data()[k];
                        });
}

template <class Path>
__global__ void stream_bytes(const unsigned char* src, unsigned bytes, unsigned char* out) {
  using B = porter::box<unsigned char, 4096>;
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, B> pipe(smem);
  porter::run_pipeline(
      pipe, 1, [&](auto& slot, int) { porter::async_copy(porter::buffer<0>(slot), src, bytes); },
      [&](const auto& ready, int) {
        for (unsigned k = threadIdx.x; k < bytes; k += blockDim.x) out[k] = ready.template bytes<0>()[k];
      });
}

void check(hipError_t e, const char* what) { ASSERT_EQ(e, hipSuccess) << what << ": " << hipGetErrorString(e); }

/// Dense 2D tensor of T at `offset` bytes into a device allocation, pitch `pitch` elements.
template <class Path, class Box>
void run_2d(int h, int w, int pitch, std::size_t offset, const std::vector<porter::coord<2>>& ats) {
  using T = typename Box::element_type;
  std::vector<unsigned char> host(std::size_t(h) * pitch * sizeof(T) + offset);
  std::mt19937 rng(unsigned(h * 131 + w + offset));
  for (auto& c : host) c = static_cast<unsigned char>(rng() | 1u);
  unsigned char* d_src = nullptr;
  T* d_out = nullptr;
  porter::coord<2>* d_at = nullptr;
  check(hipMalloc(&d_src, host.size()), "hipMalloc");
  check(hipMalloc(&d_out, ats.size() * Box::bytes), "hipMalloc");
  check(hipMalloc(&d_at, ats.size() * sizeof(porter::coord<2>)), "hipMalloc");
  check(hipMemcpy(d_src, host.data(), host.size(), hipMemcpyHostToDevice), "hipMemcpy");
  check(hipMemcpy(d_at, ats.data(), ats.size() * sizeof(porter::coord<2>), hipMemcpyHostToDevice), "hipMemcpy");
  const T* base = reinterpret_cast<const T*>(d_src + offset);
  auto src = porter::make_tiled_source<Box>(base, {h, w}, {pitch}, Box{});
  // automatic is chosen on the host among the kernel's instantiations (on AMD: staged).
  porter::launch<Path>(porter::kernel_family{[](auto p) { return &stream_tiles<decltype(p), Box>; }}, dim3(1), dim3(256),
                       porter::stage_ring<2, Box>::bytes, nullptr, src, d_at, int(ats.size()), d_out);
  check(hipDeviceSynchronize(), "kernel");
  std::vector<unsigned char> got(ats.size() * Box::bytes);
  check(hipMemcpy(got.data(), d_out, got.size(), hipMemcpyDeviceToHost), "hipMemcpy");
  for (std::size_t i = 0; i < ats.size(); ++i) {
    std::vector<unsigned char> ref(Box::bytes, 0);
    for (int r = 0; r < Box::dim(0); ++r)
      for (int c = 0; c < Box::dim(1); ++c) {
        const int gr = ats[i][0] + r, gc = ats[i][1] + c;
        if (gr >= 0 && gr < h && gc >= 0 && gc < w)
          std::memcpy(&ref[(std::size_t(r) * Box::dim(1) + c) * sizeof(T)],
                      &host[offset + (std::size_t(gr) * pitch + gc) * sizeof(T)], sizeof(T));
      }
    EXPECT_EQ(0, std::memcmp(ref.data(), got.data() + i * Box::bytes, Box::bytes))
        << porter::path_name<Path> << ": tile " << i << " at (" << ats[i][0] << ", " << ats[i][1] << "), offset "
        << offset << " B, pitch " << pitch;
  }
  (void)hipFree(d_src);
  (void)hipFree(d_out);
  (void)hipFree(d_at);
}

const std::vector<porter::coord<2>> corners = {{0, 0}, {-3, -5}, {90, 100}, {40, 60}, {-1, 119}, {97, -2}, {200, 200}};

TEST(HipDevice, FloatTilesEveryAlignmentStagedAndAutomatic) {
  PORTER_REQUIRE_AMD_GPU();
  using B = porter::box<float, 16, 40>;
  for (std::size_t offset : {0, 4, 8, 12, 2, 1})
    for (int pitch : {128, 125}) {
      run_2d<porter::path::staged, B>(100, 120, pitch, offset, corners);
      run_2d<porter::path::automatic, B>(100, 120, pitch, offset, corners);
    }
}

TEST(HipDevice, ByteAndEightByteTiles) {
  PORTER_REQUIRE_AMD_GPU();
  for (std::size_t offset : {0, 1, 6, 16}) {
    run_2d<porter::path::staged, porter::box<std::uint8_t, 8, 72>>(100, 120, 160, offset, corners);
    run_2d<porter::path::automatic, porter::box<std::uint64_t, 8, 12>>(100, 120, 121, offset * 8, corners);
  }
}

TEST(HipDevice, ByteRangesEveryAlignmentAndLength) {
  PORTER_REQUIRE_AMD_GPU();
  std::vector<unsigned char> host(4096 + 64);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned char>(i * 29 + 3);
  unsigned char *d_src = nullptr, *d_out = nullptr;
  check(hipMalloc(&d_src, host.size()), "hipMalloc");
  check(hipMalloc(&d_out, 4096), "hipMalloc");
  check(hipMemcpy(d_src, host.data(), host.size(), hipMemcpyHostToDevice), "hipMemcpy");
  using Pipe = porter::pipeline<porter::path::staged, 2, porter::box<unsigned char, 4096>>;
  for (unsigned off = 0; off < 16; ++off)
    for (unsigned bytes : {0u, 1u, 15u, 16u, 17u, 1000u, 4095u, 4096u}) {
      porter::launch<porter::path::staged>(stream_bytes<porter::path::staged>, dim3(1), dim3(192), Pipe::shared_bytes, nullptr,
                                           static_cast<const unsigned char*>(d_src + off), bytes, d_out);
      check(hipDeviceSynchronize(), "kernel");
      std::vector<unsigned char> got(bytes);
      check(hipMemcpy(got.data(), d_out, bytes, hipMemcpyDeviceToHost), "hipMemcpy");
      EXPECT_EQ(0, std::memcmp(got.data(), host.data() + off, bytes)) << "offset " << off << ", " << bytes << " B";
    }
  (void)hipFree(d_src);
  (void)hipFree(d_out);
}

TEST(HipDevice, MoreLdsThanTheDeviceHasIsRefusedBeforeLaunch) {
  PORTER_REQUIRE_AMD_GPU();
  using B = porter::box<float, 24, 256>;  // 3 stages of 24 KiB: 72 KiB + header
  const auto caps = porter::require_device();
  const std::size_t need = porter::pipeline<porter::path::staged, 3, B>::shared_bytes;
  if (need <= caps.smem_per_block_optin) GTEST_SKIP() << caps.describe() << " has " << caps.smem_per_block_optin << " B of LDS";
  auto src = porter::make_tiled_source<B>(reinterpret_cast<const float*>(std::uintptr_t(0x10000)), {48, 512});
  try {
    porter::launch<porter::path::staged>(stream_tiles<porter::path::staged, B>, dim3(1), dim3(256), need, nullptr, src,
                                         static_cast<const porter::coord<2>*>(nullptr), 0, static_cast<float*>(nullptr));
    FAIL() << "a launch needing " << need << " B of LDS was not refused";
  } catch (const porter::error& e) {
    EXPECT_EQ(e.rule(), "launch.lds_capacity");
    EXPECT_NE(std::string(e.what()).find(std::to_string(need)), std::string::npos) << e.what();
  }
}

/// A role-split ring (porter::role_pipeline on staged: FULL / EMPTY as LDS phase counters): the
/// producer wavefronts land the box at at[i], the consumer wavefronts write it out; the consumers
/// also meet at their role barrier every fifth step, and the producers once at the end.
template <int S, class Roles, class Box>
__global__ void __launch_bounds__(Roles::threads)
    role_tiles(const __grid_constant__ porter::tiled_source<Box> src, const porter::coord<2>* at, int count, typename Box::element_type* out) {
  extern __shared__ unsigned char smem[];
  porter::role_pipeline<porter::path::staged, Roles, S, Box> pipe(smem);
  if (pipe.is_producer()) {
    pipe.enter_role();
    for (int i = 0; i < count; ++i) {
      auto slot = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(slot), src, at[i]);
      pipe.producer_commit(slot);
    }
    pipe.sync_role();
    return;
  }
  pipe.enter_role();
  const unsigned r = threadIdx.x - Roles::producer_threads;
  for (int i = 0; i < count; ++i) {
    auto ready = pipe.consumer_wait();
    const porter::tile_view<Box> t = ready.template tile<0>();
    for (unsigned k = r; k < Box::elements; k += Roles::consumer_threads) out[std::size_t(i) * Box::elements + k] = t.data()[k];
    pipe.consumer_release(ready);
    if (i % 5 == 4) pipe.sync_role();
  }
}

/// Every tile of a role ring of S stages equals the host's dense box, and the guard after the
/// output keeps its poison.
template <int S, class Roles>
void run_roles(int count) {
  using Box = porter::box<float, 16, 40>;
  const int h = 100, w = 120, pitch = 125;
  std::vector<float> host(std::size_t(h) * pitch);
  std::mt19937 rng(unsigned(S * 7919 + count));
  std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
  for (auto& x : host) x = dist(rng);
  std::vector<porter::coord<2>> ats(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) ats[std::size_t(i)] = corners[std::size_t(i) % corners.size()];
  const std::size_t out_elems = std::size_t(count) * Box::elements, guard = 1024;
  float *d_src = nullptr, *d_out = nullptr;
  porter::coord<2>* d_at = nullptr;
  check(hipMalloc(&d_src, host.size() * sizeof(float)), "hipMalloc");
  check(hipMalloc(&d_out, (out_elems + guard) * sizeof(float)), "hipMalloc");
  check(hipMalloc(&d_at, ats.size() * sizeof(porter::coord<2>)), "hipMalloc");
  check(hipMemcpy(d_src, host.data(), host.size() * sizeof(float), hipMemcpyHostToDevice), "hipMemcpy");
  check(hipMemcpy(d_at, ats.data(), ats.size() * sizeof(porter::coord<2>), hipMemcpyHostToDevice), "hipMemcpy");
  check(hipMemset(d_out, 0xA5, (out_elems + guard) * sizeof(float)), "hipMemset");  // poison, guard included
  auto src = porter::make_tiled_source<Box>(d_src, {h, w}, {pitch}, Box{});
  using Pipe = porter::role_pipeline<porter::path::staged, Roles, S, Box>;
  porter::launch<porter::path::staged>(porter::launch_options{}.uses_role_pipeline(), &role_tiles<S, Roles, Box>, dim3(1),
                                       dim3(Roles::threads), Pipe::shared_bytes, nullptr, src,
                                       static_cast<const porter::coord<2>*>(d_at), count, d_out);
  check(hipDeviceSynchronize(), "kernel");
  std::vector<float> got(out_elems + guard);
  check(hipMemcpy(got.data(), d_out, got.size() * sizeof(float), hipMemcpyDeviceToHost), "hipMemcpy");
  for (int i = 0; i < count; ++i) {
    std::vector<float> ref(Box::elements, 0.f);
    for (int rr = 0; rr < Box::dim(0); ++rr)
      for (int c = 0; c < Box::dim(1); ++c) {
        const int gr = ats[std::size_t(i)][0] + rr, gc = ats[std::size_t(i)][1] + c;
        if (gr >= 0 && gr < h && gc >= 0 && gc < w) ref[std::size_t(rr) * Box::dim(1) + c] = host[std::size_t(gr) * pitch + gc];
      }
    EXPECT_EQ(0, std::memcmp(ref.data(), got.data() + std::size_t(i) * Box::elements, Box::bytes))
        << "role ring S = " << S << ", " << Roles::producer_threads << " + " << Roles::consumer_threads << " threads: tile " << i;
  }
  std::uint32_t poison = 0;
  std::memset(&poison, 0xA5, sizeof poison);
  for (std::size_t k = out_elems; k < got.size(); ++k) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &got[k], sizeof bits);
    ASSERT_EQ(bits, poison) << "guard element " << k - out_elems << " after the output was written";
  }
  (void)hipFree(d_src);
  (void)hipFree(d_out);
  (void)hipFree(d_at);
}

TEST(HipDevice, RolePipelineLandsEveryStage) {
  PORTER_REQUIRE_AMD_GPU();
  using one_two = porter::roles<porter::warps<2>, porter::warps<4>>;          // one producer, two consumer wavefronts
  using two_four = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>>;  // two producer, four consumer wavefronts
  for (int count : {1, 2, 7, 40}) {
    run_roles<1, one_two>(count);
    run_roles<2, one_two>(count);
    run_roles<3, two_four>(count);
    run_roles<4, one_two>(count);
  }
}

}  // namespace
