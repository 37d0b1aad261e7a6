// bench/src/bench.hpp — the porter-bench driver's shared state and the workload runners.
#pragma once
#include <cuda_runtime.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <porter/device.hpp>

#include "report.hpp"
#include "timing.hpp"
#include "variants.hpp"

namespace pb {

struct options {
  bool quick = false;        ///< fewer repetitions; sgemm sweep at 8192 only
  bool sweep = true;         ///< run the stage sweep
  bool ncu = false;          ///< add stall reasons through Nsight Compute
  bool ncu_only = false;     ///< only the ncu pass
  bool ncu_child = false;    ///< internal: the process ncu profiles
  bool lowering = false;     ///< print the lowering report (also with a GPU)
  int device = 0;
  std::string out;           ///< results directory ("" = none)
  std::vector<std::string> only;  ///< workloads to run (empty: all): stream, stencil, sgemm, bf16gemm, smallgemm, copy2d, transpose, ports, launch
  double budget_s = 0;       ///< stop starting new sweeps after this many seconds (0: by mode)
  bool triton = true;        ///< run the Triton and torch peers (bench/peers/triton_peers.py) when python imports them
  std::string python;        ///< the peers' interpreter ("" : $PORTER_BENCH_PYTHON, else python3)
  double triton_budget_s = 0;  ///< the peers' own time budget (0: 120 s quick, 300 s full)
  bool wants(const std::string& w) const;
};

/// "<workload> <size>", e.g. "bf16gemm 4096^3 x2": the key of context::tiles_of and the workload
/// column of a planner line.
inline std::string workload_size(const std::string& workload, const std::string& size) { return workload + " " + size; }

struct context {
  options opt;
  porter::device_caps caps;
  cudaStream_t stream = nullptr;
  registry reg;
  report rep;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double d2d_gbs = 0;         ///< cudaMemcpy D2D, GB/s (read + write)
  double copy_gbs = 0;        ///< vectorized copy kernel, GB/s
  double latency_ns = 0;      ///< pointer chase, ns per dependent load (0: not measured)
  std::string latency_note;
  double l2_read_gbs = 0;     ///< an L2-resident buffer read by every SM, GB/s (0: not measured): the planner's fill rate
  std::string l2_read_note;
  double cublas_tflops_8192 = 0, cublas_tflops_4096 = 0;
  double cublas_tflops_smallgemm = 0;  ///< cuBLAS at the smallgemm size (the planner's demand)
  double cublas_bf16_tflops_8192 = 0, cublas_bf16_tflops_4096 = 0;  ///< cuBLAS bf16 (cublasGemmEx) at bf16gemm's sizes
  /// Per workload_size(workload, size) (as planner lines name them, e.g. "bf16gemm 4096^3 x2"):
  /// tiles of the problem and pipeline steps per tile (the planner's launch inputs). Keyed by size
  /// too, so that a workload run at two sizes (sgemm, bf16gemm) keeps the tiles of each.
  std::map<std::string, std::pair<long long, int>> tiles_of;
  bool kokkos_ran = false;
  std::vector<row> kokkos_rows;  ///< from porter-bench-kokkos

  double elapsed_s() const;
  bool over_budget() const;
  timing_budget budget(double est_ms_per_run) const;
  /// "[porter-bench 12.3 s] <msg>" on stderr.
  void progress(const std::string& msg) const;
};

void run_stream(context& cx);
void run_stencil(context& cx, int radius);
void run_sgemm(context& cx, int size, bool sweep);
/// smallgemm at size^3 (smallgemm_shape::size): cuBLAS ceiling, porter paths, hand-written pipelines.
void run_smallgemm(context& cx, int size, bool sweep);
/// bf16gemm at size^3: C (fp32) = A * B^T from bf16 A (M x K) and B (N x K), fresh random inputs;
/// the cuBLAS bf16 ceiling, every porter path and automatic (mma.sync through porter::load_fragments).
void run_bf16gemm(context& cx, int size, bool sweep);
/// copy2d (async_copy + async_store through shared memory) and transpose (column reads of 128 B
/// swizzled tiles against dense ones): bench/src/workloads.cpp.
void run_copy2d(context& cx);
/// The box-size sweep (shapes.hpp boxsize_shape): every box size on every path and automatic, and
/// tma's break-even per rank (a note).
void run_boxsize(context& cx);
void run_transpose(context& cx);
/// ports (bench/ports/): every before/after pair on fresh random data, the outputs compared bit for
/// bit against the before, the speed of every porter path as a ratio to it.
void run_ports(context& cx);
/// The per-call host cost of porter::launch (plain, struct-held source, cluster through
/// cudaLaunchKernelEx, automatic) against raw <<<>>> and cudaLaunchKernelEx of the same kernels:
/// median ns per call, printed and recorded in the report's meta (bench/src/launch_cost.cu).
void run_launch_cost(context& cx);
/// Measure the latency the planner uses (pointer chase over a buffer several times the L2).
void measure_memory(context& cx);
/// The planner's answer for one workload at one size on one porter path.
struct planner_plan {
  int stages = 0;      ///< porter::plan_launch's stage count
  std::string reason;  ///< its reason, then the inputs it was given: demand, latency, fill
};

/// The planner's plan for `workload` at `size` (e.g. "bf16gemm", "4096^3 x2") on `path` (tma,
/// cp_async, staged): porter::plan_launch given the registry's porter kernels of that workload (the
/// default-stage kernel's stage bytes, fixed shared memory and threads; every built stage count's
/// CTAs per SM, from occupancy queries on the device) and what this run measured: cx.latency_ns and
/// cx.l2_read_gbs (measure_memory), the demand (cuBLAS' rate at the size for the GEMMs, half
/// cx.d2d_gbs for stream and the stencils) and cx.tiles_of["workload size"]. Every one of these is
/// set before the workload's porter rows run and not changed after, so the call gives the same plan
/// inside the workload (the planner pairing, workloads.cpp) and after all of them
/// (evaluate_planner). nullopt when the registry has no porter kernel of `path` at the workload's
/// default stages (or the workload has no stage sweep). Throws porter::error as plan_launch does.
std::optional<planner_plan> plan_for(const context& cx, const std::string& workload, const std::string& size, const std::string& path);

/// The two rows a planner line compares. `planned`: the "porter" row at the planned stage count (its
/// grid is plan_schedule's). `best`: the fastest ok row of the same kernel over every stage count and
/// schedule (impl porter, porter-persistent, porter-per-tile, porter-4-per-cta; not porter-nested,
/// another kernel body). nullptr where the run has none. Host only.
struct planner_points {
  const row* planned = nullptr;
  const row* best = nullptr;
};
planner_points planner_points_of(const context& cx, const std::string& workload, const std::string& size, const std::string& path,
                                 int planned_stages);

/// The planner line of `workload` at `size` on `path` for `plan`: the two points' rates
/// (planner_points_of) and, when the planned row carries a paired re-timing against exactly the best
/// row (row::paired_with == the best's label), that paired ratio. Host only.
planner_line planner_line_of(const context& cx, const std::string& workload, const std::string& size, const std::string& path,
                             const planner_plan& plan);

/// Planner recommendations beside the sweep (a planner_line per workload, size and path with a
/// sweep), and the targets.
void evaluate_planner(context& cx);
void evaluate_targets(context& cx);
/// The ncu targets of issue 9 ("ncu on the best GEMM of each kind: long-scoreboard stalls < 5% of
/// issue slots, FMA or tensor pipe active >= 70%"), two per kind: sgemm and smallgemm (fma_pipe%),
/// bf16gemm with mma.sync and with wgmma (both tensor_pipe%: the HMMA metric counts wgmma on sm_90). The
/// kernel judged is the fastest porter main-table row of the kind at the size the ncu pass profiled,
/// or, without timed rows (--ncu-only), the kind's kernel with the shortest duration in the ncu pass.
/// n/a, never a guessed value, when the pass gave nothing, ran no kernel of the kind or lacks a
/// metric. Reads cx.rep.stalls (run_ncu): call it after run_ncu, and only when the pass ran. Host only.
void evaluate_ncu_targets(context& cx);
/// Issue 8's shared-memory bank-conflict targets from the ncu pass: the transpose on 128 B-swizzled
/// tiles against the same kernel on dense tiles (at most 1% of its conflicts), per path; the sgemm
/// on swizzled tiles against the hand-written pipeline of the same tiling (at most its conflicts),
/// on tma and cp_async. n/a where ncu has no line for either kernel.
void evaluate_ncu_conflict_targets(context& cx);

/// Bytes per mechanism (porter::copy_mechanisms) of every porter path on every workload, from the
/// workloads' shapes and coordinate patterns (host only; the buffers are cudaMalloc'd, so 256-byte
/// aligned: a fake address of that alignment stands for them).
std::vector<mechanism_line> workload_mechanisms();

/// Run porter-bench-kokkos (beside this executable) and return its rows (workload, impl, kernel,
/// status, check, times). Without it, one note in the report says why.
std::vector<row> run_kokkos_child(context& cx);
/// "Kokkos 4.6.1 (CUDA): porter-bench-kokkos" or why there are no Kokkos baselines.
std::string kokkos_status();

/// Run bench/peers/triton_peers.py (Triton and torch on stream, sgemm, bf16gemm) as a child process
/// after the workloads and merge its rows into cx.rep (bench/src/triton_client.cpp); without
/// --no-triton, a python that imports triton and torch, or the script, one note says why.
void run_triton_peers(context& cx);
/// The interpreter for the peers: --python, else $PORTER_BENCH_PYTHON, else python3.
std::string peer_python(const options& o);
/// `python -c "import triton, torch"`: true and "triton X torch Y", or false and why.
bool probe_triton(const std::string& python, std::string& versions, std::string& why);
/// What happened to the Triton peers on a machine without a GPU (for the no-GPU report).
std::string triton_status_without_gpu(const options& o);


}  // namespace pb
