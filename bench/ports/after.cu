// bench/ports/after.cu — the porter ports of bench/ports/ on every path and `automatic` (through
// porter::kernel_family and porter::launch<path::automatic>), each on its before's grid: the
// persistent grid (SMs x this kernel's occupancy) where the before is persistent, one tile per CTA
// where it runs one (and, for the persistent befores, on porter's planned schedule too). Also the pairs' problems (what porter-bench allocates) and the before kernels'
// registration. Compiled for every target in PORTER_CUDA_ARCHITECTURES.
#include <porter/planner.hpp>

#include <tuple>
#include <type_traits>

#include "../kernels/porter_register.cuh"
#include "after.cuh"
#include "public_matmul.cuh"

namespace pb {
namespace ports {
namespace {

template <class P>
using concrete_or_staged = std::conditional_t<std::is_same_v<P, porter::path::automatic>, porter::path::staged, P>;

/// Register the port `fam` on path P (a concrete path or automatic) in pair `pair`. `Pipe` is the
/// kernel's pipeline on P (staged for automatic: the descriptions read its sizes, which are the
/// same on every path). `plan(p, resident)` returns the launch grid and the kernel's arguments for
/// problem p when `resident` CTAs fit on the device at once.
template <class P, class Pipe, class Fam, class Plan>
void add_port(registry& r, const char* pair, const char* name, dim3 block, Fam fam, Plan plan, const char* impl = "porter") {
  constexpr bool automatic = std::is_same_v<P, porter::path::automatic>;
  const int threads = int(block.x * block.y * block.z);
  const void* func = reinterpret_cast<const void*>(fam.make(concrete_or_staged<P>{}));
  variant<port_problem> v;
  v.d = porter_desc<P, Pipe>(threads, func, name, sched_mode::planned);
  v.d.impl = impl;
  const std::size_t smem = Pipe::shared_bytes;
  // The arguments only carry the sources the choice reads; plan them for one CTA per SM (a planned
  // schedule refuses fewer resident CTAs than SMs: rule planner.ctas_per_sm, which a resident count
  // of 1 hit on the H200 and left the automatic rows of the persistent pairs refused).
  auto choose = [fam, plan](const port_problem& p) {
    const int one_per_sm = porter::require_device().sm_count;
    return std::apply([&](const auto&... a) { return porter::choose_path_for(fam, a...); }, std::get<1>(plan(p, one_per_sm)));
  };
  v.bind = [=](const port_problem& p, int grid) -> launcher {
    int resident = grid;
    if constexpr (automatic) {
      const porter::path_choice c = choose(p);
      porter::lowerings::for_each_path(porter::lowerings::all{}, [&](auto q) {
        if (decltype(q)::id == c.path) resident = resident_grid(reinterpret_cast<const void*>(fam.make(q)), threads, smem);
      });
    }
    const auto planned = plan(p, resident);
    const dim3 g = planned.first;
    const auto args = planned.second;
    return [=](cudaStream_t s) {
      std::apply([&](const auto&... a) { porter::launch<P>(fam, g, block, smem, s, a...); }, args);
    };
  };
  if constexpr (automatic) v.resolved = [choose](const port_problem& p) { return describe(choose(p)); };
  r.port(pair).variants.push_back(std::move(v));
}

template <class P>
void add_ports_on(registry& r) {
  using Q = concrete_or_staged<P>;
  // The persistent befores (asm-cp-async, cooperative-groups): "porter" rows run the schedule
  // porter::plan_schedule picks (what a port written with porter runs), "porter-same-grid" rows the
  // before's persistent grid (SMs x this kernel's occupancy, CTA b takes tiles b, b + gridDim.x, ...).
  for (const sched_mode m : {sched_mode::planned, sched_mode::persistent}) {
    const char* impl = m == sched_mode::planned ? "porter" : "porter-same-grid";
    {
      using namespace axpb;
      using Pipe = porter::pipeline<Q, stages, box>;
      auto fam = porter::kernel_family{[](auto q) { return &pb_port_axpb<decltype(q), stages>; }};
      add_port<P, Pipe>(r, "asm-cp-async", "pb_port_axpb", dim3(threads), fam,
                        [m](const port_problem& p, int resident) {
                          const std::int64_t ext[1] = {p.n};
                          const auto sc = schedule_for(m, (p.n + tile - 1) / tile, resident, Pipe::ring::stage_bytes, stages, 1);
                          return std::make_pair(dim3(sc.grid_ctas()),
                                                std::make_tuple(porter::make_tiled_source<box>(p.a, ext), p.out, p.n, a, b, sc));
                        },
                        impl);
    }
    {
      using namespace tilesum;
      using Pipe = porter::pipeline<Q, stages, box>;
      auto fam = porter::kernel_family{[](auto q) { return &pb_port_tilesum<decltype(q)>; }};
      add_port<P, Pipe>(r, "cooperative-groups", "pb_port_tilesum", dim3(threads), fam,
                        [m](const port_problem& p, int resident) {
                          const std::int64_t ext[1] = {p.n};
                          const auto sc = schedule_for(m, p.n / tile, resident, Pipe::ring::stage_bytes, stages, 1);
                          return std::make_pair(dim3(sc.grid_ctas()), std::make_tuple(porter::make_tiled_source<box>(p.a, ext), p.out, sc));
                        },
                        impl);
    }
  }
  {
    using namespace jacobi;
    auto fam = porter::kernel_family{[](auto q) { return &pb_port_jacobi<decltype(q)>; }};
    add_port<P, porter::pipeline<Q, 1, box>>(r, "cuda-barrier", "pb_port_jacobi", dim3(threads), fam,
                                             [](const port_problem& p, int) {
                                               const std::int64_t ext[2] = {p.rows, p.cols};
                                               const long long tiles = static_cast<long long>(p.rows / tile_h) * (p.cols / tile_w);
                                               const auto sc = porter::blocked_schedule(tiles, 1);
                                               return std::make_pair(dim3(sc.grid_ctas()),
                                                                     std::make_tuple(porter::make_tiled_source<box>(p.a, ext), p.out,
                                                                                     p.rows, p.cols, sc));
                                             });
  }
  auto matmul_at = [&](auto stages, const char* impl) {
    using namespace matmul;
    constexpr int S = decltype(stages)::value;
    auto fam = porter::kernel_family{[](auto q) { return &pb_port_matmul<decltype(q), S>; }};
    add_port<P, porter::pipeline<Q, S, a_box, b_box>>(
        r, "public-matmul", "pb_port_matmul", dim3(block, block), fam,
        [](const port_problem& p, int) {
          const std::int64_t ea[2] = {p.rows, p.depth}, eb[2] = {p.depth, p.cols};
          return std::make_pair(dim3((p.cols + block - 1) / block, (p.rows + block - 1) / block),
                                std::make_tuple(porter::make_tiled_source<a_box>(p.a, ea), porter::make_tiled_source<b_box>(p.b, eb),
                                                p.out, p.rows, p.depth, p.cols));
        },
        impl);
  };
  matmul_at(std::integral_constant<int, 1>{}, "porter");
  matmul_at(std::integral_constant<int, 4>{}, "porter-overlapped");
}

/// The pairs' problems and what porter-bench counts for them.
void describe_pairs(registry& r) {
  {
    port_pair& p = r.port("asm-cp-async");
    p.computes = "y = 1.5 x - 0.25, 1D tiles of 4096 floats, 4 stages, persistent grid";
    p.size = "2^27 fp32";
    p.shape.n = axpb::n;
    p.a_elems = p.out_elems = axpb::n;
    p.bytes = 2.0 * 4.0 * double(axpb::n);
    p.unit = "GB/s";
  }
  {
    port_pair& p = r.port("cuda-barrier");
    p.computes = "5-point Jacobi step, 32 x 128 tiles with a 34 x 136 halo box, 1 stage, one tile per CTA";
    p.size = "8192^2 fp32";
    p.shape.rows = jacobi::h;
    p.shape.cols = jacobi::w;
    p.a_elems = p.out_elems = static_cast<long long>(jacobi::h) * jacobi::w;
    p.bytes = 2.0 * 4.0 * double(p.a_elems);
    p.unit = "GB/s";
  }
  {
    port_pair& p = r.port("cooperative-groups");
    p.computes = "sum of every tile of 4096 floats, 2 stages (double buffer), persistent grid";
    p.size = "2^27 fp32";
    p.shape.n = tilesum::n;
    p.a_elems = tilesum::n;
    p.out_elems = tilesum::n / tilesum::tile;
    p.bytes = 4.0 * double(tilesum::n + p.out_elems);
    p.unit = "GB/s";
  }
  {
    port_pair& p = r.port("public-matmul");
    p.computes = "cuda-samples globalToShmemAsyncCopy MatrixMulAsyncCopySingleStage: C = A B (row-major), 16 x 16 C tile per CTA of 16 x 16 threads, K-step 16, 1 stage (porter-overlapped: 4)";
    const int n = matmul::size;
    p.size = std::to_string(n) + "^3";
    p.shape.rows = p.shape.cols = p.shape.depth = n;
    p.a_elems = p.b_elems = p.out_elems = static_cast<long long>(n) * n;
    p.flops = 2.0 * double(n) * n * n;
    p.bytes = 4.0 * 3.0 * double(n) * n;
    p.unit = "TFLOP/s";
  }
}

}  // namespace
}  // namespace ports

void register_port_befores(registry& r) {
  ports::register_before_asm_cp_async(r);
  ports::register_before_cuda_barrier(r);
  ports::register_before_cooperative_groups(r);
}

void register_port_afters(registry& r) {
  ports::add_ports_on<porter::path::tma>(r);
  ports::add_ports_on<porter::path::cp_async>(r);
  ports::add_ports_on<porter::path::staged>(r);
  ports::add_ports_on<porter::path::automatic>(r);
  ports::describe_pairs(r);
}

}  // namespace pb
