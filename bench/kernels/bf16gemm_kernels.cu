// bench/kernels/bf16gemm_kernels.cu — the bf16 tensor-core GEMM (bf16gemm.cuh) at its default stage
// count on every path and schedule, and its path::automatic row. Compiled for every target in
// PORTER_CUDA_ARCHITECTURES (below sm_80 the kernels are trap stubs and the rows are refused on the
// host: bf16gemm_shape::min_cc). Its own translation unit, so that it compiles beside the others.
#include "porter_register.cuh"

#include <stdexcept>

namespace pb {

namespace {
struct add_bf16gemm_defaults {
  registry& r;
  template <class Path>
  void operator()() const {
    registry& reg = r;
    for_each_schedule([&reg](sched_mode m) { add_bf16gemm<Path, default_stages_bf16gemm>(reg, m); });
  }
};

/// "porter-multicast": the same kernel in clusters of 2 CTAs sharing their B box (pb_bf16gemm's
/// Multicast: porter::cluster_multicast ring, porter::multicast copy of B), one tile per CTA (the
/// blocked schedule of the "porter-per-tile" rows, its baseline). tma only (elsewhere each CTA
/// would copy its own B: the per-tile row); sm_90 (clusters).
template <int S>
void add_bf16gemm_multicast(registry& r) {
  using namespace bf16gemm_shape;
  using Path = porter::path::tma;
  using Pipe = porter::pipeline<Path, S, a_box, b_box>;
  auto* k = &pb_bf16gemm<Path, S, true>;
  kernel_desc d = porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_bf16gemm", sched_mode::per_tile);
  d.impl = "porter-multicast";
  d.min_cc = d.min_cc > 90 ? d.min_cc : 90;
  r.bf16gemm.push_back({d, [k](const bf16gemm_problem& p, int) -> launcher {
                          const int tiles_m = (p.m + bm - 1) / bm, tiles_n = (p.n + bn - 1) / bn;
                          if (tiles_m % 2 != 0)
                            throw std::invalid_argument("porter-multicast pairs C tiles by rows: it needs an even number of 128-row tiles");
                          const std::int64_t ea[2] = {p.m, p.k}, eb[2] = {p.n, p.k};
                          auto sa = porter::make_tiled_source<a_box>(p.a, ea);
                          auto sb = porter::make_tiled_source<b_box>(p.b, eb);
                          const porter::tile_schedule sc = porter::blocked_schedule(static_cast<long long>(tiles_m) * tiles_n, 1);
                          const porter::launch_options o = porter::launch_options{}.cluster(porter::dims3(2));
                          return [=](cudaStream_t s) {
                            porter::launch<Path>(o, k, dim3(sc.grid_ctas()), dim3(threads), Pipe::shared_bytes, s, sa, sb, p.c, p.m, p.n,
                                                 p.k, sc);
                          };
                        }});
}
}  // namespace

void register_bf16gemm_kernels(registry& r) {
  for_each_path(add_bf16gemm_defaults{r});
  add_automatic_bf16gemm<default_stages_bf16gemm>(r);
  add_bf16gemm_multicast<default_stages_bf16gemm>(r);
}

}  // namespace pb
