// bench/kernels/porter_register.cuh — turn porter kernel instantiations into registry variants.
#pragma once
#include <cstdio>
#include <porter/porter.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "../src/variants.hpp"
#include <porter/planner.hpp>
#include "bf16gemm.cuh"
#include "porter_kernels.cuh"

namespace pb {

/// How a porter variant schedules its grid: porter::plan_schedule's choice ("porter" rows), or a
/// schedule forced for the sweep that checks the planner ("porter-persistent", "porter-per-tile",
/// "porter-4-per-cta": blocked, 4 consecutive tiles per CTA through its pipeline).
enum class sched_mode { planned, persistent, per_tile, four_per_cta };

inline const char* impl_of(sched_mode m) {
  switch (m) {
    case sched_mode::planned: return "porter";
    case sched_mode::persistent: return "porter-persistent";
    case sched_mode::per_tile: return "porter-per-tile";
    default: return "porter-4-per-cta";
  }
}

/// The schedule of a launch over `tiles` tiles: `resident` is SMs x CTAs per SM (the persistent grid).
inline porter::tile_schedule schedule_for(sched_mode m, long long tiles, int resident, std::size_t stage_bytes, int stages,
                                          int steps_per_tile) {
  if (m == sched_mode::persistent) return porter::persistent_schedule(tiles, resident);
  if (m == sched_mode::per_tile) return porter::blocked_schedule(tiles, 1);
  if (m == sched_mode::four_per_cta) return porter::blocked_schedule(tiles, 4);
  const porter::device_caps caps = porter::require_device();
  porter::schedule_request q;
  q.tiles = tiles;
  q.tile_bytes = stage_bytes;
  q.stages = stages;
  q.ctas_per_sm = resident / (caps.sm_count > 0 ? caps.sm_count : 1);
  q.steps_per_tile = steps_per_tile;
  q.latency_ns = planner_latency_ns();
  return porter::plan_schedule(caps, q).schedule;
}

template <class Path, class Pipe>
kernel_desc porter_desc(int threads, const void* func, const char* kernel, sched_mode m) {
  kernel_desc d;
  d.impl = impl_of(m);
  d.path = porter::path_name<Path>;
  d.stages = Pipe::stages;
  d.threads = threads;
  d.smem = Pipe::shared_bytes;
  d.stage_bytes = Pipe::ring::stage_bytes;
  d.fixed_smem = Pipe::shared_bytes - std::size_t(Pipe::stages) * Pipe::ring::stage_bytes;
  d.min_cc = Path::min_compute_capability;
  if constexpr (porter::is_concrete_path<Path>::value) d.async_copies = Path::completion != porter::completion::cta_barrier;
  else d.async_copies = true;
  d.func = func;
  d.kernel = kernel;
  return d;
}

/// stream rows; H = evict_first: the "porter-evict-first" rows (x's copies hinted; same schedule).
template <class Path, int S, porter::cache_hint H = porter::cache_hint::none>
void add_stream(registry& r, sched_mode m) {
  using Pipe = porter::pipeline<Path, S, stream_shape::box>;
  auto* k = &pb_stream<Path, S, H>;
  kernel_desc d = porter_desc<Path, Pipe>(stream_shape::threads, reinterpret_cast<const void*>(k), "pb_stream", m);
  if constexpr (H != porter::cache_hint::none) {  // "porter-evict-first": the hint's name, hyphenated
    std::string hint = porter::cache_hint_name(H);
    std::replace(hint.begin(), hint.end(), '_', '-');
    d.impl = std::string(d.impl) + "-" + hint;
  }
  r.stream.push_back({d,
                      [k, m](const stream_problem& p, int grid) -> launcher {
                        const std::int64_t ext[1] = {p.n};
                        auto src = porter::make_tiled_source<stream_shape::box>(p.x, ext);
                        const long long tiles = stream_shape::tiles_of(p.n);
                        const porter::tile_schedule sc = schedule_for(m, tiles, grid, Pipe::ring::stage_bytes, S, 1);
                        return [=](cudaStream_t s) {
                          porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(stream_shape::threads), Pipe::shared_bytes, s, src,
                                               p.y, p.n, p.a, p.b, sc);
                        };
                      }});
}

template <class Path, int S, int R>
void add_stencil(registry& r, sched_mode m) {
  using B = stencil_shape::box<R>;
  using Pipe = porter::pipeline<Path, S, B>;
  auto* k = &pb_stencil<Path, S, R>;
  r.stencil[R].push_back({porter_desc<Path, Pipe>(stencil_shape::threads, reinterpret_cast<const void*>(k), "pb_stencil", m),
                          [k, m](const stencil_problem& p, int grid) -> launcher {
                            const std::int64_t ext[2] = {p.h, p.w};
                            auto src = porter::make_tiled_source<B>(p.in, ext);
                            const long long tiles = static_cast<long long>((p.w + stencil_shape::tile_w - 1) / stencil_shape::tile_w) *
                                                    ((p.h + stencil_shape::tile_h - 1) / stencil_shape::tile_h);
                            const porter::tile_schedule sc = schedule_for(m, tiles, grid, Pipe::ring::stage_bytes, S, 1);
                            return [=](cudaStream_t s) {
                              porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(stencil_shape::threads), Pipe::shared_bytes, s,
                                                   src, p.out, p.h, p.w, sc);
                            };
                          }});
}

/// The launcher of an sgemm kernel `k` on pipeline Pipe (sources sa, sb of problem p) on schedule m.
template <class Path, int S, class Pipe, class Kernel, class SrcA, class SrcB>
launcher sgemm_launcher(Kernel* k, const sgemm_problem& p, int grid, sched_mode m, const SrcA& sa, const SrcB& sb) {
  using namespace sgemm_shape;
  const long long tiles = static_cast<long long>((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn);
  const porter::tile_schedule sc = schedule_for(m, tiles, grid, Pipe::ring::stage_bytes, S, (p.k + bk - 1) / bk);
  return [=](cudaStream_t s) {
    porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(threads), Pipe::shared_bytes, s, sa, sb, p.c, p.m, p.n, p.k, sc);
  };
}

/// The dense sources of an sgemm problem: At (K x M) and B (K x N) read in bk x 128 boxes (16 x 128).
inline auto sgemm_dense_sources(const sgemm_problem& p) {
  using namespace sgemm_shape;
  const std::int64_t ea[2] = {p.k, p.m}, eb[2] = {p.k, p.n};
  return std::make_pair(porter::make_tiled_source<a_box>(p.at, ea), porter::make_tiled_source<b_box>(p.b, eb));
}

template <class Path, int S>
void add_sgemm(registry& r, sched_mode m) {
  using namespace sgemm_shape;
  using Pipe = porter::pipeline<Path, S, a_box, b_box>;
  auto* k = &pb_sgemm<Path, S>;
  r.sgemm.push_back({porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_sgemm", m),
                     [k, m](const sgemm_problem& p, int grid) -> launcher {
                       const auto src = sgemm_dense_sources(p);
                       return sgemm_launcher<Path, S, Pipe>(k, p, grid, m, src.first, src.second);
                     }});
}

/// pb_sgemm on 128 B-swizzled K-tiles (sgemm_shape::a_box_swizzled) on the planned schedule: impl
/// "porter-swizzled". The matrices are viewed as (K, M / 32, 32) and (K, N / 32, 32): M and N must
/// be multiples of 32 (porter-bench's sizes are).
template <class Path, int S>
void add_sgemm_swizzled(registry& r) {
  using namespace sgemm_shape;
  using Pipe = porter::pipeline<Path, S, a_box_swizzled, b_box_swizzled>;
  auto* k = &pb_sgemm<Path, S, true>;
  kernel_desc d = porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_sgemm", sched_mode::planned);
  d.impl = "porter-swizzled";
  r.sgemm.push_back({d, [k](const sgemm_problem& p, int grid) -> launcher {
                       if (p.m % group != 0 || p.n % group != 0)
                         throw std::invalid_argument("porter-swizzled sgemm: M and N must be multiples of 32");
                       const std::int64_t ea[3] = {p.k, p.m / group, group}, eb[3] = {p.k, p.n / group, group};
                       const std::int64_t sa_strides[2] = {p.m, group}, sb_strides[2] = {p.n, group};
                       auto sa = porter::make_tiled_source<a_box_swizzled>(p.at, ea, sa_strides);
                       auto sb = porter::make_tiled_source<b_box_swizzled>(p.b, eb, sb_strides);
                       return sgemm_launcher<Path, S, Pipe>(k, p, grid, sched_mode::planned, sa, sb);
                     }});
}

/// pb_sgemm_nested (the consumer loop nested per tile) on the planned schedule: impl "porter-nested".
template <class Path, int S>
void add_sgemm_nested(registry& r) {
  using namespace sgemm_shape;
  using Pipe = porter::pipeline<Path, S, a_box, b_box>;
  auto* k = &pb_sgemm_nested<Path, S>;
  kernel_desc d = porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_sgemm_nested", sched_mode::planned);
  d.impl = "porter-nested";
  r.sgemm.push_back({d, [k](const sgemm_problem& p, int grid) -> launcher {
                       const auto src = sgemm_dense_sources(p);
                       return sgemm_launcher<Path, S, Pipe>(k, p, grid, sched_mode::planned, src.first, src.second);
                     }});
}

template <class Path, int S>
void add_copy2d(registry& r, sched_mode m) {
  using B = copy2d_shape::box;
  using Pipe = porter::pipeline<Path, S, B>;
  auto* k = &pb_copy2d<Path, S>;
  kernel_desc d = porter_desc<Path, Pipe>(copy2d_shape::threads_of<Path>, reinterpret_cast<const void*>(k), "pb_copy2d", m);
  d.default_stages = S;  // per path (shapes.hpp: default_stages_copy2d_of)
  r.copy2d.push_back({d,
                      [k, m](const grid2d_problem& p, int grid) -> launcher {
                        const std::int64_t ext[2] = {p.h, p.w};
                        auto src = porter::make_tiled_source<B>(p.x, ext);
                        auto dst = porter::make_tiled_destination<B>(p.y, ext);
                        const long long tiles = static_cast<long long>((p.w + copy2d_shape::tile_w - 1) / copy2d_shape::tile_w) *
                                                ((p.h + copy2d_shape::tile_h - 1) / copy2d_shape::tile_h);
                        const porter::tile_schedule sc = schedule_for(m, tiles, grid, Pipe::ring::stage_bytes, S, 1);
                        return [=](cudaStream_t s) {
                          porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(copy2d_shape::threads_of<Path>), Pipe::shared_bytes, s, src, dst,
                                               p.w, sc);
                        };
                      }});
}

/// The transpose at swizzle Sw: impl "porter" (128 B swizzle) or "porter-unswizzled" (dense tiles).
template <class Path, int S, porter::swizzle Sw>
void add_transpose(registry& r) {
  using B = transpose_shape::box<Sw>;
  using Pipe = porter::pipeline<Path, S, B>;
  auto* k = &pb_transpose<Path, S, Sw>;
  kernel_desc d = porter_desc<Path, Pipe>(transpose_shape::threads, reinterpret_cast<const void*>(k), "pb_transpose", sched_mode::planned);
  if (Sw == porter::swizzle::none) d.impl = "porter-unswizzled";
  r.transpose.push_back({d, [k](const grid2d_problem& p, int grid) -> launcher {
                           const std::int64_t ext[2] = {p.h, p.w};
                           auto src = porter::make_tiled_source<B>(p.x, ext);
                           const long long tiles = static_cast<long long>((p.w + transpose_shape::tile - 1) / transpose_shape::tile) *
                                                   ((p.h + transpose_shape::tile - 1) / transpose_shape::tile);
                           const porter::tile_schedule sc = schedule_for(sched_mode::planned, tiles, grid, Pipe::ring::stage_bytes, S, 1);
                           return [=](cudaStream_t s) {
                             porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(transpose_shape::threads), Pipe::shared_bytes, s, src,
                                                  p.y, p.h, p.w, sc);
                           };
                         }});
}

template <class Path, int S>
void add_smallgemm(registry& r, sched_mode m) {
  using namespace smallgemm_shape;
  using Pipe = porter::pipeline<Path, S, a_box, b_box>;
  auto* k = &pb_smallgemm<Path, S>;
  r.smallgemm.push_back({porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_smallgemm", m),
                         [k, m](const smallgemm_problem& p, int grid) -> launcher {
                           const std::int64_t ea[2] = {p.m, p.k}, eb[2] = {p.k, p.n};
                           auto sa = porter::make_tiled_source<a_box>(p.a, ea);
                           auto sb = porter::make_tiled_source<b_box>(p.b, eb);
                           const long long tiles = static_cast<long long>((p.m + tile - 1) / tile) * ((p.n + tile - 1) / tile);
                           const porter::tile_schedule sc = schedule_for(m, tiles, grid, Pipe::ring::stage_bytes, S, (p.k + bk - 1) / bk);
                           return [=](cudaStream_t s) {
                             porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(threads), Pipe::shared_bytes, s, sa, sb, p.c, p.m, p.n,
                                                  p.k, sc);
                           };
                         }});
}

/// The bf16 tensor-core GEMM on path `Path` with `S` stages. Its min_cc is the consumer's (mma.sync
/// on bf16 needs sm_80) where the path's is lower: staged runs on sm_75, this kernel does not.
template <class Path, int S>
void add_bf16gemm(registry& r, sched_mode m) {
  using namespace bf16gemm_shape;
  using Pipe = porter::pipeline<Path, S, a_box, b_box>;
  auto* k = &pb_bf16gemm<Path, S>;
  kernel_desc d = porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_bf16gemm", m);
  d.min_cc = d.min_cc > min_cc ? d.min_cc : min_cc;
  r.bf16gemm.push_back({d, [k, m](const bf16gemm_problem& p, int grid) -> launcher {
                          const std::int64_t ea[2] = {p.m, p.k}, eb[2] = {p.n, p.k};
                          auto sa = porter::make_tiled_source<a_box>(p.a, ea);
                          auto sb = porter::make_tiled_source<b_box>(p.b, eb);
                          const long long tiles = static_cast<long long>((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn);
                          const porter::tile_schedule sc = schedule_for(m, tiles, grid, Pipe::ring::stage_bytes, S, (p.k + bk - 1) / bk);
                          return [=](cudaStream_t s) {
                            porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(threads), Pipe::shared_bytes, s, sa, sb, p.c, p.m, p.n, p.k,
                                                 sc);
                          };
                        }});
}

/// A bf16gemm row of a kernel `k` on a porter::role_pipeline `Pipe` (pb_bf16gemm_wgmma,
/// pb_bf16gemm_roles: the same arguments as pb_bf16gemm): Pipe::threads threads, a persistent
/// schedule over the tiles (the producer runs ahead across tiles), launched with
/// uses_role_pipeline so that porter::launch refuses devices and binaries the role protocol cannot
/// run on. `min_cc`: the sm_90a code's (wgmma, setmaxnreg) compute capability, also the only one
/// it runs on. `default_stages`: the row's stage count outside the sweep (0: the workload's).
/// `paired`: the kernel's multicast instantiation (tiles in bf16gemm_pair_origin's order): the
/// grid is rounded down to an even count and tiles_m must be even (the row refuses other sizes);
/// `cluster`: launched in clusters of that many CTAs along x (2: the pairs share B by multicast;
/// 1: no clusters, each CTA copies its own B).
template <class Path, class Pipe, class Kernel>
void add_bf16gemm_role_row(registry& r, Kernel* k, const char* kernel, const char* impl, int min_cc, int default_stages = 0,
                           bool paired = false, int cluster = 1) {
  using namespace bf16gemm_shape;
  constexpr int cta = int(Pipe::threads);
  kernel_desc d = porter_desc<Path, Pipe>(cta, reinterpret_cast<const void*>(k), kernel, sched_mode::persistent);
  d.impl = impl;
  if (default_stages > 0) d.default_stages = default_stages;
  d.min_cc = d.min_cc > min_cc ? d.min_cc : min_cc;
  d.only_cc = min_cc;
  r.bf16gemm.push_back({d, [k, impl, paired, cluster](const bf16gemm_problem& p, int grid) -> launcher {
                          const std::int64_t ea[2] = {p.m, p.k}, eb[2] = {p.n, p.k};
                          auto sa = porter::make_tiled_source<a_box>(p.a, ea);
                          auto sb = porter::make_tiled_source<b_box>(p.b, eb);
                          const int tiles_m = (p.m + bm - 1) / bm;
                          if (paired && tiles_m % 2 != 0)
                            throw std::invalid_argument(std::string(impl) + " pairs C tiles by rows: it needs an even number of 128-row tiles");
                          const long long tiles = static_cast<long long>(tiles_m) * ((p.n + bn - 1) / bn);
                          // In clusters, a persistent grid holds only the CTAs of the clusters that
                          // can be resident at once (porter::resident_ctas: whole clusters per GPC).
                          const int resident = cluster > 1 ? porter::resident_ctas(reinterpret_cast<const void*>(k),
                                                                                   porter::dims3(unsigned(cluster)), unsigned(cta),
                                                                                   Pipe::shared_bytes)
                                                           : grid;
                          int g = resident < grid ? resident : grid;
                          if (paired) g = (g / 2) * 2;
                          if (cluster > 1)
                            std::fprintf(stderr, "[porter-bench] %s: clusters of %d, %d CTAs resident at once (porter::resident_ctas), grid %d\n",
                                         impl, cluster, resident, g);
                          if (g <= 0)
                            throw std::invalid_argument(std::string(impl) + ": no CTA of this kernel can be resident" +
                                                        (cluster > 1 ? " in clusters of " + std::to_string(cluster) : std::string()));
                          const porter::tile_schedule sc = porter::persistent_schedule(tiles, g);
                          porter::launch_options o = porter::launch_options{}.uses_role_pipeline();
                          if (cluster > 1) o.cluster(porter::dims3(unsigned(cluster)));
                          return [=](cudaStream_t s) {
                            porter::launch<Path>(o, k, dim3(sc.grid_ctas()), dim3(cta), Pipe::shared_bytes, s, sa, sb, p.c, p.m, p.n, p.k,
                                                 sc);
                          };
                        }});
}

/// The resident grid (SMs x occupancy, ctas_per_sm) of `func` with `threads` and `smem` bytes on
/// the current device; 0 when it does not fit (plan_schedule then refuses the launch with a reason).
inline int resident_grid(const void* func, int threads, std::size_t smem) {
  kernel_desc d;
  d.func = func;
  d.threads = threads;
  d.smem = smem;
  return ctas_per_sm(d) * porter::require_device().sm_count;
}

/// "tma: <why>" for a choice of porter::choose_path_for.
inline std::string describe(const porter::path_choice& c) {
  return std::string("automatic -> ") + porter::path_id_name(c.path) + ": " + c.reason;
}

/// A path::automatic variant: the kernel template as a porter::kernel_family, the path chosen on the
/// host per launch by porter::launch, the planner's schedule for the chosen instantiation.
/// `args_of(p, schedule)` returns the kernel's arguments as a std::tuple; `tiles_of(p)` the tiles
/// and `steps_of(p)` the pipeline steps per tile.
template <class Problem, class Fam, class ArgsOf, class TilesOf, class StepsOf>
variant<Problem> automatic_variant(kernel_desc d, Fam fam, ArgsOf args_of, TilesOf tiles_of, StepsOf steps_of) {
  auto choose = [fam, args_of](const Problem& p) {
    return std::apply([&](const auto&... a) { return porter::choose_path_for(fam, a...); }, args_of(p, porter::tile_schedule{}));
  };
  const int threads = d.threads;
  const std::size_t smem = d.smem, stage_bytes = d.stage_bytes;
  const int stages = d.stages;
  variant<Problem> v;
  v.d = d;
  v.bind = [=](const Problem& p, int) -> launcher {
    const porter::path_choice c = choose(p);
    int grid = 0;
    porter::lowerings::for_each_path(porter::lowerings::all{}, [&](auto q) {
      if (decltype(q)::id == c.path) grid = resident_grid(reinterpret_cast<const void*>(fam.make(q)), threads, smem);
    });
    const porter::tile_schedule sc = schedule_for(sched_mode::planned, tiles_of(p), grid, stage_bytes, stages, steps_of(p));
    auto args = args_of(p, sc);
    return [=](cudaStream_t s) {
      std::apply([&](const auto&... a) { porter::launch<porter::path::automatic>(fam, dim3(sc.grid_ctas()), dim3(threads), smem, s, a...); },
                 args);
    };
  };
  v.resolved = [choose](const Problem& p) { return describe(choose(p)); };
  return v;
}

/// path::automatic rows of every workload at the stage counts Ss (stream), St (stencils), Sg (sgemm),
/// Sm (smallgemm).
template <int Ss, int St, int Sg, int Sm>
void add_automatic(registry& r) {
  using namespace porter;
  using stage = path::staged;  // the instantiation every build has (attributes for prepare())
  {
    constexpr int S = Ss;
    using Pipe = pipeline<stage, S, stream_shape::box>;
    auto fam = kernel_family{[](auto p) { return &pb_stream<decltype(p), S>; }};
    r.stream.push_back(automatic_variant<stream_problem>(
        porter_desc<path::automatic, Pipe>(stream_shape::threads, reinterpret_cast<const void*>(fam.make(stage{})), "pb_stream",
                                           sched_mode::planned),
        fam,
        [](const stream_problem& p, tile_schedule sc) {
          const std::int64_t ext[1] = {p.n};
          return std::make_tuple(make_tiled_source<stream_shape::box>(p.x, ext), p.y, p.n, p.a, p.b, sc);
        },
        [](const stream_problem& p) { return stream_shape::tiles_of(p.n); },
        [](const stream_problem&) { return 1; }));
  }
  auto stencil = [&](auto radius) {
    constexpr int R = decltype(radius)::value;
    constexpr int S = St;
    using B = stencil_shape::box<R>;
    using Pipe = pipeline<stage, S, B>;
    auto fam = kernel_family{[](auto p) { return &pb_stencil<decltype(p), S, R>; }};
    r.stencil[R].push_back(automatic_variant<stencil_problem>(
        porter_desc<path::automatic, Pipe>(stencil_shape::threads, reinterpret_cast<const void*>(fam.make(stage{})), "pb_stencil",
                                           sched_mode::planned),
        fam,
        [](const stencil_problem& p, tile_schedule sc) {
          const std::int64_t ext[2] = {p.h, p.w};
          return std::make_tuple(make_tiled_source<B>(p.in, ext), p.out, p.h, p.w, sc);
        },
        [](const stencil_problem& p) {
          return static_cast<long long>((p.w + stencil_shape::tile_w - 1) / stencil_shape::tile_w) *
                 ((p.h + stencil_shape::tile_h - 1) / stencil_shape::tile_h);
        },
        [](const stencil_problem&) { return 1; }));
  };
  stencil(std::integral_constant<int, 1>{});
  stencil(std::integral_constant<int, 2>{});
  {
    using namespace sgemm_shape;
    constexpr int S = Sg;
    using Pipe = pipeline<stage, S, a_box, b_box>;
    auto fam = kernel_family{[](auto p) { return &pb_sgemm<decltype(p), S>; }};
    r.sgemm.push_back(automatic_variant<sgemm_problem>(
        porter_desc<path::automatic, Pipe>(threads, reinterpret_cast<const void*>(fam.make(stage{})), "pb_sgemm", sched_mode::planned),
        fam,
        [](const sgemm_problem& p, tile_schedule sc) {
          const std::int64_t ea[2] = {p.k, p.m}, eb[2] = {p.k, p.n};
          return std::make_tuple(make_tiled_source<a_box>(p.at, ea), make_tiled_source<b_box>(p.b, eb), p.c, p.m, p.n, p.k, sc);
        },
        [](const sgemm_problem& p) { return static_cast<long long>((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn); },
        [](const sgemm_problem& p) { return (p.k + bk - 1) / bk; }));
  }
  {
    using namespace smallgemm_shape;
    constexpr int S = Sm;
    using Pipe = pipeline<stage, S, a_box, b_box>;
    auto fam = kernel_family{[](auto p) { return &pb_smallgemm<decltype(p), S>; }};
    r.smallgemm.push_back(automatic_variant<smallgemm_problem>(
        porter_desc<path::automatic, Pipe>(threads, reinterpret_cast<const void*>(fam.make(stage{})), "pb_smallgemm",
                                           sched_mode::planned),
        fam,
        [](const smallgemm_problem& p, tile_schedule sc) {
          const std::int64_t ea[2] = {p.m, p.k}, eb[2] = {p.k, p.n};
          return std::make_tuple(make_tiled_source<a_box>(p.a, ea), make_tiled_source<b_box>(p.b, eb), p.c, p.m, p.n, p.k, sc);
        },
        [](const smallgemm_problem& p) { return static_cast<long long>((p.m + tile - 1) / tile) * ((p.n + tile - 1) / tile); },
        [](const smallgemm_problem& p) { return (p.k + bk - 1) / bk; }));
  }
}

/// The path::automatic row of bf16gemm at S stages (min_cc 80: the consumer's, on every path).
template <int S>
void add_automatic_bf16gemm(registry& r) {
  using namespace porter;
  using namespace bf16gemm_shape;
  using stage = path::staged;  // the instantiation every build has (attributes for prepare())
  using Pipe = pipeline<stage, S, a_box, b_box>;
  auto fam = kernel_family{[](auto p) { return &pb_bf16gemm<decltype(p), S>; }};
  kernel_desc d = porter_desc<path::automatic, Pipe>(threads, reinterpret_cast<const void*>(fam.make(stage{})), "pb_bf16gemm",
                                                     sched_mode::planned);
  d.min_cc = d.min_cc > bf16gemm_shape::min_cc ? d.min_cc : bf16gemm_shape::min_cc;
  r.bf16gemm.push_back(automatic_variant<bf16gemm_problem>(
      d, fam,
      [](const bf16gemm_problem& p, tile_schedule sc) {
        const std::int64_t ea[2] = {p.m, p.k}, eb[2] = {p.n, p.k};
        return std::make_tuple(make_tiled_source<a_box>(p.a, ea), make_tiled_source<b_box>(p.b, eb), p.c, p.m, p.n, p.k, sc);
      },
      [](const bf16gemm_problem& p) { return static_cast<long long>((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn); },
      [](const bf16gemm_problem& p) { return (p.k + bk - 1) / bk; }));
}

/// Every schedule of one kernel: the planner's choice and the three forced ones.
template <class Add>
void for_each_schedule(Add&& add) {
  add(sched_mode::planned);
  add(sched_mode::persistent);
  add(sched_mode::per_tile);
  add(sched_mode::four_per_cta);
}

/// Call f.template operator()<Path>() for each concrete path.
template <class F>
void for_each_path(F&& f) {
  f.template operator()<porter::path::tma>();
  f.template operator()<porter::path::cp_async>();
  f.template operator()<porter::path::staged>();
}

}  // namespace pb
