// tests/device/test_multicast.cu — cluster-multicast rings on the GPU, on every concrete path:
//
//   Multicast/<path>.box2d, .box3d   a kernel launched in clusters of 2, 4, 8 or 16 CTAs (or without
//                                    clusters) fills a porter::cluster_multicast ring of S stages
//                                    (S = 1 and 3) with two boxes per step: buffer 0 the same box of
//                                    a shared tensor in every CTA (porter::multicast: on tma one CTA
//                                    of the cluster issues it, rotating, and it lands in all of them),
//                                    buffer 1 each CTA's own box of a second tensor. Every CTA stores
//                                    both landed tiles of every step; each must equal the CPU
//                                    reference. Steps (1..13) exceed the stages, so stages are
//                                    refilled across the cluster many times: a refill that overtook a
//                                    peer's reads, or bytes that completed the wrong phase, show up
//                                    as wrong tiles. Coordinates are random (inside, across edges,
//                                    outside, and innermost coordinates that are not 16-byte
//                                    aligned, which tma copies in each CTA with thread loads).
//                                    Every step also calls porter::prefetch on a random box of the
//                                    second tensor (edges, outside, unaligned): a hint, which must
//                                    neither fault nor change a byte. CTAs of 96, 97 or 100 (a
//                                    partial last warp) or 128 threads; at some steps one warp of some CTAs
//                                    dawdles before reading, so releases come out of step.
//   Multicast/<path>.box1d           the same with 1D boxes: multicast falls back to each CTA's
//                                    own copy, the prefetch to cp.async.bulk.prefetch on tma.
//   Multicast/<path>.bytes           a 1D box (multicast) and a byte range of 1 to 2,048 bytes at
//                                    any offset per step (on tma a cp.async.bulk body with thread
//                                    head and tail, or thread loads alone), so that the byte-range
//                                    copy's refill order in a multicast ring is checked too.
//   Multicast/<path>.roles2d, .roles3d   the same cases through a porter::role_pipeline built with
//                                    porter::cluster_multicast (a producer warp, 2 or 3 consumer
//                                    warps; S = 2 and 4): on tma the consumers of every CTA release
//                                    each stage on the EMPTY barrier of every CTA of the cluster, so a
//                                    multicast refill that overtook a peer's consumers shows up as
//                                    wrong tiles; elsewhere each CTA copies its own boxes.
// Every case: fresh random data (seed printed), TMA-legal layouts, the output poisoned (0xA5) with
// 256-byte guards that must stay poisoned, every byte compared with the CPU reference.
// Clusters need compute capability 9.0 (the cluster cases are skipped below it; the cases without
// clusters still run).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "runners.cuh"

namespace pt = porter_test;

namespace {

/// Per step t, copy the box of `shared` at at_shared[t] into buffer 0 with porter::multicast and
/// the box of `own` at at_own[blockIdx.x][t] into buffer 1 (after porter::prefetch of the box of
/// `own` at at_prefetch[blockIdx.x][t], a hint that must change nothing), through a cluster-multicast ring of
/// S stages; store both landed tiles to out + ((blockIdx.x * steps + t) * 2 + buffer) * Box::bytes.
/// Coordinates: Box::rank ints each, outermost first. Ends with porter::cluster_sync().
template <class Path, int S, class Box>
__global__ void multicast_kernel(const __grid_constant__ porter::tiled_source<Box> shared,
                                 const __grid_constant__ porter::tiled_source<Box> own, const int* at_shared, const int* at_own,
                                 const int* at_prefetch, unsigned char* out, int steps) {
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr int R = Box::rank;
  porter::pipeline<Path, S, Box, Box> pipe(smem, porter::cluster_multicast);
  porter::run_pipeline(
      pipe, steps,
      [&](auto& slot, int t) {
        porter::coord<R> a{}, b{}, f{};
        for (int d = 0; d < R; ++d) {
          a[d] = at_shared[t * R + d];
          b[d] = at_own[(int(blockIdx.x) * steps + t) * R + d];
          f[d] = at_prefetch[(int(blockIdx.x) * steps + t) * R + d];
        }
        porter::prefetch(pipe, own, f);  // a hint: must change no byte
        porter::async_copy(porter::buffer<0>(slot), shared, a, porter::multicast);
        porter::async_copy(porter::buffer<1>(slot), own, b);
      },
      [&](auto& ready, int t) {
        // Drift: at some steps one warp of some CTAs dawdles (~3,000 cycles) before it reads, so the
        // warps of a CTA and the CTAs of a cluster release the stage out of step. A refill that
        // waited for fewer than every reader of the cluster overwrites that warp's tile.
        const unsigned warp = pt::dev::thread_rank() / 32u;
        if ((blockIdx.x * 7u + unsigned(t) * 3u + warp) % 5u == 0u) {
          const long long t0 = clock64();
          while (clock64() - t0 < 3000) {
          }
        }
        unsigned char* o = out + (std::size_t(blockIdx.x) * std::size_t(steps) + std::size_t(t)) * 2 * Box::bytes;
        pt::dev::store_bytes<Box::bytes>(o, ready.template bytes<0>());
        pt::dev::store_bytes<Box::bytes>(o + Box::bytes, ready.template bytes<1>());
      });
  porter::cluster_sync();
}

/// Per step t, buffer 0: the 1D box of `shared` at at_shared[t] with porter::multicast (a 1D box:
/// each CTA's own copy); buffer 1: the byte range own + off[k] of len[k] bytes, k = blockIdx.x x
/// steps + t (any alignment: on tma a cp.async.bulk body with thread-loaded head and tail, or thread
/// loads alone where source and stage disagree modulo 16), through a cluster-multicast ring of S
/// stages. Stores buffer 0 whole and the first len[k] bytes of buffer 1 to out + (2k + buffer) x
/// Box::bytes (the rest of buffer 1's slot stays poisoned). Dawdling warps as multicast_kernel.
/// Ends with porter::cluster_sync().
template <class Path, int S, class Box>
__global__ void multicast_bytes_kernel(const __grid_constant__ porter::tiled_source<Box> shared, const unsigned char* own,
                                       const int* at_shared, const int* off, const int* len, unsigned char* out, int steps) {
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, S, Box, Box> pipe(smem, porter::cluster_multicast);
  porter::run_pipeline(
      pipe, steps,
      [&](auto& slot, int t) {
        const int k = int(blockIdx.x) * steps + t;
        porter::async_copy(porter::buffer<0>(slot), shared, porter::coord<1>{at_shared[t]}, porter::multicast);
        porter::async_copy(porter::buffer<1>(slot), own + off[k], std::size_t(len[k]));
      },
      [&](auto& ready, int t) {
        const unsigned warp = pt::dev::thread_rank() / 32u;
        if ((blockIdx.x * 7u + unsigned(t) * 3u + warp) % 5u == 0u) {
          const long long t0 = clock64();
          while (clock64() - t0 < 3000) {
          }
        }
        const int k = int(blockIdx.x) * steps + t;
        unsigned char* o = out + std::size_t(k) * 2 * Box::bytes;
        pt::dev::store_bytes<Box::bytes>(o, ready.template bytes<0>());
        const unsigned char* b1 = ready.template bytes<1>();
        for (unsigned j = pt::dev::thread_rank(); j < unsigned(len[k]); j += pt::dev::cta_threads()) o[Box::bytes + j] = b1[j];
      });
  porter::cluster_sync();
}

/// multicast_kernel's steps through a cluster-multicast porter::role_pipeline: the producer warps
/// of `Roles` copy (buffer 0 with porter::multicast, buffer 1 each CTA's own box; no prefetch), the
/// consumer warps store both landed tiles of every step to the same places. Every thread ends with
/// porter::cluster_sync() (a consumer's last releases arrive on its peers' barriers).
template <class Path, int S, class Box, class Roles>
__global__ void multicast_role_kernel(const __grid_constant__ porter::tiled_source<Box> shared,
                                      const __grid_constant__ porter::tiled_source<Box> own, const int* at_shared, const int* at_own,
                                      const int* /*at_prefetch*/, unsigned char* out, int steps) {
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr int R = Box::rank;
  porter::role_pipeline<Path, Roles, S, Box, Box> pipe(smem, porter::cluster_multicast);
  pipe.enter_role();
  if (pipe.is_producer()) {
    for (int t = 0; t < steps; ++t) {
      porter::coord<R> a{}, b{};
      for (int d = 0; d < R; ++d) {
        a[d] = at_shared[t * R + d];
        b[d] = at_own[(int(blockIdx.x) * steps + t) * R + d];
      }
      auto slot = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(slot), shared, a, porter::multicast);
      porter::async_copy(porter::buffer<1>(slot), own, b);
      pipe.producer_commit(slot);
    }
  } else {
    const unsigned c = pt::dev::thread_rank() - Roles::producer_threads;
    for (int t = 0; t < steps; ++t) {
      auto ready = pipe.consumer_wait();
      unsigned char* o = out + (std::size_t(blockIdx.x) * std::size_t(steps) + std::size_t(t)) * 2 * Box::bytes;
      pt::dev::store_bytes<Box::bytes>(o, ready.template bytes<0>(), c, Roles::consumer_threads);
      pt::dev::store_bytes<Box::bytes>(o + Box::bytes, ready.template bytes<1>(), c, Roles::consumer_threads);
      pipe.consumer_release(ready);
    }
  }
  porter::cluster_sync();
}

bool device_has_clusters() {
  std::string why;
  const porter::device_caps* caps = pt::gpu(&why);
  return caps && caps->compute_capability() >= 90;
}

/// Fetch the output of `st` (want.size() bytes between its two guards), check that the guards are
/// intact and every byte equals `want` (per CTA and step two slots of `slot_bytes`, named `first` and
/// `second` in the failure), and count the case in `tt`.
void check_output(pt::test_tally& tt, const std::string& what, pt::staging& st, const std::vector<unsigned char>& want, int steps,
                  std::size_t slot_bytes, const char* first, const char* second) {
  std::string err;
  ASSERT_TRUE(st.fetch(&err)) << what << ": " << err;
  std::string guard;
  const bool guards = st.guards_intact(&guard);
  std::size_t count = 0;
  const unsigned char* image = st.slot(0);
  const long long at = pt::first_difference(image, want.data(), want.size(), &count);
  if ((!guards || at >= 0) && tt.mismatch()) {
    if (!guards) ADD_FAILURE() << what << ": " << guard;
    else {
      const std::size_t slot = std::size_t(at) / slot_bytes;
      ADD_FAILURE() << what << ": " << count << " bytes differ, the first at byte " << at << " (CTA " << slot / (2 * std::size_t(steps))
                    << ", step " << slot / 2 % std::size_t(steps) << ", " << (slot % 2 ? second : first)
                    << "): " << pt::bytes_around(image, want.data(), want.size(), std::size_t(at));
    }
  }
  tt.ran(std::int64_t(want.size() / slot_bytes), std::int64_t(want.size()));
}

/// A case's name in its failures: the list, the cluster and CTA shape, the steps, the source layout
/// and the seed.
std::string case_text(const std::string& list, int cluster, int grid, int threads, int steps, const pt::geometry& g) {
  return list + ": cluster of " + std::to_string(cluster) + ", " + std::to_string(grid) + " CTAs of " + std::to_string(threads) +
         " threads, " + std::to_string(steps) + " steps, " + g.describe() + ", " + pt::seed_text();
}

/// One case on path P: refused (and counted so) when `src` does not support P; else `launch(o)`
/// with launch options `o` for clusters of `cluster` CTAs (none below 2; `roles`: a role
/// pipeline), then the launch's sync and check_output's comparison of `st` against `want`.
template <class P, class Src, class Launch>
void launch_and_check(pt::test_tally& tt, const std::string& what, const Src& src, int cluster, bool roles, Launch&& launch,
                      pt::staging& st, const std::vector<unsigned char>& want, int steps, std::size_t slot_bytes, const char* first,
                      const char* second) {
  if (!src.supports(P::id)) {
    tt.refused();
    return;
  }
  porter::launch_options o{};
  if (cluster > 1) o.cluster(dim3(unsigned(cluster)));
  if (roles) o.uses_role_pipeline();
  launch(o);
  std::string err;
  ASSERT_TRUE(pt::sync_launch(what + " on " + porter::path_name<P>, &err)) << err;
  check_output(tt, what, st, want, steps, slot_bytes, first, second);
}

/// Run `n` cases of Box on path P with S stages; cluster sizes 1 (no cluster launch), 2, 4, 8 and 16.
/// Roles: void for the CTA-collective ring (multicast_kernel, 96, 97, 100 or 128 threads), else a
/// porter::roles for multicast_role_kernel (Roles::threads threads).
template <class P, int S, class Box, class Roles = void>
void run_multicast_cases(pt::test_tally& tt, const std::string& list, int n) {
  constexpr int R = Box::rank;
  constexpr bool roles = !std::is_void_v<Roles>;
  const bool clusters = device_has_clusters();
  const std::size_t smem = porter::pipeline<porter::path::staged, S, Box, Box>::shared_bytes;
  auto* kernel = [] {
    if constexpr (roles) return &multicast_role_kernel<P, S, Box, Roles>;
    else return &multicast_kernel<P, S, Box>;
  }();
  if (smem > 48 * 1024) ASSERT_EQ(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)), cudaSuccess);
  for (int i = 0; i < n; ++i) {
    std::mt19937_64 rng(pt::case_seed(list, i));
    int box[5] = {};
    for (int d = 0; d < R; ++d) box[d] = Box::dim(d);
    const pt::geometry g = pt::tma_legal_geometry(rng, R, int(sizeof(typename Box::element_type)), box);
    const pt::host_tensor ts = pt::make_tensor(rng, g), to = pt::make_tensor(rng, g);
    // 8: the portable maximum; 16: the H100/H200 maximum, which porter::launch opts the kernel into
    // (cudaFuncAttributeNonPortableClusterSizeAllowed), and the widest multicast mask.
    const int sizes[5] = {1, 2, 4, 8, 16};
    const int cluster = sizes[i % 5];
    if (cluster > 1 && !clusters) continue;
    const int grid = cluster * int(1 + rng() % 3), steps = int(1 + rng() % 13);
    // 100 and 97: the last warp has 4 threads, or 1 (fewer than a cluster of 2 to 16 has CTAs: its
    // lanes arrive on every CTA's EMPTY in turn).
    const int thread_counts[4] = {128, 96, 100, 97};
    int threads = thread_counts[rng() % 4];
    if constexpr (roles) threads = int(Roles::threads);
    std::vector<int> at_shared(std::size_t(steps) * R), at_own(std::size_t(grid) * steps * R), at_pf(at_own.size());
    for (int t = 0; t < steps; ++t) pt::random_coord(rng, g, &at_shared[std::size_t(t) * R]);
    for (int b = 0; b < grid * steps; ++b) pt::random_coord(rng, g, &at_own[std::size_t(b) * R]);
    for (int b = 0; b < grid * steps; ++b) pt::random_coord(rng, g, &at_pf[std::size_t(b) * R]);
    // The reference: per CTA and step, the shared box and the CTA's own box.
    std::vector<unsigned char> want(std::size_t(grid) * steps * 2 * Box::bytes);
    for (int b = 0; b < grid; ++b)
      for (int t = 0; t < steps; ++t) {
        unsigned char* w = want.data() + (std::size_t(b) * steps + t) * 2 * Box::bytes;
        pt::reference_box(ts, &at_shared[std::size_t(t) * R], w);
        pt::reference_box(to, &at_own[(std::size_t(b) * steps + t) * R], w + Box::bytes);
      }
    pt::staging st;
    const std::size_t i_sh = st.add_input(ts.image), i_ow = st.add_input(to.image);
    const std::size_t a_sh = st.add_arg(at_shared), a_ow = st.add_arg(at_own), a_pf = st.add_arg(at_pf);
    st.set_output(want.size() / Box::bytes, Box::bytes);
    std::string err;
    ASSERT_TRUE(st.upload(&err)) << err;
    using T = typename Box::element_type;
    std::int64_t ext[5], str[5];
    for (int d = 0; d < R; ++d) ext[d] = g.extent[d], str[d] = g.stride[d];
    const auto make = [&](const unsigned char* base, const pt::host_tensor& t) {
      return porter::make_tiled_source<Box>(reinterpret_cast<const T*>(base + t.origin), std::vector<std::int64_t>(ext, ext + R),
                                            std::vector<std::int64_t>(str, str + R));
    };
    const auto src_shared = make(st.input(i_sh), ts), src_own = make(st.input(i_ow), to);
    launch_and_check<P>(
        tt, case_text(list, cluster, grid, threads, steps, g), src_shared, cluster, roles,
        [&](const porter::launch_options& o) {
          porter::launch<P>(o, kernel, dim3(unsigned(grid)), dim3(unsigned(threads)), smem, nullptr, src_shared, src_own,
                            st.arg<int>(a_sh), st.arg<int>(a_ow), st.arg<int>(a_pf), st.output(), steps);
        },
        st, want, steps, Box::bytes, "multicast box", "own box");
  }
}

/// Run `n` cases of multicast_bytes_kernel (1D Box) on path P with S stages; clusters and CTA sizes
/// as run_multicast_cases. The byte ranges: 1 to Box::bytes bytes at any offset of a random byte
/// array (unaligned heads and tails, and source offsets that disagree with the stage modulo 16).
template <class P, int S, class Box>
void run_multicast_bytes_cases(pt::test_tally& tt, const std::string& list, int n) {
  static_assert(Box::rank == 1, "run_multicast_bytes_cases: 1D boxes");
  const bool clusters = device_has_clusters();
  const std::size_t smem = porter::pipeline<porter::path::staged, S, Box, Box>::shared_bytes;
  auto* kernel = &multicast_bytes_kernel<P, S, Box>;
  if (smem > 48 * 1024) ASSERT_EQ(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)), cudaSuccess);
  for (int i = 0; i < n; ++i) {
    std::mt19937_64 rng(pt::case_seed(list, i));
    int box[5] = {int(Box::dim(0))};
    const pt::geometry g = pt::tma_legal_geometry(rng, 1, int(sizeof(typename Box::element_type)), box);
    const pt::host_tensor ts = pt::make_tensor(rng, g);
    const int sizes[5] = {1, 2, 4, 8, 16};
    const int cluster = sizes[i % 5];
    if (cluster > 1 && !clusters) continue;
    const int grid = cluster * int(1 + rng() % 3), steps = int(1 + rng() % 13);
    const int thread_counts[4] = {128, 96, 100, 97};
    const int threads = thread_counts[rng() % 4];
    std::vector<unsigned char> own(4 * Box::bytes + 64);
    for (auto& b : own) b = static_cast<unsigned char>(rng());
    std::vector<int> at_shared(steps), off(std::size_t(grid) * steps), len(off.size());
    for (int t = 0; t < steps; ++t) pt::random_coord(rng, g, &at_shared[t]);
    for (std::size_t k = 0; k < off.size(); ++k) {
      len[k] = int(1 + rng() % Box::bytes);
      off[k] = int(rng() % (own.size() - std::size_t(len[k]) + 1));
    }
    // The reference: per CTA and step, the shared box, then the byte range and poison after it.
    std::vector<unsigned char> want(std::size_t(grid) * steps * 2 * Box::bytes, pt::poison_byte);
    for (std::size_t k = 0; k < off.size(); ++k) {
      unsigned char* w = want.data() + k * 2 * Box::bytes;
      pt::reference_box(ts, &at_shared[k % std::size_t(steps)], w);
      std::copy(own.begin() + off[k], own.begin() + off[k] + len[k], w + Box::bytes);
    }
    pt::staging st;
    const std::size_t i_sh = st.add_input(ts.image), i_ow = st.add_input(own);
    const std::size_t a_sh = st.add_arg(at_shared), a_off = st.add_arg(off), a_len = st.add_arg(len);
    st.set_output(want.size() / Box::bytes, Box::bytes);
    std::string err;
    ASSERT_TRUE(st.upload(&err)) << err;
    using T = typename Box::element_type;
    const auto src_shared = porter::make_tiled_source<Box>(reinterpret_cast<const T*>(st.input(i_sh) + ts.origin), std::vector<std::int64_t>{g.extent[0]},
                                                           std::vector<std::int64_t>{g.stride[0]});
    launch_and_check<P>(
        tt, case_text(list, cluster, grid, threads, steps, g), src_shared, cluster, false,
        [&](const porter::launch_options& o) {
          porter::launch<P>(o, kernel, dim3(unsigned(grid)), dim3(unsigned(threads)), smem, nullptr, src_shared, st.input(i_ow),
                            st.arg<int>(a_sh), st.arg<int>(a_off), st.arg<int>(a_len), st.output(), steps);
        },
        st, want, steps, Box::bytes, "1D box", "byte range");
  }
}

template <class P>
class Multicast : public ::testing::Test {};
TYPED_TEST_SUITE(Multicast, pt::concrete_paths, pt::path_names);

TYPED_TEST(Multicast, box2d) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  run_multicast_cases<TypeParam, 1, porter::box<float, 16, 32>>(tt, "multicast 2d S1", pt::cases(30, 3));
  run_multicast_cases<TypeParam, 3, porter::box<float, 16, 32>>(tt, "multicast 2d S3", pt::cases(60, 6));
}

TYPED_TEST(Multicast, box1d) {  // multicast falls back to each CTA's own copy; the prefetch is a bulk one
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  run_multicast_cases<TypeParam, 2, porter::box<float, 512>>(tt, "multicast 1d S2", pt::cases(30, 3));
}

TYPED_TEST(Multicast, bytes) {  // byte ranges beside a 1D box, in a multicast ring (on tma: cp.async.bulk, thread loads)
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  run_multicast_bytes_cases<TypeParam, 2, porter::box<float, 512>>(tt, "multicast bytes S2", pt::cases(30, 5));
}

TYPED_TEST(Multicast, roles2d) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  using two = porter::roles<porter::warps<1>, porter::warps<2>>;
  using three = porter::roles<porter::warps<1>, porter::warps<3>>;
  run_multicast_cases<TypeParam, 2, porter::box<float, 16, 32>, two>(tt, "multicast roles 2d S2", pt::cases(60, 6));
  run_multicast_cases<TypeParam, 4, porter::box<float, 16, 32>, three>(tt, "multicast roles 2d S4", pt::cases(60, 6));
}

TYPED_TEST(Multicast, roles3d) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  using two = porter::roles<porter::warps<1>, porter::warps<2>>;
  run_multicast_cases<TypeParam, 3, porter::box<std::uint16_t, 4, 8, 64>, two>(tt, "multicast roles 3d S3", pt::cases(60, 6));
}

// porter::resident_ctas: without clusters it is SMs x the runtime's CTAs per SM; in clusters of 2
// a positive multiple of 2, at most that (the CTAs of a cluster share a GPC). The role kernel of
// roles2d's first list on staged (96 threads), with 0 B and with 96 KiB of dynamic shared memory
// (resident_ctas raises the kernel's limit itself).
TEST(MulticastGrid, ResidentCtasCountsWholeClusters) {
  std::string why;
  const porter::device_caps* caps = pt::gpu(&why);
  if (!caps) GTEST_SKIP() << why;
  using two = porter::roles<porter::warps<1>, porter::warps<2>>;
  auto* k = &multicast_role_kernel<porter::path::staged, 2, porter::box<float, 16, 32>, two>;
  const std::size_t big = 96 * 1024;
  for (std::size_t smem : {std::size_t(0), big}) {
    const int one = porter::resident_ctas(reinterpret_cast<const void*>(k), porter::dims3(1), two::threads, smem);
    int per_sm = 0;
    ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, int(two::threads), smem), cudaSuccess);
    EXPECT_EQ(one, per_sm * caps->sm_count) << smem << " B";
    if (caps->compute_capability() < 90) continue;
    const int pairs = porter::resident_ctas(reinterpret_cast<const void*>(k), porter::dims3(2), two::threads, smem);
    EXPECT_GT(pairs, 0) << smem << " B";
    EXPECT_EQ(pairs % 2, 0) << smem << " B";
    EXPECT_LE(pairs, one) << smem << " B";
    std::printf("[ porter   ] resident_ctas, %zu B of shared memory: %d CTAs alone, %d in clusters of 2 (%d SMs)\n", smem, one, pairs,
                caps->sm_count);
  }
}

TYPED_TEST(Multicast, box3d) {
  PORTER_DEVICE_TEST_REQUIRE(TypeParam);
  pt::test_tally tt;
  run_multicast_cases<TypeParam, 3, porter::box<std::uint16_t, 4, 8, 64>>(tt, "multicast 3d S3", pt::cases(60, 6));
}

}  // namespace
