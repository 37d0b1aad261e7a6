// porter/planner.hpp — how many pipeline stages a kernel needs on a device (host only).
//
// THE RULE (Little's law). A memory system that delivers B bytes/s with latency L seconds holds
// B x L bytes in flight (Little, "A Proof for the Queuing Formula L = lambda W", Operations Research
// 9(3), 1961; applied to GPUs by Volkov, "Understanding Latency Hiding on GPUs", UC Berkeley
// EECS-2016-143). For one SM that must consume `demand` bytes/s from a memory whose latency is
// `latency`, the copies in flight on that SM must add up to
//
//     needed = demand x (latency + stage_bytes / fill)              (bytes per SM)
//
// where `fill` is the rate at which one SM's copies arrive while every SM loads (the SM's share of
// the bandwidth of the memory that serves them). A stage is usable only when its last byte has
// landed, `latency + stage_bytes / fill` after its copies were issued; with fill unknown (0) the
// transfer term is left out and needed = latency x demand, which assumes the stage arrives at once.
// The term matters for compute-bound kernels with large stages: on the H200 (session 33) the
// mma.sync bf16 GEMM's 48 KiB stages ran at 0.83-0.88x of their best point at the 2 stages that
// latency x demand alone asked for (23 KiB needed, 48 KiB in flight).
//
// A pipeline of S stages keeps S - 1 stages in flight while it consumes one, and each SM runs
// `ctas` CTAs (occupancy: CUDA C++ Best Practices Guide, "Occupancy"; the CUDA occupancy
// calculator), so
//
//     in_flight(S) = (S - 1) x stage_bytes x ctas(S)              (bytes per SM)
//     S            = ceil(needed / (stage_bytes x ctas)) + 1      (+1: the stage being consumed)
//
// clamped to 1..8 (porter::stage_ring's range) and to the shared memory: a stage that would lower
// the CTAs per SM is only worth it when it adds bytes in flight; a count that does not fit one CTA's
// opt-in limit is never returned. If no count reaches `needed`, the one with the most bytes in flight
// wins (ties: fewer stages).
//
// Paths matter: tma and cp_async copies are asynchronous, so stages add bytes in flight. The staged
// path's copies are plain loads completed by a CTA barrier, so for it latency is hidden mostly by
// occupancy, and the count is chosen by CTAs per SM. A multi-step staged pipeline still gains from
// a second stage: at 1 stage each step pays two CTA barriers (the reuse guard before the refill and
// the wait after it) and nothing loads while the consumer works; from 2 stages on a step pays one,
// and the next stage's deferred chunks (porter/staged/protocol.hpp) stay in flight behind the
// consumer. The staged plan is the smallest count >= 2 among those with the most CTAs per SM, and 1
// only where 1 stage keeps strictly more CTAs per SM than every count >= 2 (see
// ctas_per_sm_by_stages). Measured on an H100 (session 39, porter-bench): S = 2 against S = 1 at
// the same 2 CTAs/SM, sgemm 8192^3 38.6 against 37.2 TFLOP/s, smallgemm 5.38 against 5.21 (5
// CTAs/SM); the radius-2 stencil's 2-stage instantiation held 2 CTAs/SM against 4 at 1 stage and
// ran at 0.78x of it. plan_launch gives a one-step tile the count with the most CTAs (ties: fewer).
//
// Occupancy per stage count. Each stage count is its own instantiation of the kernel, and ptxas
// allocates registers per instantiation: on the H200 (2026-12-01) porter-bench's 5-point stencil on
// staged took 72 registers at 1 stage (3 CTAs/SM) and 64 at 2 stages (4 CTAs/SM), and ran 13% faster
// at 2. A caller who can query each instantiation passes its CTAs per SM in ctas_per_sm_by_stages;
// the planner then counts CTAs with each count's own limit.
//
// Inputs that porter-bench measures in the same run (and a caller may pass instead of defaults):
// `latency_ns` from a pointer chase over a buffer several times the L2 (default_memory_latency_ns()
// otherwise), the read bandwidth per SM from the device-to-device copy, for compute-bound kernels
// the consumption rate bytes_per_stage / time_per_stage at the achievable arithmetic rate
// (demand_from_flops()), and `fill` from reads of an L2-resident buffer by every SM (the rate at
// which a GEMM's operand tiles, which other CTAs read too, arrive).
#pragma once
#include <array>
#include <cstddef>
#include <string>

#include "porter/device.hpp"
#include "porter/path.hpp"
#include "porter/schedule_types.hpp"

namespace porter {

/// What the planner needs to know about one kernel.
struct stage_plan_request {
  path_id path = path_id::tma;          ///< the data path (staged plans by CTAs per SM: file comment)
  std::size_t stage_bytes = 0;          ///< bytes one stage brings in (all its buffers), > 0
  std::size_t fixed_smem_bytes = 0;     ///< dynamic shared memory per CTA besides the stages (barrier header, alignment slack)
  std::size_t static_smem_bytes = 0;    ///< static shared memory per CTA
  std::size_t reserved_smem_per_cta = 1024;  ///< shared memory the driver reserves per CTA (1 KiB on sm_80+)
  int threads_per_cta = 256;            ///< threads per CTA (limits CTAs per SM with max_threads_per_sm)
  int ctas_per_sm_limit = 0;            ///< CTAs per SM allowed by registers and other limits (0: threads only)
  /// [s], s = 1..8: CTAs per SM that the kernel's s-stage instantiation allows by registers and
  /// threads (cudaOccupancyMaxActiveBlocksPerMultiprocessor on that instantiation with 0 bytes of
  /// dynamic shared memory: the planner adds the shared memory itself). An entry > 0 replaces
  /// ctas_per_sm_limit for its count (fold any other cap into it); < 0: that instantiation cannot
  /// be resident (the query said 0), the count is never planned; 0 (the default, and [0]): not
  /// known, ctas_per_sm_limit applies to that count.
  std::array<int, 9> ctas_per_sm_by_stages{};
  double demand_bytes_per_second_per_sm = 0;  ///< bytes/s one SM must receive (0: DRAM peak / SMs)
  double latency_ns = 0;                ///< memory latency, ns (0: default_memory_latency_ns)
  /// Bytes/s at which one SM's copies arrive while every SM loads: the SM's share of the bandwidth
  /// of the memory that serves them (porter-bench: an L2-resident buffer read by every SM, divided
  /// by the SMs). A stage lands stage_bytes / fill after its first byte. 0: not known, the transfer
  /// time is not counted (needed = latency x demand).
  double fill_bytes_per_second_per_sm = 0;
  int max_stages = 8;                   ///< upper clamp (1..8)
};

/// The planner's answer and the numbers behind it.
struct stage_plan {
  int stages = 1;                  ///< recommended stage count, 1..8
  int ctas_per_sm = 0;             ///< CTAs per SM at that count (0: does not fit)
  double needed_bytes = 0;         ///< demand x (latency + stage_bytes / fill), bytes per SM
  double in_flight_bytes = 0;      ///< (stages - 1) x stage_bytes x ctas_per_sm, bytes per SM
  double latency_ns = 0;           ///< latency used, ns
  double demand_bytes_per_second_per_sm = 0;  ///< demand used, bytes/s per SM
  double transfer_ns = 0;          ///< stage_bytes / fill, ns (0: fill not known)
  std::string reason;              ///< one sentence: which rule decided
};

/// Default memory latency when none is measured: 700 ns, a loaded HBM latency typical of
/// A100/H100-class GPUs (unloaded pointer chases read 450-650 ns; latency under load is higher).
double default_memory_latency_ns(const device_caps& caps);

/// Consumption rate of a compute-bound kernel: `stage_bytes` are used up every
/// `flops_per_stage / flops_per_second_per_sm` seconds. Returns bytes/s per SM.
double demand_from_flops(std::size_t stage_bytes, double flops_per_stage, double flops_per_second_per_sm);

/// CTAs of `smem_per_cta` bytes (dynamic + static) that fit one SM's shared memory, with the
/// driver's per-CTA reservation; 0 when one CTA exceeds the opt-in limit.
int ctas_by_shared_memory(const device_caps& caps, std::size_t smem_per_cta, std::size_t reserved_per_cta = 1024);

/// Plan the stage count for `req` on `caps` (see the file comment for the rule).
/// Throws porter::error(errc::invalid_argument) for stage_bytes == 0.
stage_plan plan_stages(const device_caps& caps, const stage_plan_request& req);

/// The short form: stages = ceil(latency_ns x bandwidth_per_SM / (bytes_per_stage x ctas_per_sm)) + 1,
/// with bandwidth_per_SM = caps.peak_dram_bytes_per_second() / caps.sm_count, clamped to 1..8 and
/// to (stages x bytes_per_stage <= smem_budget). latency_ns <= 0 uses default_memory_latency_ns.
/// For asynchronous paths (tma, cp_async); for the staged path use the full form, which plans by
/// CTAs per SM (file comment).
int plan_stages(const device_caps& caps, std::size_t bytes_per_stage, int ctas_per_sm, double latency_ns,
                std::size_t smem_budget);

// ---- grid schedules ---------------------------------------------------------------------------------
//
// THE RULE (bytes in flight, the way cub::DeviceTransform sizes its tiles from occupancy). A
// one-tile-per-CTA grid keeps, on each SM, ctas_per_sm tiles loading at once: when
//
//     ctas_per_sm x tile_bytes >= needed (= demand x (latency + tile_bytes / fill), as above)
//
// residency alone hides the latency, every CTA runs one tile and exits, and the grid is as large as
// the problem (tiles CTAs): no CTA waits at the end for a round-robin share it does not have. When it
// does not hold, a CTA must keep several tiles in flight itself: a persistent grid (SMs x
// ctas_per_sm CTAs, round-robin over the tiles) whose pipelines keep (stages - 1) tiles each in
// flight. A tile of at least stages - 1 steps (a GEMM tile: its K-tiles) already keeps that many in
// flight inside its own CTA, so for it the grid stays one tile per CTA. porter-bench measures both
// schedules at every stage count beside this choice.
//
// MEASURED LIMIT (H200, session 27: bench/results/h200-2026-12-03-session27, exp9: porter's stream
// consumer at 1 stage, residency held by shared-memory padding). `needed` is a floor, not a target.
// The rate peaked where ctas_per_sm x tile_bytes reached about 48 KiB per SM (also the min_bif of
// CCCL's DeviceTransform tuning for sm_90); above it, more CTAs per SM only queued at the memory:
// 16 KiB tiles at 3 / 4 / 8 CTAs per SM ran 0.988 / 0.980 / 0.969x cudaMemcpy on tma. The one-tile
// rule of plan_launch (the most CTAs per SM) therefore overshoots for a light consumer: porter-bench's
// stream, 12 KiB tiles planned at 8 CTAs per SM, runs 0.97-0.99x of its best stage count (4 stages:
// 4 CTAs per SM; staged's best, 3 stages, holds 5). The planner does not cap at the window: kernels
// whose CTAs hold a stage past its load (a stencil's arithmetic, a store reading the stage) want more
// nominal bytes. A stencil at 3 CTAs x 18 KiB ran 0.94x its best point, and copy2d at 3 x 16 KiB
// 0.976x cudaMemcpy against 0.998x at 4.

/// What plan_schedule needs to know about one launch.
struct schedule_request {
  long long tiles = 0;                  ///< tiles (pipeline steps of one stage each) in the problem, >= 0
  std::size_t tile_bytes = 0;           ///< bytes one pipeline step brings in (one stage: all its buffers), > 0
  int stages = 1;                       ///< the pipeline's stages
  int ctas_per_sm = 0;                  ///< CTAs of the kernel resident per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor), > 0
  int steps_per_tile = 1;               ///< pipeline steps per tile (a GEMM output tile: its K-tiles)
  double demand_bytes_per_second_per_sm = 0;  ///< bytes/s one SM must receive (0: DRAM peak / SMs)
  double latency_ns = 0;                ///< memory latency, ns (0: default_memory_latency_ns)
  double fill_bytes_per_second_per_sm = 0;  ///< as stage_plan_request's (0: the transfer time is not counted)
};

/// plan_schedule's answer and the numbers behind it.
struct schedule_plan {
  tile_schedule schedule;               ///< pass to the kernel; launch schedule.grid_ctas() CTAs
  double needed_bytes = 0;              ///< latency x demand, bytes per SM
  double in_flight_bytes = 0;           ///< what the chosen schedule keeps in flight per SM
  std::string reason;                   ///< one sentence: which rule decided
};

/// Choose the grid schedule for `req` on `caps` (see the rule above). Throws porter::error
/// (errc::invalid_argument) for tile_bytes == 0, ctas_per_sm < 1 or tiles < 0.
schedule_plan plan_schedule(const device_caps& caps, const schedule_request& req);

/// Stages and schedule together: what a launch of `stages.path` over `tiles` tiles should use.
struct launch_plan_request {
  stage_plan_request stages;            ///< the kernel as plan_stages sees it (stage bytes, occupancy limits, demand, latency)
  long long tiles = 0;                  ///< tiles in the problem
  int steps_per_tile = 1;               ///< pipeline steps per tile (1: streaming; a GEMM tile: its K-tiles)
};

/// plan_launch's answer.
struct launch_plan {
  int stages = 1;                       ///< pipeline stages, 1..8
  bool one_tile_per_cta = true;         ///< the schedule kind (else persistent)
  int ctas_per_sm = 0;                  ///< CTAs per SM at that stage count
  std::string reason;                   ///< one sentence: which rule decided
};

/// THE RULE for stages and grid together. A streaming kernel (one step per tile) that fits enough
/// tiles in flight with ONE stage per CTA (ctas_per_sm(s) x stage_bytes >= needed, or the problem
/// fits one wave) runs one tile per CTA, with the stage count s that fits the most CTAs per SM
/// (ties: fewer stages; 1 unless ctas_per_sm_by_stages says otherwise): a CTA of one step has no
/// use for a second stage, which would only cut the CTAs per SM.
/// Otherwise the stage count comes from plan_stages (bytes in flight inside each CTA) and the
/// schedule from plan_schedule at that count.
launch_plan plan_launch(const device_caps& caps, const launch_plan_request& req);

/// The persistent schedule of `tiles` tiles on a grid of `grid` CTAs (> 0).
tile_schedule persistent_schedule(long long tiles, int grid);
/// The one-tile-per-CTA schedule (blocked, k tiles per CTA: k = 1 is one tile each).
tile_schedule blocked_schedule(long long tiles, int tiles_per_cta = 1);

}  // namespace porter
