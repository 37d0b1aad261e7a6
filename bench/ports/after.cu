// bench/ports/after.cu — the porter ports of bench/ports/ on every path and `automatic` (through
// porter::kernel_family and porter::launch<path::automatic>), each on its before's grid: the
// persistent grid (SMs x this kernel's occupancy) where the before is persistent, one tile per CTA
// where it runs one (and, for the persistent befores, on porter's planned schedule too). Also the pairs' problems (what porter-bench allocates) and the before kernels'
// registration. Compiled for every target in PORTER_CUDA_ARCHITECTURES.
#include <porter/planner.hpp>

#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "add_port.cuh"
#include "after.cuh"
#include "public_matmul.cuh"

namespace pb {
namespace ports {
namespace {

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
  {
    // cutlass: the CuTe mainloop's port (after.cuh pb_port_cute) at the CuTe kernel's 4 stages, on
    // its grid (one 128 x 128 C tile per CTA, blockIdx.x: no schedule argument).
    using namespace sgemm_shape;
    constexpr int S = cute_gemm::stages;
    const auto plan = [](const port_problem& p, int) {
      const std::int64_t ea[2] = {p.depth, p.rows}, eb[2] = {p.depth, p.cols};
      const unsigned tiles = unsigned((p.rows + bm - 1) / bm) * unsigned((p.cols + bn - 1) / bn);
      return std::make_pair(dim3(tiles), std::make_tuple(porter::make_tiled_source<a_box>(p.a, ea), porter::make_tiled_source<b_box>(p.b, eb),
                                                         p.out, p.rows, p.cols, p.depth));
    };
    add_port<P, porter::pipeline<Q, S, a_box, b_box>>(r, "cutlass", "pb_port_cute", dim3(threads),
                                                      porter::kernel_family{[](auto q) { return &pb_port_cute<decltype(q), S>; }}, plan);
    // The port at 6 stages with the before's 3 K-tiles ahead (pb_port_cute's D: the reuse barrier
    // every 3 steps), and in clusters of 2 CTAs sharing At's K-tiles (porter::multicast; needs an
    // even number of tile columns and sm_90), at 4 stages and at 6.
    auto variant = [&](auto s_, auto mc_, auto d_, const char* impl) {
      constexpr int S2 = decltype(s_)::value, D2 = decltype(d_)::value;
      constexpr bool MC = decltype(mc_)::value;
      add_port<P, porter::pipeline<Q, S2, a_box, b_box>>(
          r, "cutlass", "pb_port_cute", dim3(threads),
          porter::kernel_family{[](auto q) { return &pb_port_cute<decltype(q), S2, MC, D2>; }},
          [plan](const port_problem& p, int resident) {
            if (MC && (p.cols + bn - 1) / bn % 2 != 0)
              throw std::invalid_argument("the multicast port pairs C tiles by columns: it needs an even number of 128-column tiles");
            return plan(p, resident);
          },
          impl, MC ? 90 : 0, MC ? porter::launch_options{}.cluster(dim3(2)) : porter::launch_options{});
    };
    using std::integral_constant;
    variant(integral_constant<int, S + 2>{}, std::false_type{}, integral_constant<int, S - 1>{}, "porter-s6");
    variant(integral_constant<int, S>{}, std::true_type{}, integral_constant<int, S - 1>{}, "porter-multicast");
    variant(integral_constant<int, S + 2>{}, std::true_type{}, integral_constant<int, S - 1>{}, "porter-multicast-s6");
  }
}

/// An fp32 GEMM pair's problem: m = n = k = `n`, A, B and C n x n fp32, 2 n^3 flops and the three
/// matrices' bytes per run, rated in TFLOP/s.
void describe_fp32_gemm(port_pair& p, int n, const char* computes) {
  p.computes = computes;
  p.size = std::to_string(n) + "^3";
  p.shape.rows = p.shape.cols = p.shape.depth = n;
  p.a_elems = p.b_elems = p.out_elems = static_cast<long long>(n) * n;
  p.flops = 2.0 * double(n) * n * n;
  p.bytes = 4.0 * 3.0 * double(n) * n;
  p.unit = "TFLOP/s";
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
  describe_fp32_gemm(r.port("public-matmul"), matmul::size,
                     "cuda-samples globalToShmemAsyncCopy MatrixMulAsyncCopySingleStage: C = A B (row-major), 16 x 16 C tile per CTA "
                     "of 16 x 16 threads, K-step 16, 1 stage (porter-overlapped: 4)");
  {
    port_pair& p = r.port("public-bf16gemm");
    p.computes = "cuda-samples bf16TensorCoreGemm compute_bf16gemm_async_copy: D = 1.1 A B + 1.2 C, A (row-major) and B "
                 "(column-major) bf16, C and D fp32, wmma 16x16x16 on tensor cores, 128 x 128 D tiles per CTA of 8 warps, "
                 "K chunk 128, 1 stage (porter-overlapped: 2; porter-dense: dense 128 x 128 boxes, wmma ldm 128)";
    const int n = bf16gemm::size;
    p.size = std::to_string(n) + "^3";
    p.shape.rows = p.shape.cols = p.shape.depth = n;
    p.ab_bytes = 2;
    p.a_elems = p.b_elems = p.c_elems = p.out_elems = static_cast<long long>(n) * n;
    p.flops = 2.0 * double(n) * n * n;
    p.bytes = (2.0 * 2.0 + 2.0 * 4.0) * double(n) * n;
    p.unit = "TFLOP/s";
  }
  describe_fp32_gemm(r.port("cutlass"), cute_gemm::size,
                     "a CuTe sm80 multistage mainloop (cute::copy of SM80_CP_ASYNC_CACHEGLOBAL<uint128_t> atoms, cp_async_fence, "
                     "cp_async_wait<S-2>) vs its port pb_port_cute: C = A B fp32, A stored transposed, 128 x 128 C tile per CTA, "
                     "K-tile 16, 4 stages, one tile per CTA");
}

}  // namespace
}  // namespace ports

void register_port_befores(registry& r) {
  ports::register_before_asm_cp_async(r);
  ports::register_before_cuda_barrier(r);
  ports::register_before_cooperative_groups(r);
  ports::register_before_cute(r);
}

void register_port_afters(registry& r) {
  ports::add_ports_on<porter::path::tma>(r);
  ports::add_ports_on<porter::path::cp_async>(r);
  ports::add_ports_on<porter::path::staged>(r);
  ports::add_ports_on<porter::path::automatic>(r);
  ports::register_public_bf16gemm_port(r);
  ports::describe_pairs(r);
}

}  // namespace pb
