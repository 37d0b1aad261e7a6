// tests/device/test_launch.cu — porter::launch's attributes on the GPU, on every concrete path:
//
//   Launch/<path>.struct_source        a tiled source inside a __grid_constant__ struct parameter
//                                      (field 2 of `held_source`), copied tile by tile through a
//                                      pipeline: on tma the tensor map is read through the
//                                      parameter's address (porter traps when __isGridConstant
//                                      fails, so a pass proves it holds for a member);
//   Launch/<path>.cluster_of_2         the same kernel launched in clusters of 2 CTAs
//                                      (launch_options::cluster): bytes as before, and every CTA sees
//                                      cluster_rank() == blockIdx.x % 2, cluster_size() == 2, and
//                                      passes cluster_sync();
//   Launch/<path>.dependent_launch     kernel A copies the tiles slowly and calls launch_dependents()
//                                      first; kernel B, launched with programmatic_dependent_launch(),
//                                      calls wait_prior_grid() and then copies A's output through a
//                                      pipeline of its own: B's bytes must equal the reference (a
//                                      wait that does not wait reads A's poisoned output);
//   Launch/<path>.forced_tma_struct_refused (tma only) a forced tma launch of a struct holding a
//                                      source that tma cannot read is refused on the host, naming
//                                      the argument, the field and the rule.
// Every case: fresh random data (seed printed), a TMA-legal or random layout, the output poisoned
// (0xA5) with 256-byte guards that must stay poisoned, every byte compared with the CPU reference.
// Clusters and dependent launches need compute capability 9.0: skipped with the reason below it.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "runners.cuh"

namespace pt = porter_test;

namespace {

using tile = porter::box<float, 16, 32>;  // 2 KiB, 128-byte rows

/// A kernel parameter that holds a source as a field (field 2): porter::launch finds it, and the
/// kernel reads it through the grid-constant parameter.
struct held_source {
  int tiles_per_row;            ///< tile t is at row (t / tiles_per_row) * 16, column (t % tiles_per_row) * 32
  porter::tile_schedule sched;  ///< which tiles each CTA copies
  porter::tiled_source<tile> src;
};

enum : int { flag_cluster = 1, flag_wait = 2, flag_signal = 4, flag_slow = 8 };

/// Copy each tile t of p.src (through a 2-stage pipeline of Path) to out + t * tile::bytes.
/// flag_signal: launch_dependents() first; flag_slow: spin ~0.1 ms before copying; flag_wait:
/// wait_prior_grid() before the first read; flag_cluster: record the cluster rank and size in
/// ranks[blockIdx.x] (rank | size << 16) and pass cluster_sync().
template <class Path>
__global__ void held_copy_kernel(const __grid_constant__ held_source p, unsigned char* out, unsigned* ranks, int flags) {
  extern __shared__ unsigned char smem[];
  if (flags & flag_signal) porter::launch_dependents();
  if (flags & flag_slow) {
    const long long t0 = clock64();
    while (clock64() - t0 < 200000) {
    }
  }
  if (flags & flag_wait) porter::wait_prior_grid();
  porter::pipeline<Path, 2, tile> pipe(smem);
  porter::for_each_tile(
      pipe, p.src, p.sched,
      [&](long long t) { return porter::coord<2>{int(t / p.tiles_per_row) * 16, int(t % p.tiles_per_row) * 32}; },
      [&](porter::tile_view<tile> v, long long t) {
        pt::dev::store_bytes<tile::bytes>(out + std::size_t(t) * tile::bytes, reinterpret_cast<const unsigned char*>(v.data()));
      });
  if (flags & flag_cluster) {
    if (threadIdx.x == 0) ranks[blockIdx.x] = porter::cluster_rank() | porter::cluster_size() << 16;
    porter::cluster_sync();
  }
}

constexpr std::size_t smem_bytes = porter::pipeline<porter::path::staged, 2, tile>::shared_bytes;

/// A device buffer of `bytes` between two 256-byte guards, every byte poisoned.
struct guarded {
  unsigned char* base = nullptr;
  std::size_t bytes = 0;
  explicit guarded(std::size_t n) : bytes(n) {
    if (cudaMalloc(&base, n + 2 * pt::guard_bytes) != cudaSuccess) base = nullptr;
    if (base) cudaMemset(base, pt::poison_byte, n + 2 * pt::guard_bytes);
  }
  ~guarded() { cudaFree(base); }
  guarded(const guarded&) = delete;
  guarded& operator=(const guarded&) = delete;
  unsigned char* data() const { return base + pt::guard_bytes; }
  /// The whole image, guards included.
  std::vector<unsigned char> fetch() const {
    std::vector<unsigned char> h(bytes + 2 * pt::guard_bytes);
    cudaMemcpy(h.data(), base, h.size(), cudaMemcpyDeviceToHost);
    return h;
  }
};

/// Compare an output image (guards included) with `want` (tiles back to back); false with a message.
bool compare(const std::vector<unsigned char>& image, const std::vector<unsigned char>& want, const std::string& what, std::string* msg) {
  for (std::size_t i = 0; i < pt::guard_bytes; ++i)
    if (image[i] != pt::poison_byte || image[image.size() - 1 - i] != pt::poison_byte) {
      *msg = what + ": a guard byte was written (" + (image[i] != pt::poison_byte ? "before" : "after") + " the output)";
      return false;
    }
  std::size_t count = 0;
  const long long at = pt::first_difference(image.data() + pt::guard_bytes, want.data(), want.size(), &count);
  if (at < 0) return true;
  *msg = what + ": " + std::to_string(count) + " bytes differ, the first at byte " + std::to_string(at) + " (tile " +
         std::to_string(at / tile::bytes) + "): " + pt::bytes_around(image.data() + pt::guard_bytes, want.data(), want.size(), std::size_t(at));
  return false;
}

/// One random case: the tensor in device memory, its source, the reference tiles.
struct launch_case {
  pt::host_tensor t;
  unsigned char* dev = nullptr;
  held_source p{};
  int tiles = 0;
  std::vector<unsigned char> want;
  std::string describe;
  launch_case(std::uint64_t seed, bool tma_legal) {
    std::mt19937_64 rng(seed);
    pt::geometry g;
    g.rank = 2;
    g.es = 4;
    g.box[0] = 16;
    g.box[1] = 32;
    g.extent[0] = std::int64_t(rng() % 80 + 1);
    g.extent[1] = std::int64_t(rng() % 200 + 1);
    // 16-byte multiple pitch (TMA-legal), or one float more: not a multiple of 16 bytes.
    g.stride[0] = (g.extent[1] + 3) / 4 * 4 + 4 * std::int64_t(rng() % 3) + (tma_legal ? 0 : 1);
    g.stride[1] = 1;
    g.offset = 0;
    t = pt::make_tensor(rng, g);
    if (cudaMalloc(&dev, t.image.size()) != cudaSuccess) dev = nullptr;
    if (dev) cudaMemcpy(dev, t.image.data(), t.image.size(), cudaMemcpyHostToDevice);
    const int tr = int((g.extent[0] + 15) / 16), tc = int((g.extent[1] + 31) / 32);
    tiles = tr * tc;
    p.tiles_per_row = tc;
    // Persistent round-robin over an even grid (clusters of 2), some CTAs with no tile at all.
    const int grid = 2 * int((std::min(tiles, 40) + 1) / 2) + 2 * int(rng() % 2);
    p.sched = porter::tile_schedule{tiles, 0, grid};
    want.resize(std::size_t(tiles) * tile::bytes);
    for (int i = 0; i < tiles; ++i) {
      const int at[2] = {(i / tc) * 16, (i % tc) * 32};
      pt::reference_box(t, at, want.data() + std::size_t(i) * tile::bytes);
    }
    describe = g.describe() + ", " + std::to_string(tiles) + " tiles over " + std::to_string(grid) + " CTAs, " + pt::seed_text();
  }
  ~launch_case() { cudaFree(dev); }
  launch_case(const launch_case&) = delete;
  launch_case& operator=(const launch_case&) = delete;
  const float* first() const { return reinterpret_cast<const float*>(dev + t.origin); }
  porter::tiled_source<tile> build() const {
    return porter::make_tiled_source<tile>(first(), {t.g.extent[0], t.g.extent[1]}, {t.g.stride[0]});
  }
};

/// The porter::error `f` throws, if any.
template <class F>
std::optional<porter::error> porter_test_thrown(F&& f) {
  try {
    f();
  } catch (const porter::error& e) {
    return e;
  }
  return std::nullopt;
}

bool device_has_clusters(std::string* why) {
  const porter::device_caps* caps = pt::gpu(why);
  if (!caps) return false;
  if (caps->compute_capability() >= 90) return true;
  *why = "clusters and programmatic dependent launch need compute capability 9.0; " + caps->describe() + " has " +
         std::to_string(caps->cc_major) + "." + std::to_string(caps->cc_minor);
  return false;
}

template <class P>
class Launch : public ::testing::Test {};
TYPED_TEST_SUITE(Launch, pt::concrete_paths, pt::path_names);

/// Run `n` cases of one launch form; `cluster`: in clusters of 2.
template <class P>
void run_held_copy(pt::test_tally& tt, const char* list, int n, bool cluster) {
  for (int i = 0; i < n; ++i) {
    launch_case c(pt::case_seed(list, i), std::is_same_v<P, porter::path::tma> || i % 2 == 0);
    ASSERT_NE(c.dev, nullptr);
    c.p.src = c.build();
    if (!c.p.src.supports(P::id)) {  // e.g. tma on the odd pitch: refused on the host
      const auto e = porter_test_thrown([&] {
        porter::launch<P>(porter::launch_options{}, &held_copy_kernel<P>, dim3(c.p.sched.grid), dim3(128), smem_bytes, nullptr, c.p,
                          static_cast<unsigned char*>(nullptr), static_cast<unsigned*>(nullptr), 0);
      });
      EXPECT_TRUE(e && e->rule() == "launch.source_path") << c.describe;
      tt.refused();
      continue;
    }
    guarded out(c.want.size());
    unsigned* ranks = nullptr;
    ASSERT_EQ(cudaMalloc(&ranks, sizeof(unsigned) * std::size_t(c.p.sched.grid)), cudaSuccess);
    cudaMemset(ranks, 0xFF, sizeof(unsigned) * std::size_t(c.p.sched.grid));
    const porter::launch_options o = cluster ? porter::launch_options{}.cluster(dim3(2)) : porter::launch_options{};
    porter::launch<P>(o, &held_copy_kernel<P>, dim3(c.p.sched.grid), dim3(128), smem_bytes, nullptr, c.p, out.data(), ranks,
                      cluster ? int(flag_cluster) : 0);
    std::string err;
    ASSERT_TRUE(pt::sync_launch(std::string(list) + " on " + porter::path_name<P>, &err)) << err << "; " << c.describe;
    std::string msg;
    if (!compare(out.fetch(), c.want, list, &msg) && tt.mismatch()) ADD_FAILURE() << msg << "; " << c.describe;
    if (cluster) {
      std::vector<unsigned> r(std::size_t(c.p.sched.grid));
      cudaMemcpy(r.data(), ranks, r.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
      for (std::size_t b = 0; b < r.size(); ++b)
        if (r[b] != ((b % 2) | 2u << 16) && tt.mismatch())
          ADD_FAILURE() << "CTA " << b << ": cluster rank " << (r[b] & 0xFFFF) << " of " << (r[b] >> 16) << ", expected " << b % 2
                        << " of 2; " << c.describe;
    }
    cudaFree(ranks);
    tt.ran(c.tiles, std::int64_t(c.want.size()));
  }
}

TYPED_TEST(Launch, struct_source) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  run_held_copy<TypeParam>(tt, "launch struct source", pt::cases(40, 4), false);
}

TYPED_TEST(Launch, cluster_of_2) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  std::string why;
  if (!device_has_clusters(&why)) GTEST_SKIP() << why;
  pt::test_tally tt;
  run_held_copy<TypeParam>(tt, "launch cluster", pt::cases(40, 4), true);
}

TYPED_TEST(Launch, dependent_launch) {
  using P = TypeParam;
  PORTER_DEVICE_TEST_REQUIRE(P);
  std::string why;
  if (!device_has_clusters(&why)) GTEST_SKIP() << why;
  pt::test_tally tt;
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  for (int i = 0; i < pt::cases(30, 3); ++i) {
    launch_case c(pt::case_seed("launch dependent", i), true);
    ASSERT_NE(c.dev, nullptr);
    c.p.src = c.build();
    guarded a(c.want.size()), b(c.want.size());
    // B reads A's output as a tensor of tiles * 16 rows of 32 floats, tile t at row t * 16.
    held_source q{};
    q.tiles_per_row = 1;
    q.sched = c.p.sched;
    q.src = porter::make_tiled_source<tile>(reinterpret_cast<const float*>(a.data()), {std::int64_t(c.tiles) * 16, 32});
    porter::launch<P>(porter::launch_options{}, &held_copy_kernel<P>, dim3(c.p.sched.grid), dim3(128), smem_bytes, s, c.p, a.data(),
                      static_cast<unsigned*>(nullptr), int(flag_signal | flag_slow));
    porter::launch<P>(porter::launch_options{}.programmatic_dependent_launch(), &held_copy_kernel<P>, dim3(q.sched.grid), dim3(128),
                      smem_bytes, s, q, b.data(), static_cast<unsigned*>(nullptr), int(flag_wait));
    std::string err;
    ASSERT_TRUE(pt::sync_launch(std::string("dependent launch on ") + porter::path_name<P>, &err)) << err << "; " << c.describe;
    std::string msg;
    if (!compare(a.fetch(), c.want, "kernel A", &msg) && tt.mismatch()) ADD_FAILURE() << msg << "; " << c.describe;
    if (!compare(b.fetch(), c.want, "kernel B (after wait_prior_grid)", &msg) && tt.mismatch()) ADD_FAILURE() << msg << "; " << c.describe;
    tt.ran(2 * c.tiles, 2 * std::int64_t(c.want.size()));
  }
  cudaStreamDestroy(s);
}

TYPED_TEST(Launch, forced_tma_struct_refused) {
  using P = TypeParam;
  if constexpr (!std::is_same_v<P, porter::path::tma>) {
    GTEST_SKIP() << "the refusal is tma's (the other paths read this layout)";
  } else {
    PORTER_DEVICE_TEST_REQUIRE(P);
    pt::test_tally tt;
    launch_case c(pt::case_seed("launch refused", 0), false);  // pitch not a multiple of 16 bytes
    ASSERT_NE(c.dev, nullptr);
    c.p.src = c.build();
    ASSERT_FALSE(c.p.src.supports(porter::path_id::tma)) << c.describe;
    const auto e = porter_test_thrown([&] {
      porter::launch<P>(porter::launch_options{}.cluster(dim3(2)), &held_copy_kernel<P>, dim3(c.p.sched.grid), dim3(128), smem_bytes,
                        nullptr, c.p, static_cast<unsigned char*>(nullptr), static_cast<unsigned*>(nullptr), 0);
    });
    ASSERT_TRUE(e) << "a forced tma launch of a struct holding a source tma cannot read must be refused";
    EXPECT_EQ(e->code(), porter::errc::path_unsupported);
    EXPECT_EQ(e->rule(), "launch.source_path");
    EXPECT_NE(std::string(e->what()).find("path tma cannot read kernel argument 0, field 2 (a tiled source)"), std::string::npos) << e->what();
    EXPECT_NE(std::string(e->what()).find("[rule tma.stride_multiple_of_16]"), std::string::npos) << e->what();
    tt.refused();
  }
}

}  // namespace
