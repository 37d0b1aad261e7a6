// tests/device/test_wgmma.cu — porter::wgmma_descriptor read by real sm_90a wgmma.mma_async, on tiles
// landed by every path, against a CPU float64 GEMM.
//
// One case is one CTA of a launch (16 per launch at full scale, 6 under the sanitizers, every
// edge mode and both A halves in each) of a small warp-specialized GEMM: a porter::role_pipeline (one producer
// warpgroup, one consumer warpgroup) fills S stages with an A box (128 rows of M x one swizzle span
// of K) and a B box (256 rows of N x the same K), each swizzled 32, 64 or 128 B; the consumer
// multiplies the landed tiles with wgmma.mma_async m64n256k16 (bench/kernels/wgmma_consumer.cuh,
// the consumer porter-bench's GEMM uses) through porter::wgmma_descriptor(tile, row0, 16 kk), with
// row0 = 0 or 64 (which half of the A box), over every K-tile of the problem: at S = 1 waiting for
// each stage's MMAs before releasing it, at S >= 2 keeping one stage's MMAs in flight as the bench
// kernel does. The consumer waits with porter::async_proxy_reads (cp_async and staged land the
// bytes through the generic proxy; wgmma reads through the async proxy). Each CTA stores its
// 64 x 256 fp32 block densely.
//
// What it checks: the descriptor (start address, stride byte offset, swizzle code) against the
// bytes tma writes in hardware and cp_async / staged write in software, at every swizzle mode, for
// K-tiles that wrap the ring many times; tile origins across and outside every edge (rows and
// columns outside A or B must come out exactly 0: those boxes land as zeros), K not a multiple of
// the span (the K tail lands as zeros), and the padding between K and the row pitch filled with
// large values that would show if read. Reference: float64 on the CPU; tolerance the fp32
// accumulation bound (K + 16) x 2^-23 x sum |a b| (a wrong descriptor is off by O(1)). Output
// poisoned (0xA5) before the launch, guards of 256 bytes either side checked after.
//
// Built for sm_90a only (tests/device/CMakeLists.txt); skips on a device that is not 9.0.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include <cuda_bf16.h>
#include <porter/porter.hpp>

#include "harness.hpp"
#include "wgmma_consumer.cuh"

namespace pt = porter_test;

namespace {

constexpr int wg_rows = 64, b_rows = 256, a_rows = 128;
using roles = porter::roles<porter::warpgroups<1>, porter::warpgroups<1>>;

template <porter::swizzle Swz>
struct operand_boxes {
  static constexpr int span = int(porter::swizzle_span(Swz)) / 2;  // K elements per stage: one swizzle span
  using a = porter::swizzled<porter::box<__nv_bfloat16, a_rows, span>, Swz>;
  using b = porter::swizzled<porter::box<__nv_bfloat16, b_rows, span>, Swz>;
};

/// Per CTA: the tile's first row of A's box, its first column (row of B), which 64-row half of the
/// A box the consumer multiplies.
struct tile_job {
  int m0, n0, half;
};

/// The GEMM under test (see the file comment). out: 64 x 256 fp32 per CTA, row-major.
template <class Path, porter::swizzle Swz, int S>
__global__ void __launch_bounds__(roles::threads, 1)
    wgmma_gemm_kernel(const __grid_constant__ porter::tiled_source<typename operand_boxes<Swz>::a> a,
                      const __grid_constant__ porter::tiled_source<typename operand_boxes<Swz>::b> b, const tile_job* jobs, int k,
                      float* out) {
  using boxes = operand_boxes<Swz>;
  constexpr int span = boxes::span;
  extern __shared__ __align__(1024) unsigned char smem[];
  porter::role_pipeline<Path, roles, S, typename boxes::a, typename boxes::b> pipe(smem);
  const tile_job job = jobs[blockIdx.x];
  const int ktiles = (k + span - 1) / span;
  if (pipe.is_producer()) {
    for (int kt = 0; kt < ktiles; ++kt) {
      auto slot = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(slot), a, porter::coord<2>{job.m0, kt * span});
      porter::async_copy(porter::buffer<1>(slot), b, porter::coord<2>{job.n0, kt * span});
      pipe.producer_commit(slot);
    }
    return;
  }
  float acc[pb::wgmma_n256_accumulators];
  auto stage = [&](const auto& ready, bool accumulate) {
    const auto ta = ready.template tile<0>();
    const auto tb = ready.template tile<1>();
    pb::wgmma_fence_operands(acc);
    pb::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < span / 16; ++kk)
      pb::wgmma_m64n256k16_bf16(acc, porter::wgmma_descriptor(ta, wg_rows * job.half, 16 * kk), porter::wgmma_descriptor(tb, 0, 16 * kk),
                                accumulate || kk > 0);
    pb::wgmma_commit();
    pb::wgmma_fence_operands(acc);
  };
  if constexpr (S == 1) {
    // One stage: it must be released before the next K-tile can land in it, so each stage's MMAs
    // are waited for before its release.
    for (int kt = 0; kt < ktiles; ++kt) {
      auto ready = pipe.consumer_wait(porter::async_proxy_reads);  // cp_async, staged: fence.proxy.async before wgmma reads
      stage(ready, kt > 0);
      pb::wgmma_wait<0>();
      pipe.consumer_release(ready);
    }
    pb::wgmma_fence_operands(acc);
  } else {
    // One stage's MMAs in flight (the bench kernel's loop): stage i - 1 is released after stage i's
    // MMAs are issued and i - 1's group is complete. Needs S >= 2: with one stage the consumer would
    // hold the only stage while waiting for its next pass.
    auto prev = pipe.consumer_wait(porter::async_proxy_reads);
    stage(prev, false);
    for (int kt = 1; kt < ktiles; ++kt) {
      auto cur = pipe.consumer_wait(porter::async_proxy_reads);
      stage(cur, true);
      pb::wgmma_wait<1>();
      pipe.consumer_release(prev);
      prev = std::move(cur);
    }
    pb::wgmma_wait<0>();
    pb::wgmma_fence_operands(acc);
    pipe.consumer_release(prev);
  }
  // The accumulator layout of wgmma_consumer.cuh: warp w, lane l, g = l / 4, t = l % 4.
  const int r = int(threadIdx.x) - int(roles::producer_threads), w = r / 32, g = (r % 32) / 4, t = r % 4;
  float* o = out + std::size_t(blockIdx.x) * wg_rows * b_rows;
  for (int j = 0; j < b_rows / 8; ++j)
    for (int h = 0; h < 2; ++h) {
      const int row = 16 * w + g + 8 * h, col = 8 * j + 2 * t;
      o[row * b_rows + col] = acc[4 * j + 2 * h];
      o[row * b_rows + col + 1] = acc[4 * j + 2 * h + 1];
    }
}

/// bf16 values in [-1, 1) with at most 8 significant bits, as float and as bits.
__nv_bfloat16 random_bf16(std::mt19937_64& rng) {
  return __float2bfloat16(float(int(rng() % 511) - 255) / 256.f);
}

template <class Path, porter::swizzle Swz, int S>
void run_wgmma_cases(pt::test_tally& tt, int problems) {
  using boxes = operand_boxes<Swz>;
  constexpr int span = boxes::span;
  using Pipe = porter::role_pipeline<Path, roles, S, typename boxes::a, typename boxes::b>;
  const std::string label = std::string("wgmma ") + porter::path_name<Path> + " swizzle " + std::to_string(porter::swizzle_span(Swz)) +
                            " S=" + std::to_string(S);
  for (int p = 0; p < problems; ++p) {
    std::mt19937_64 rng(pt::case_seed(label, p));
    const int m = 1 + int(rng() % 300), n = 1 + int(rng() % 600), k = 1 + int(rng() % std::uint64_t(3 * span + 2 * span * S + 9));
    const int lda = (k + 7) / 8 * 8 + 8 * int(rng() % 3), ldb = (k + 7) / 8 * 8 + 8 * int(rng() % 3);  // 16-byte rows, padded
    std::vector<__nv_bfloat16> ha(std::size_t(m) * lda), hb(std::size_t(n) * ldb);
    const __nv_bfloat16 pad = __float2bfloat16(4096.f);  // would dominate any sum it entered
    for (int i = 0; i < m; ++i)
      for (int q = 0; q < lda; ++q) ha[std::size_t(i) * lda + q] = q < k ? random_bf16(rng) : pad;
    for (int i = 0; i < n; ++i)
      for (int q = 0; q < ldb; ++q) hb[std::size_t(i) * ldb + q] = q < k ? random_bf16(rng) : pad;
    // Tile origins: inside, on and across every edge, and wholly outside.
    // One case is one CTA (one 64 x 256 block against float64); more CTAs cost one launch.
    const int ctas = pt::cases(16, 6);
    std::vector<tile_job> jobs(static_cast<std::size_t>(ctas));
    auto below = [&](int bound) { return int(rng() % std::uint64_t(bound)); };  // 0 .. bound-1
    for (int c = 0; c < ctas; ++c) {
      const int mode = c % 5;  // every edge mode in every launch (4: random origin)
      tile_job& jb = jobs[std::size_t(c)];
      // mode 0: the origin; 1: the last box that touches the far edges; 2 / 3: before row / column 0;
      // otherwise anywhere up to just past the far edge.
      jb.m0 = mode == 0 ? 0 : mode == 1 ? m - a_rows + below(3) : mode == 2 ? 0 - below(130) : below(m + 8);
      jb.n0 = mode == 0 ? 0 : mode == 1 ? n - b_rows + below(3) : mode == 3 ? 0 - below(260) : below(n + 8);
      jobs[std::size_t(c)].half = (c / 5) % 2;  // both A halves (row0 0 and 64) in every launch
    }
    const std::size_t out_elems = std::size_t(ctas) * wg_rows * b_rows, out_bytes = out_elems * 4;
    __nv_bfloat16 *da = nullptr, *db = nullptr;
    tile_job* dj = nullptr;
    unsigned char* dout = nullptr;
    ASSERT_EQ(cudaMalloc(&da, ha.size() * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&db, hb.size() * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dj, jobs.size() * sizeof(tile_job)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dout, out_bytes + 2 * pt::guard_bytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(da, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(db, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dj, jobs.data(), jobs.size() * sizeof(tile_job), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(dout, pt::poison_byte, out_bytes + 2 * pt::guard_bytes), cudaSuccess);
    const std::int64_t ea[2] = {m, k}, sa[1] = {lda}, eb[2] = {n, k}, sb[1] = {ldb};
    const auto src_a = porter::make_tiled_source<typename boxes::a>(da, ea, sa, typename boxes::a{});
    const auto src_b = porter::make_tiled_source<typename boxes::b>(db, eb, sb, typename boxes::b{});
    float* o = reinterpret_cast<float*>(dout + pt::guard_bytes);
    porter::launch<Path>(porter::launch_options{}.uses_role_pipeline(), &wgmma_gemm_kernel<Path, Swz, S>, dim3(unsigned(ctas)),
                         dim3(roles::threads), Pipe::shared_bytes, nullptr, src_a, src_b, static_cast<const tile_job*>(dj), k, o);
    std::string err;
    ASSERT_TRUE(pt::sync_launch(label, &err)) << err;
    std::vector<unsigned char> got(out_bytes + 2 * pt::guard_bytes);
    ASSERT_EQ(cudaMemcpy(got.data(), dout, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dj);
    cudaFree(dout);
    for (std::size_t i = 0; i < pt::guard_bytes; ++i)
      if (got[i] != pt::poison_byte || got[got.size() - 1 - i] != pt::poison_byte) {
        if (tt.mismatch()) ADD_FAILURE() << label << ": a guard byte around the output changed; " << pt::seed_text();
        break;
      }
    const float* c = reinterpret_cast<const float*>(got.data() + pt::guard_bytes);
    const double bound = double(k + 16) * std::ldexp(1.0, -23);
    for (int cta = 0; cta < ctas; ++cta) {
      const tile_job& jb = jobs[std::size_t(cta)];
      long long bad = 0;
      std::string first;
      for (int i = 0; i < wg_rows; ++i)
        for (int j = 0; j < b_rows; ++j) {
          const int row = jb.m0 + wg_rows * jb.half + i, col = jb.n0 + j;
          double ref = 0, mag = 0;
          if (row >= 0 && row < m && col >= 0 && col < n)
            for (int q = 0; q < k; ++q) {
              const double x = double(__bfloat162float(ha[std::size_t(row) * lda + q])) * double(__bfloat162float(hb[std::size_t(col) * ldb + q]));
              ref += x;
              mag += std::fabs(x);
            }
          const float have = c[(std::size_t(cta) * wg_rows + i) * b_rows + j];
          const bool ok = mag == 0 ? have == 0.f : std::fabs(double(have) - ref) <= bound * mag;
          if (!ok && bad++ == 0) {
            std::ostringstream s;
            s << "C(" << row << ", " << col << ") = " << have << ", want " << ref << " (sum |a b| " << mag << ")";
            first = s.str();
          }
        }
      if (bad != 0) {
        if (tt.mismatch())
          ADD_FAILURE() << label << ": M " << m << " N " << n << " K " << k << " lda " << lda << " ldb " << ldb << ", CTA " << cta << " at (" << jb.m0
                        << ", " << jb.n0 << ") half " << jb.half << ": " << bad << " of " << wg_rows * b_rows << " entries wrong, first " << first
                        << "; " << pt::seed_text();
      } else {
        tt.ran(1, wg_rows * b_rows * 4);
      }
    }
  }
}

template <class Path>
void run_every_mode(pt::test_tally& tt) {
  const int n = pt::cases(3, 1);
  run_wgmma_cases<Path, porter::swizzle::b32, 1>(tt, n);
  run_wgmma_cases<Path, porter::swizzle::b32, 3>(tt, n);
  run_wgmma_cases<Path, porter::swizzle::b64, 2>(tt, n);
  run_wgmma_cases<Path, porter::swizzle::b64, 4>(tt, n);
  run_wgmma_cases<Path, porter::swizzle::b128, 1>(tt, n);
  run_wgmma_cases<Path, porter::swizzle::b128, 2>(tt, n);
  run_wgmma_cases<Path, porter::swizzle::b128, 4>(tt, n);
}

template <class P>
class Wgmma : public ::testing::Test {};
using paths = ::testing::Types<porter::path::tma, porter::path::cp_async, porter::path::staged>;
struct path_names {
  template <class P>
  static std::string GetName(int) {
    return porter::path_name<P>;
  }
};
TYPED_TEST_SUITE(Wgmma, paths, path_names);

TYPED_TEST(Wgmma, descriptors_of_landed_tiles_every_swizzle_against_fp64) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  const porter::device_caps* caps = pt::gpu();
  if (!caps || caps->compute_capability() != 90) GTEST_SKIP() << "wgmma is an sm_90a instruction: needs a compute capability 9.0 GPU";
  pt::test_tally tt;
  run_every_mode<TypeParam>(tt);
}

}  // namespace
