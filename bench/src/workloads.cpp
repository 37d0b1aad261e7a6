// bench/src/workloads.cpp — the workloads: data, correctness checks, timing, ceilings.
//
// Every variant is checked once before it is timed (poisoned output, one run, a check against the
// CPU, cuBLAS or the formula); a wrong result makes its row FAILED and porter-bench exit non-zero.
#include <porter/error.hpp>
#include <porter/mechanisms.hpp>
#include <porter/planner.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

#include "../baselines/cub_stream.hpp"
#include "../baselines/cublas_gemm.hpp"
#include "../kernels/shapes.hpp"
#include "bench.hpp"
#include "checks.hpp"
#include "device_util.hpp"

namespace pb {

// ---- context ------------------------------------------------------------------------------------

namespace {
double g_planner_latency_ns = 0;
}  // namespace
double planner_latency_ns() { return g_planner_latency_ns; }
void set_planner_latency_ns(double ns) { g_planner_latency_ns = ns; }

bool options::wants(const std::string& w) const {
  return only.empty() || std::find(only.begin(), only.end(), w) != only.end();
}

double context::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool context::over_budget() const {
  const double limit = opt.budget_s > 0 ? opt.budget_s : (opt.quick ? 150.0 : 420.0);
  return elapsed_s() > limit;
}

timing_budget context::budget(double) const { return budget_for(opt.quick); }

void context::progress(const std::string& msg) const {
  std::fprintf(stderr, "[porter-bench %6.1f s] %s\n", elapsed_s(), msg.c_str());
  std::fflush(stderr);
}

int ctas_per_sm(const kernel_desc& d) {
  if (d.smem > 48 * 1024 &&
      cudaFuncSetAttribute(d.func, cudaFuncAttributeMaxDynamicSharedMemorySize, int(d.smem)) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, d.func, d.threads, d.smem) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// A device buffer freed at scope exit.
struct dbuf {
  void* p = nullptr;
  explicit dbuf(std::size_t bytes) { check(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~dbuf() { if (p) cudaFree(p); }
  dbuf(const dbuf&) = delete;
  dbuf& operator=(const dbuf&) = delete;
  float* f() const { return static_cast<float*>(p); }
  __nv_bfloat16* bf16() const { return static_cast<__nv_bfloat16*>(p); }
};

std::string cc_str(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }

/// Fill the description fields of `r` from `d`; false (status set) if it cannot run here.
bool prepare(context& cx, const kernel_desc& d, row& r) {
  r.impl = d.impl;
  r.path = d.path;
  r.stages = d.stages;
  r.threads = d.threads;
  r.smem = static_cast<long long>(d.smem);
  r.kernel = d.kernel;
  if (d.min_cc > cx.caps.compute_capability()) {
    r.status = "skipped: " + d.impl + "/" + d.path + " needs compute capability " + cc_str(d.min_cc) + "; " + cx.caps.name +
               " has " + cc_str(cx.caps.compute_capability());
    return false;
  }
  if (d.only_cc != 0 && d.only_cc != cx.caps.compute_capability()) {
    r.status = "skipped: " + d.impl + "/" + d.path + " is built for compute capability " + cc_str(d.only_cc) +
               " only (an arch-specific target, e.g. sm_90a); " + cx.caps.name + " has " + cc_str(cx.caps.compute_capability());
    return false;
  }
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, d.func) != cudaSuccess) {
    cudaGetLastError();
    r.status = std::string("skipped: this build has no code for sm_") + std::to_string(cx.caps.compute_capability()) +
               " in this kernel (stage-sweep and manual kernels are built for " + sweep_architectures() + ")";
    return false;
  }
  r.regs = a.numRegs;
  r.local_bytes = int(a.localSizeBytes);
  r.ctas_per_sm = ctas_per_sm(d);
  if (r.ctas_per_sm == 0) {
    r.status = "skipped: " + std::to_string(d.smem) + " B of shared memory per CTA do not fit " + cx.caps.name;
    return false;
  }
  r.grid = r.ctas_per_sm * cx.caps.sm_count;
  return true;
}

/// Check once (after `poison`), then time. `launch[i % size]` runs on buffer set i.
void check_and_time(context& cx, row& r, const std::vector<launcher>& launch, const std::function<void()>& poison,
                    const std::function<verdict()>& verify) {
  std::ostringstream label;
  label << r.workload << " " << r.size << ": " << r.impl << (r.path != "-" ? "/" + r.path : "")
        << (r.stages ? " S=" + std::to_string(r.stages) : "");
  try {
    poison();
    launch[0](cx.stream);
    check(cudaStreamSynchronize(cx.stream), "first run");
    verdict v = verify();
    r.check = v.what;
    if (!v.ok) {
      r.status = "FAILED: " + v.what;
      cx.progress(label.str() + ": FAILED: " + v.what);
      return;
    }
    const timing t = time_launches([&](int rep) { launch[std::size_t(rep) % launch.size()](cx.stream); }, cx.stream, cx.budget(0));
    r.ms_median = t.median_ms;
    r.ms_min = t.min_ms;
    r.ms_p10 = t.p10_ms;
    r.ms_p90 = t.p90_ms;
    r.reps = t.reps;
    const double s = t.median_ms * 1e-3;
    r.rate = r.unit == "GB/s" ? r.bytes / s / 1e9 : r.flops / s / 1e12;
    cx.progress(label.str() + ": " + format_time(t.median_ms) + " (" + format_double(r.rate, r.unit == "GB/s" ? 1 : 2) + " " +
                r.unit + ", " + std::to_string(t.reps) + " runs)");
  } catch (const porter::error& e) {
    r.status = std::string("refused: ") + e.what();
    cx.progress(label.str() + ": " + r.status);
  } catch (const std::exception& e) {
    r.status = std::string("FAILED: ") + e.what();
    cx.progress(label.str() + ": " + r.status);
    cudaGetLastError();
  }
}

/// Rows of one run_variants call with the launchers that timed them.
using kept_launchers = std::vector<std::pair<std::size_t, std::vector<launcher>>>;

/// Row `a` of cx.rep.rows timed against row `b` in alternating order: `rounds` rounds, A then B in
/// even rounds and B then A in odd ones (ABBA...), each side a short timing (budget_for(true):
/// 1 warm-up, 5..30 runs, ~60 ms) on the launchers `la` and `lb` that timed the rows. The two rows
/// must do the same work per run (one workload at one size: the same bytes and flops), so that A's
/// rate over B's is B's median time over A's. Two medians taken minutes apart differ by the card's
/// clock and power drift; back to back and alternating, the drift cancels in the median over rounds.
/// On success sets row a's paired_ratio (that median), paired_rounds and paired_with (b's label),
/// prints the rounds and returns true. On a CUDA error, or a timing that came back empty, leaves row
/// a unpaired and returns false.
bool pair_rows(context& cx, std::size_t a, const std::vector<launcher>& la, std::size_t b, const std::vector<launcher>& lb,
               int rounds = 6) {
  if (la.empty() || lb.empty() || a == b) return false;
  const timing_budget short_timing = budget_for(true);
  auto median_ms = [&](const std::vector<launcher>& ls) {
    return time_launches([&](int rep) { ls[std::size_t(rep) % ls.size()](cx.stream); }, cx.stream, short_timing).median_ms;
  };
  std::vector<double> ratios;
  try {
    for (int i = 0; i < rounds; ++i) {
      double ta_ms = 0, tb_ms = 0;
      if (i % 2 == 0) {
        ta_ms = median_ms(la);
        tb_ms = median_ms(lb);
      } else {
        tb_ms = median_ms(lb);
        ta_ms = median_ms(la);
      }
      if (ta_ms <= 0 || tb_ms <= 0) return false;
      ratios.push_back(tb_ms / ta_ms);  // A's rate over B's
    }
  } catch (const std::exception& e) {
    cx.progress("paired re-timing of " + cx.rep.rows[a].label() + " against " + cx.rep.rows[b].label() + ": FAILED: " + e.what());
    cudaGetLastError();
    return false;
  }
  row& ra = cx.rep.rows[a];
  ra.paired_ratio = median(ratios);
  ra.paired_rounds = rounds;
  ra.paired_with = cx.rep.rows[b].label();
  std::ostringstream o;
  o << ra.workload << " " << ra.size << ": " << ra.label() << " over " << ra.paired_with << ", paired (" << rounds
    << " alternating rounds): " << format_double(ra.paired_ratio, 3) << "x; rounds:";
  for (double r : ratios) o << " " << format_double(r, 3);
  cx.progress(o.str());
  return true;
}

/// porter/automatic against the fastest forced porter row timed in the same call (the two terms of
/// the "automatic >= 0.99x the fastest forced path" targets), timed again in alternating rounds
/// (pair_rows). Both rows are usually the same kernel on the same schedule, so their separate
/// medians differ by the card's clock and power drift (1-3% on tensor-core GEMMs) rather than by
/// anything automatic does. Sets row::paired_* on the automatic row; leaves it unpaired on any error.
void pair_automatic(context& cx, const kept_launchers& kept) {
  const kept_launchers::value_type *au = nullptr, *fast = nullptr;
  for (const auto& k : kept) {
    const row& r = cx.rep.rows[k.first];
    if (!r.ok() || r.impl != "porter" || r.sweep_only || k.second.empty()) continue;
    if (r.path == "automatic") au = &k;
    else if (!fast || r.rate > cx.rep.rows[fast->first].rate) fast = &k;
  }
  if (!au || !fast) return;
  pair_rows(cx, au->first, au->second, fast->first, fast->second);
}

/// The planner's point re-timed against the best point of the sweep (the two terms of the target
/// "planner: ... planned S=k within 5% of the best point"), for one workload at one size. On a ~0.3 ms
/// GEMM two single rows' medians drift by several percent, and the best of many noisy medians leans
/// high, so the unpaired ratio misses by noise; pair_rows times the two back to back instead.
///
/// The launchers (and the buffers they capture) live only while the workload runs, so:
/// - made before the workload's porter rows run (after its ceilings and measure_memory, which the
///   plan reads), it takes each path's plan (plan_for, the call evaluate_planner makes later);
/// - `offer`, after each row is timed, keeps the launchers of the rows that are so far the planned
///   and the best point of their path (planner_points_of) and drops any other at once: at most two
///   sets per path stay alive, sweep rows' included;
/// - `pair`, after the workload's rows and compare_checksums, times each path's planned row against
///   its best in alternating rounds when they are different rows, records the ratio on the planned
///   row (row::paired_*), and releases every kept launcher.
/// Off (nothing planned, kept or timed) without a sweep or a measured latency; `pair` times nothing
/// once the mode's time budget is used up. A path stays unpaired on a CUDA error, when the plan
/// throws, or when compare_checksums marked the kept best point FAILED (the next best was dropped).
class planner_pairing {
 public:
  planner_pairing(const context& cx, const row& base, bool sweep) : workload_(base.workload), size_(base.size) {
    if (!sweep || cx.latency_ns <= 0) return;
    for (const char* path : {"tma", "cp_async", "staged"}) {
      try {
        if (const auto plan = plan_for(cx, workload_, size_, path)) paths_.push_back({path, plan->stages, {}});
      } catch (const std::exception& e) {
        cx.progress(workload_ + " " + size_ + ": no planner pairing on " + path + ": " + e.what());
      }
    }
  }

  /// Row `index` of cx.rep.rows was just timed with `ls`.
  void offer(const context& cx, std::size_t index, const std::vector<launcher>& ls) {
    const row& r = cx.rep.rows[index];
    if (ls.empty() || r.workload != workload_ || r.size != size_) return;
    for (path_state& p : paths_) {
      if (r.path != p.path) continue;
      const auto [planned, best] = indices(cx, p);
      if (index == planned || index == best) p.kept[index] = ls;
      for (auto it = p.kept.begin(); it != p.kept.end();) it = it->first == planned || it->first == best ? std::next(it) : p.kept.erase(it);
    }
  }

  void pair(context& cx) {
    std::vector<path_state> paths = std::move(paths_);  // every kept launcher goes with it
    paths_.clear();
    for (path_state& p : paths) {
      if (cx.over_budget()) {
        cx.progress(workload_ + " " + size_ + ": planner pairing skipped: the time budget of this mode is used up");
        return;
      }
      const auto [planned, best] = indices(cx, p);
      const auto lp = p.kept.find(planned), lb = p.kept.find(best);
      if (planned == best || lp == p.kept.end() || lb == p.kept.end()) continue;
      pair_rows(cx, planned, lp->second, best, lb->second);
    }
  }

 private:
  static constexpr std::size_t none = ~std::size_t(0);
  struct path_state {
    std::string path;
    int stages = 0;                                     ///< the plan's
    std::map<std::size_t, std::vector<launcher>> kept;  ///< row index -> the launchers that timed it
  };
  /// The planned and the best point's row indices in cx.rep.rows (`none` where there is none).
  std::pair<std::size_t, std::size_t> indices(const context& cx, const path_state& p) const {
    const planner_points pts = planner_points_of(cx, workload_, size_, p.path, p.stages);
    auto at = [&](const row* x) { return x ? std::size_t(x - cx.rep.rows.data()) : none; };
    return {at(pts.planned), at(pts.best)};
  }
  std::string workload_, size_;
  std::vector<path_state> paths_;
};

/// Run the kernel variants of `list` that match `select`, as main-table rows or sweep rows. With
/// `pair`, then time porter/automatic against the fastest forced path again in alternating rounds
/// (pair_automatic: the workloads whose targets compare the two). With `planner`, offer it every ok
/// row and its launchers (planner_pairing keeps those it may pair later).
template <class Problem, class Select>
void run_variants(context& cx, const std::vector<variant<Problem>>& list, Select select, const row& base,
                  const std::vector<Problem>& sets, const std::function<void()>& poison,
                  const std::function<verdict()>& verify, bool sweep_only, bool pair = false, planner_pairing* planner = nullptr) {
  kept_launchers kept;
  for (const auto& v : list) {
    if (!select(v.d)) continue;
    row r = base;
    r.sweep_only = sweep_only;
    if (sweep_only && cx.over_budget()) {
      r.impl = v.d.impl;
      r.path = v.d.path;
      r.stages = v.d.stages;
      r.kernel = v.d.kernel;
      r.status = "skipped: time budget of this mode used up";
      cx.rep.rows.push_back(r);
      continue;
    }
    std::vector<launcher> ls;
    if (prepare(cx, v.d, r)) {
      try {
        if (v.resolved && !sets.empty()) r.kernel += " [" + v.resolved(sets[0]) + "]";
        for (const auto& p : sets) ls.push_back(v.bind(p, r.grid));
      } catch (const porter::error& e) {
        r.status = std::string("refused: ") + e.what();
      } catch (const std::exception& e) {
        r.status = std::string("FAILED: ") + e.what();
      }
      if (r.ok()) check_and_time(cx, r, ls, poison, verify);
    }
    const std::size_t index = cx.rep.rows.size();
    cx.rep.rows.push_back(r);
    if (!r.ok()) continue;
    if (planner) planner->offer(cx, index, ls);
    if (pair && !sweep_only && r.impl == "porter") kept.emplace_back(index, std::move(ls));
  }
  if (pair && !sweep_only) pair_automatic(cx, kept);
}

bool is_default(const kernel_desc& d, int def) { return d.stages == (d.default_stages > 0 ? d.default_stages : def); }

/// The rows whose results must agree bit for bit: the porter rows of one compute order. Every porter
/// kernel of a workload shares one order on every path, stage count and schedule, except the wgmma
/// bf16 GEMM ("porter-wgmma*": another MMA, another summation order), which agrees with itself.
static std::string checksum_family(const row& r) { return r.impl.rfind("porter-wgmma", 0) == 0 ? "porter-wgmma" : "porter"; }

/// Mark porter rows of `workload size` whose checksum differs from the first porter row of their
/// family (checksum_family: the paths promise bit-identical results); note whether the other rows
/// match the first porter row.
void compare_checksums(context& cx, const std::string& workload, const std::string& size) {
  std::map<std::string, const row*> refs;
  const row* first = nullptr;
  for (auto& r : cx.rep.rows) {
    if (r.workload != workload || r.size != size || !r.ok()) continue;
    auto pos = r.check.find("checksum ");
    if (pos == std::string::npos) continue;
    const std::string sum = r.check.substr(pos + 9, 16);
    const bool porter_row = r.impl.rfind("porter", 0) == 0;  // porter, porter-persistent, porter-per-tile, porter-wgmma
    auto sum_of = [](const row* x) { return x->check.substr(x->check.find("checksum ") + 9, 16); };
    if (porter_row) {
      const row*& ref = refs[checksum_family(r)];
      if (!first) first = &r;
      if (!ref) {
        ref = &r;
        continue;
      }
      if (sum != sum_of(ref))
        r.status = "FAILED: result differs bitwise from " + ref->impl + "/" + ref->path + " S=" + std::to_string(ref->stages) +
                   " (paths and stage counts must give bit-identical results)";
    } else if (first) {
      r.check += sum == sum_of(first) ? "; bit-identical to porter" : "; not bit-identical to porter";
    }
  }
}

}  // namespace

// ---- Kokkos (a child process: porter-bench-kokkos) -------------------------------------------------

/// The Kokkos rows of `base.workload`, from porter-bench-kokkos (run once, at the first call).
static void add_kokkos_rows(context& cx, const row& base) {
  if (!cx.kokkos_ran) {
    cx.kokkos_ran = true;
    cx.kokkos_rows = run_kokkos_child(cx);
  }
  for (const row& k : cx.kokkos_rows) {
    if (k.workload != base.workload) continue;
    row r = base;
    r.impl = k.impl;
    r.kernel = k.kernel;
    r.status = k.status;
    r.check = k.check;
    r.ms_median = k.ms_median;
    r.ms_min = k.ms_min;
    r.ms_p10 = k.ms_p10;
    r.ms_p90 = k.ms_p90;
    r.reps = k.reps;
    if (r.ok() && r.ms_median > 0) r.rate = r.unit == "GB/s" ? r.bytes / (r.ms_median * 1e-3) / 1e9 : r.flops / (r.ms_median * 1e-3) / 1e12;
    cx.rep.rows.push_back(r);
  }
}

// ---- ceilings and latency ---------------------------------------------------------------------------

/// The memory figures the planner reads: the latency of a dependent load that misses L2 (a pointer
/// chase) and the rate at which every SM together reads an L2-resident buffer (the fill rate of
/// copies that L2 serves, as a GEMM's operand tiles are).
void measure_memory(context& cx) {
  const std::size_t bytes = std::size_t(512) << 20;  // 512 MiB: 8.5x an H200's L2
  try {
    dbuf scratch(bytes);
    const double ns = pointer_chase_latency_ns(scratch.p, bytes, cx.caps.l2_bytes, 20000, cx.stream);
    if (ns > 0) {
      cx.latency_ns = ns;
      cx.latency_note = "pointer chase, 20000 dependent 4-byte loads over 512 MiB (one per 128-byte line), median of 3: " +
                        format_double(ns, 0) + " ns";
    }
  } catch (const std::exception& e) {
    cx.latency_note = std::string("latency not measured (") + e.what() + "); the planner uses its default";
  }
  if (cx.latency_ns <= 0) {
    cx.latency_ns = porter::default_memory_latency_ns(cx.caps);
    if (cx.latency_note.empty()) cx.latency_note = "latency not measured; planner default " + format_double(cx.latency_ns, 0) + " ns";
  }
  set_planner_latency_ns(cx.latency_ns);
  cx.progress("memory latency: " + cx.latency_note);
  // A quarter of the L2 (15 MiB on the H200), read 40 times per launch.
  const std::size_t l2 = cx.caps.l2_bytes > 0 ? cx.caps.l2_bytes : std::size_t(40) << 20;
  const std::size_t l2_bytes = (l2 / 4) & ~std::size_t(0xfffff);
  try {
    dbuf scratch(l2_bytes);
    const double gbs = l2_read_gbs(scratch.p, l2_bytes, cx.caps.sm_count, 40, cx.stream);
    if (gbs > 0) {
      cx.l2_read_gbs = gbs;
      cx.l2_read_note = format_double(gbs, 0) + " GB/s (" + format_double(gbs / cx.caps.sm_count, 1) + " GB/s per SM): " +
                        std::to_string(l2_bytes >> 20) + " MiB read 40 times by 4 CTAs/SM of 256 threads, 16-byte .cg loads, median of 5";
    }
  } catch (const std::exception& e) {
    cx.l2_read_note = std::string("L2 read rate not measured (") + e.what() + "); the planner leaves out the stage transfer time";
  }
  if (cx.l2_read_note.empty()) cx.l2_read_note = "L2 read rate not measured; the planner leaves out the stage transfer time";
  cx.progress("L2 read: " + cx.l2_read_note);
}

// ---- stream -------------------------------------------------------------------------------------------

std::vector<mechanism_line> workload_mechanisms() {
  using porter::coord;
  // Each workload's sources (shape, box) and the coordinates its kernel copies them at
  // (bench/kernels/porter_kernels.cuh), as tile grids; a GEMM step copies one box of each operand.
  struct one_source {
    porter::source_desc d;
    porter::copy_pattern pattern;
  };
  auto desc2 = [](std::int64_t h, std::int64_t w, int b0, int b1) {
    porter::source_desc d;
    d.rank = 2;
    d.elem_bytes = 4;
    d.ptr = reinterpret_cast<const void*>(std::uintptr_t(1) << 32);  // cudaMalloc: 256-byte aligned
    d.extent[0] = h; d.extent[1] = w;
    d.stride[0] = w; d.stride[1] = 1;
    d.box[0] = b0; d.box[1] = b1;
    return d;
  };
  std::vector<std::pair<std::string, std::vector<one_source>>> work;
  {
    porter::source_desc d;
    d.rank = 1;
    d.elem_bytes = 4;
    d.ptr = reinterpret_cast<const void*>(std::uintptr_t(1) << 32);
    d.extent[0] = stream_shape::size;
    d.stride[0] = 1;
    d.box[0] = stream_shape::tile;
    work.push_back({"stream", {{d, porter::tile_grid<1>({0}, {stream_shape::tile}, {stream_shape::tiles_of(stream_shape::size)})}}});
  }
  for (int r : {1, 2}) {
    using namespace stencil_shape;
    const int h = 16384, w = 16384;
    work.push_back({"stencil2d-r" + std::to_string(r),
                    {{desc2(h, w, tile_h + 2 * r, tile_w + 2 * pad_w),
                      porter::tile_grid<2>({-r, -pad_w}, {tile_h, tile_w}, {(h + tile_h - 1) / tile_h, (w + tile_w - 1) / tile_w})}}});
  }
  {
    using namespace sgemm_shape;
    const int n = 8192;  // At[k][m] and B[k][n]: boxes at (kt * bk, tm * bm) and (kt * bk, tn * bn)
    const auto g = porter::tile_grid<2>({0, 0}, {bk, bm}, {n / bk, n / bm});
    work.push_back({"sgemm", {{desc2(n, n, bk, bm), g}, {desc2(n, n, bk, bn), g}}});
  }
  {
    using namespace smallgemm_shape;
    const int n = smallgemm_shape::size;  // A boxes at (tm * tile, kt * bk), B boxes at (kt * bk, tn * tile)
    work.push_back({"smallgemm",
                    {{desc2(n, n, tile, bk), porter::tile_grid<2>({0, 0}, {tile, bk}, {n / tile, n / bk})},
                     {desc2(n, n, bk, tile), porter::tile_grid<2>({0, 0}, {bk, tile}, {n / bk, n / tile})}}});
  }
  {
    using namespace bf16gemm_shape;
    const int n = 8192;  // A[m][k] boxes at (tm * bm, kt * bk), B[n][k] boxes at (tn * bn, kt * bk), 128 B swizzle
    auto bf = [&](int b0) {
      porter::source_desc d = desc2(n, n, b0, bk);
      d.elem_bytes = 2;
      d.swizzle = 128;
      return d;
    };
    work.push_back({"bf16gemm",
                    {{bf(bm), porter::tile_grid<2>({0, 0}, {bm, bk}, {n / bm, n / bk})},
                     {bf(bn), porter::tile_grid<2>({0, 0}, {bn, bk}, {n / bn, n / bk})}}});
  }
  std::vector<mechanism_line> out;
  for (const auto& [name, sources] : work) {
    for (porter::path_id p : {porter::path_id::tma, porter::path_id::cp_async, porter::path_id::staged}) {
      mechanism_line line;
      line.workload = name;
      line.path = porter::path_id_name(p);
      try {
        porter::mechanism_counts sum;
        sum.path = p;
        for (const auto& s : sources) sum += porter::copy_mechanisms(s.d, s.pattern, p);
        for (int m = 0; m < porter::mechanism_count; ++m)
          if (sum.bytes[m] > 0) line.fractions.emplace_back(porter::mechanism_name(porter::mechanism(m)), sum.fraction(porter::mechanism(m)));
        line.detail = sum.describe() + (sum.falls_back() ? "; first fallback: " + sum.first_fallback : "");
      } catch (const porter::error& e) {
        line.detail = std::string("refused: ") + e.what();
      }
      out.push_back(std::move(line));
    }
  }
  return out;
}

/// y == x over n floats (the copy ceilings' check).
static verdict copy_verdict(const float* x, const float* y, long long n, cudaStream_t s) {
  const long long bad = count_stream_errors(x, y, n, 1.0f, 0.0f, 0.0f, s);
  return verdict{bad == 0, bad == 0 ? "y == x exactly" : std::to_string(bad) + " elements differ from x"};
}

/// y == a*x + b over n floats, with the checksum of y that compare_checksums holds porter's paths to
/// (and that tells whether a peer's y is bit-identical too).
static verdict axpb_verdict(const float* x, const float* y, long long n, float a, float b, cudaStream_t s) {
  const long long bad = count_stream_errors(x, y, n, a, b, 1e-6f, s);
  return verdict{bad == 0, bad == 0 ? "all elements = a*x+b (rel. err <= 1e-6); checksum " + hex64(checksum(y, n, s))
                                    : std::to_string(bad) + " of " + std::to_string(n) + " elements wrong or unwritten"};
}

void run_stream(context& cx) {
  const long long n = stream_shape::size;  // 1 GiB per buffer
  const std::size_t bytes = std::size_t(n) * sizeof(float);
  dbuf x(bytes), y(bytes);
  fill_uniform(x.f(), n, 1, -1.f, 1.f, cx.stream);
  check(cudaStreamSynchronize(cx.stream), "fill");
  const float a = 1.5f, b = -0.25f;

  row base;
  base.workload = "stream";
  base.size = "2^28 fp32";
  cx.tiles_of[workload_size(base.workload, base.size)] = {stream_shape::tiles_of(n), 1};
  base.bytes = 2.0 * double(bytes);
  base.unit = "GB/s";
  base.ceiling = "cudaMemcpy D2D";
  auto poison = [&] { check(cudaMemsetAsync(y.p, 0xff, bytes, cx.stream), "poison"); };
  auto copy_ok = [&]() { return copy_verdict(x.f(), y.f(), n, cx.stream); };
  // The checksum of y lets compare_checksums hold porter's paths to bit-identical results and tell
  // whether a peer's y (cub, Triton's: bench/peers/triton_peers.py fills x the same way) is too.
  auto axpb_ok = [&]() { return axpb_verdict(x.f(), y.f(), n, a, b, cx.stream); };

  // Ceilings: cudaMemcpy device-to-device and a vectorized copy kernel (bytes read + written).
  {
    row r = base;
    r.impl = "memcpy";
    r.kernel = "cudaMemcpyAsync";
    check_and_time(cx, r, {[&](cudaStream_t s) { check(cudaMemcpyAsync(y.p, x.p, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync"); }},
                   poison, copy_ok);
    if (r.ok()) cx.d2d_gbs = r.rate;
    cx.rep.rows.push_back(r);
  }
  {
    row r = base;
    r.impl = "copy-kernel";
    r.kernel = "pb_copy";
    r.threads = copy_kernel_threads;
    int occ = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, copy_kernel_func(), copy_kernel_threads, 0), "occupancy");
    r.ctas_per_sm = occ;
    r.grid = occ * cx.caps.sm_count;
    cudaFuncAttributes fa{};
    if (cudaFuncGetAttributes(&fa, copy_kernel_func()) == cudaSuccess) r.regs = fa.numRegs;
    const int grid = r.grid;
    check_and_time(cx, r,
                   {[&, grid](cudaStream_t s) {
                     launch_copy_kernel(reinterpret_cast<const float4*>(x.p), reinterpret_cast<float4*>(y.p), n / 4, grid, s);
                   }},
                   poison, copy_ok);
    if (r.ok()) cx.copy_gbs = r.rate;
    cx.rep.rows.push_back(r);
  }
  // The peer a user would pick instead: cub::DeviceTransform computing the same a*x+b.
  {
    row r = base;
    r.impl = "cub";
    r.kernel = "cub::DeviceTransform::Transform";
    try {
      const launcher l = bind_cub_stream({x.f(), y.f(), n, a, b});
      if (std::none_of(cx.rep.meta.begin(), cx.rep.meta.end(), [](const auto& kv) { return kv.first == "cub"; }))
        cx.rep.meta.emplace_back("cub", cub_version());
      check_and_time(cx, r, {l}, poison, axpb_ok);
    } catch (const std::exception& e) {
      r.status = std::string("FAILED: ") + e.what();
    }
    cx.rep.rows.push_back(r);
  }
  for (auto& r : cx.rep.rows)
    if (r.workload == "stream" && r.ok()) r.ratio = cx.d2d_gbs > 0 ? r.rate / cx.d2d_gbs : 0;
  if (cx.latency_ns <= 0) measure_memory(cx);

  const std::vector<stream_problem> sets = {{x.f(), y.f(), n, a, b}};
  planner_pairing planner(cx, base, cx.opt.sweep);  // after measure_memory and the D2D ceiling: the plan reads both
  auto porter_or_manual_default = [](const kernel_desc& d) { return is_default(d, default_stages_stream); };
  run_variants(cx, cx.reg.stream, porter_or_manual_default, base, sets, poison, axpb_ok, false, true, &planner);
  add_kokkos_rows(cx, base);
  if (cx.opt.sweep) {
    auto others = [](const kernel_desc& d) { return !is_default(d, default_stages_stream); };
    run_variants(cx, cx.reg.stream, others, base, sets, poison, axpb_ok, true, false, &planner);
  }
  compare_checksums(cx, base.workload, base.size);
  planner.pair(cx);
  for (auto& r : cx.rep.rows)
    if (r.workload == "stream" && r.ok()) r.ratio = cx.d2d_gbs > 0 ? r.rate / cx.d2d_gbs : 0;
}

// ---- stencil2d ------------------------------------------------------------------------------------------

void run_stencil(context& cx, int radius) {
  const int h = 16384, w = 16384;
  const std::size_t bytes = std::size_t(h) * w * sizeof(float);
  dbuf in(bytes), out(bytes);
  fill_uniform(in.f(), (long long)h * w, 2 + radius, -1.f, 1.f, cx.stream);
  check(cudaStreamSynchronize(cx.stream), "fill");

  row base;
  base.workload = "stencil2d-r" + std::to_string(radius);
  base.size = "16384^2 fp32";
  cx.tiles_of[workload_size(base.workload, base.size)] = {
      static_cast<long long>((w + stencil_shape::tile_w - 1) / stencil_shape::tile_w) * ((h + stencil_shape::tile_h - 1) / stencil_shape::tile_h),
      1};
  base.bytes = 2.0 * double(bytes);  // effective: one read and one write of the grid
  base.unit = "GB/s";
  base.ceiling = "cudaMemcpy D2D";
  auto poison = [&] { check(cudaMemsetAsync(out.p, 0xff, bytes, cx.stream), "poison"); };
  auto verify = [&]() {
    const long long bad = count_nonfinite(out.f(), (long long)h * w, cx.stream);
    if (bad) return verdict{false, std::to_string(bad) + " outputs not written (NaN poison left)"};
    verdict v = check_stencil_blocks(in.f(), out.f(), h, w, radius);
    v.what += "; checksum " + hex64(checksum(out.f(), (long long)h * w, cx.stream));
    return v;
  };
  const std::vector<stencil_problem> sets = {{in.f(), out.f(), h, w}};
  const auto& list = cx.reg.stencil[radius];
  planner_pairing planner(cx, base, cx.opt.sweep);  // run_stream measured the latency and the D2D rate the plan reads
  run_variants(cx, list, [](const kernel_desc& d) { return is_default(d, default_stages_stencil); }, base, sets, poison, verify, false, true,
               &planner);
  add_kokkos_rows(cx, base);
  if (cx.opt.sweep)
    run_variants(cx, list, [](const kernel_desc& d) { return !is_default(d, default_stages_stencil); }, base, sets, poison, verify, true,
                 false, &planner);
  compare_checksums(cx, base.workload, base.size);
  planner.pair(cx);
  for (auto& r : cx.rep.rows)
    if (r.workload == base.workload && r.ok()) r.ratio = cx.d2d_gbs > 0 ? r.rate / cx.d2d_gbs : 0;
}

// ---- sgemm -------------------------------------------------------------------------------------------------

namespace {
/// CPU double-precision check of `samples` entries of C = A B (all device, C row-major M x N, B
/// row-major K x N). A is stored transposed (At, K x M) when `a_transposed`, else row-major M x K.
/// Entry s is at row (1103515245 (s+1) + 12345) mod m, column 2654435761 (s+7) mod n; with
/// `corners` the first four samples are C's corners instead (the tiles at the edges).
/// Passes when max |C - C_fp64| / sum_q |a_iq b_qj| <= 1e-5.
verdict spot_check_gemm(const float* a, bool a_transposed, const float* b, const float* c, int m, int n, int k, int samples,
                        bool corners = false) {
  std::vector<float> acol(k), bcol(k);
  double worst = 0;
  for (int s = 0; s < samples; ++s) {
    int i = int((1103515245u * unsigned(s + 1) + 12345u) % unsigned(m));
    int j = int((2654435761u * unsigned(s + 7)) % unsigned(n));
    if (corners && s < 4) {
      i = s & 1 ? m - 1 : 0;
      j = s & 2 ? n - 1 : 0;
    }
    if (a_transposed)
      check(cudaMemcpy2D(acol.data(), sizeof(float), a + i, std::size_t(m) * sizeof(float), sizeof(float), k, cudaMemcpyDeviceToHost),
            "gather A");
    else
      check(cudaMemcpy(acol.data(), a + std::size_t(i) * k, std::size_t(k) * sizeof(float), cudaMemcpyDeviceToHost), "gather A");
    check(cudaMemcpy2D(bcol.data(), sizeof(float), b + j, std::size_t(n) * sizeof(float), sizeof(float), k, cudaMemcpyDeviceToHost),
          "gather B");
    float got = 0;
    check(cudaMemcpy(&got, c + std::size_t(i) * n + j, sizeof(float), cudaMemcpyDeviceToHost), "read C");
    double ref = 0, mag = 0;
    for (int q = 0; q < k; ++q) {
      ref += double(acol[q]) * double(bcol[q]);
      mag += std::fabs(double(acol[q]) * double(bcol[q]));
    }
    const double e = std::fabs(double(got) - ref) / (mag > 0 ? mag : 1);
    if (!(e <= worst)) worst = std::isfinite(e) ? e : INFINITY;
  }
  verdict v;
  v.ok = worst <= 1e-5;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d entries vs CPU fp64: max |err| / sum|a*b| = %.2g", samples, worst);
  v.what = buf;
  return v;
}
}  // namespace

namespace {
/// Buffer sets a GEMM rotates between timed runs so that the working set is at least 4x the L2:
/// ceil(4 L2 / set_bytes), at least 1 and at most 4.
int gemm_buffer_sets(const context& cx, std::size_t set_bytes) {
  const int n = int(std::max<std::size_t>(1, (4 * cx.caps.l2_bytes + set_bytes - 1) / set_bytes));
  return std::min(n, 4);
}

/// The cuBLAS row of a GEMM workload, which is also its reference: cuBLAS (`cb`, made here) into
/// `cref` (poisoned first, `c_bytes`), `spot(cref)` checked against fp64 on the CPU, then timed on
/// every set. `note` goes after the spot check's sentence; the library version after that, and into
/// the run's metadata when `record_version`. Returns cuBLAS' rate (0 when it failed or is wrong).
template <class Problem, class Spot>
double run_cublas_reference(context& cx, const row& base, const char* kernel, std::unique_ptr<cublas_gemm>& cb,
                            const std::vector<Problem>& sets, dbuf& cref, std::size_t c_bytes, Spot spot, const std::string& note,
                            bool record_version) {
  double rate = 0;
  row r = base;
  r.impl = "cublas";
  r.kernel = kernel;
  try {
    cb = std::make_unique<cublas_gemm>();
    Problem pref = sets[0];
    pref.c = cref.f();
    launcher lref = cb->bind(pref, cx.stream);
    std::vector<launcher> ls;
    for (const auto& p : sets) ls.push_back(cb->bind(p, cx.stream));
    check(cudaMemsetAsync(cref.p, 0xff, c_bytes, cx.stream), "poison");
    lref(cx.stream);
    check(cudaStreamSynchronize(cx.stream), "cuBLAS reference");
    verdict v = spot(cref.f());
    r.check = v.what + note + " (" + cb->version() + ")";
    if (record_version && std::none_of(cx.rep.meta.begin(), cx.rep.meta.end(), [](const auto& kv) { return kv.first == "cublas"; }))
      cx.rep.meta.emplace_back("cublas", cb->version());
    if (!v.ok) {
      r.status = "FAILED: " + v.what;
    } else {
      check_and_time(cx, r, ls, [] {}, [&] { return verdict{true, r.check}; });
      rate = r.ok() ? r.rate : 0;
    }
  } catch (const std::exception& e) {
    r.status = std::string("FAILED: ") + e.what();
  }
  cx.rep.rows.push_back(r);
  return rate;
}

/// A GEMM row's C (`elems` floats): all of it written (NaN poison gone), then `spot()` (sampled
/// entries against fp64 on the CPU), agreement with cuBLAS' C `cref` when there is one (relative
/// Frobenius error < 1e-4), and the checksum that compare_checksums holds the paths to.
template <class Spot>
verdict check_gemm_output(context& cx, const float* c, const float* cref, long long elems, Spot spot) {
  const long long unwritten = count_nonfinite(c, elems, cx.stream);
  if (unwritten) return verdict{false, std::to_string(unwritten) + " entries of C not written (NaN poison left)"};
  verdict v = spot();
  if (cref) {
    const double e = relative_frobenius_error(c, cref, elems, cx.stream);
    v.ok = v.ok && e < 1e-4;
    v.what += "; ||C - C_cublas|| / ||C_cublas|| = " + format_double(e * 1e6, 2) + "e-6";
  }
  v.what += "; checksum " + hex64(checksum(c, elems, cx.stream));
  return v;
}

/// The porter and hand-written rows of a GEMM workload: the variants of `list` at `default_stages`
/// (and, with `sweep`, the other stage counts as sweep rows, then the planner's point re-timed
/// against the best point: planner_pairing), the paths' checksums compared, and every ok row's ratio
/// to `ceiling_rate` (cuBLAS at the same size; 0: none). Call it after the cuBLAS row (whose rate is
/// the planner's demand) and measure_memory.
template <class Problem>
void run_gemm_variants(context& cx, const std::vector<variant<Problem>>& list, int default_stages, const row& base,
                       const std::vector<Problem>& sets, const std::function<void()>& poison, const std::function<verdict()>& verify,
                       bool sweep, double ceiling_rate) {
  planner_pairing planner(cx, base, sweep);
  run_variants(cx, list, [default_stages](const kernel_desc& d) { return is_default(d, default_stages); }, base, sets, poison, verify,
               false, true, &planner);
  if (sweep)
    run_variants(cx, list, [default_stages](const kernel_desc& d) { return !is_default(d, default_stages); }, base, sets, poison,
                 verify, true, false, &planner);
  compare_checksums(cx, base.workload, base.size);
  planner.pair(cx);
  for (auto& r : cx.rep.rows)
    if (r.workload == base.workload && r.size == base.size && r.ok()) r.ratio = ceiling_rate > 0 ? r.rate / ceiling_rate : 0;
}
/// The buffer sets of an fp32 GEMM at size^3 (Problem: sgemm_problem or smallgemm_problem, {A, B, C,
/// m, n, k}): gemm_buffer_sets() sets of three size x size fp32 matrices held in `bufs`, rotated between
/// timed runs so that the working set is at least 4x the L2. A and B of set s are uniform in [-1, 1]
/// from seeds `seed` + 2 s and `seed` + 2 s + 1 (fresh data, never zeros); C is left to the caller's poison.
template <class Problem>
std::vector<Problem> fp32_gemm_sets(context& cx, int size, unsigned long long seed, std::vector<std::unique_ptr<dbuf>>& bufs) {
  const std::size_t elems = std::size_t(size) * size, bytes = elems * sizeof(float);
  const int nsets = gemm_buffer_sets(cx, 3 * bytes);
  std::vector<Problem> sets;
  for (int s = 0; s < nsets; ++s) {
    for (int i = 0; i < 3; ++i) bufs.push_back(std::make_unique<dbuf>(bytes));
    float* a = bufs[bufs.size() - 3]->f();
    float* b = bufs[bufs.size() - 2]->f();
    fill_uniform(a, (long long)elems, seed + 2 * s, -1.f, 1.f, cx.stream);
    fill_uniform(b, (long long)elems, seed + 2 * s + 1, -1.f, 1.f, cx.stream);
    sets.push_back({a, b, bufs.back()->f(), size, size, size});
  }
  check(cudaStreamSynchronize(cx.stream), "fill");
  return sets;
}

/// The row an fp32 GEMM workload's rows start from: `workload` at size^3 (" xN" with N buffer sets),
/// 2 size^3 flops, the three matrices' bytes, TFLOP/s against cuBLAS; records the tile grid
/// (tile_m x tile_n output tiles, K-tiles of bk) in cx.tiles_of under "workload size".
row fp32_gemm_row(context& cx, const char* workload, int size, int tile_m, int tile_n, int bk, std::size_t nsets) {
  const long long m = size, n = size, k = size;
  row base;
  base.workload = workload;
  base.size = std::to_string(size) + "^3";
  base.flops = 2.0 * double(m) * n * k;
  base.bytes = 4.0 * (double(m) * k + double(k) * n + double(m) * n);
  base.unit = "TFLOP/s";
  base.ceiling = "cuBLAS";
  if (nsets > 1) base.size += " x" + std::to_string(nsets);
  cx.tiles_of[workload_size(base.workload, base.size)] = {((m + tile_m - 1) / tile_m) * ((n + tile_n - 1) / tile_n),
                                                         static_cast<int>((k + bk - 1) / bk)};
  return base;
}
}  // namespace

void run_sgemm(context& cx, int size, bool sweep) {
  const int m = size, n = size, k = size;
  const std::size_t elems = std::size_t(size) * size, bytes = elems * sizeof(float);
  std::vector<std::unique_ptr<dbuf>> bufs;
  const std::vector<sgemm_problem> sets = fp32_gemm_sets<sgemm_problem>(cx, size, 100, bufs);
  dbuf cref(bytes);
  const row base = fp32_gemm_row(cx, "sgemm", size, sgemm_shape::bm, sgemm_shape::bn, sgemm_shape::bk, sets.size());

  // The reference: cuBLAS into cref, checked on sampled entries against fp64 on the CPU.
  std::unique_ptr<cublas_gemm> cb;
  const double cublas_rate = run_cublas_reference(
      cx, base, "cublasSgemm", cb, sets, cref, bytes,
      [&](const float* c) { return spot_check_gemm(sets[0].at, true, sets[0].b, c, m, n, k, 16); }, "", true);
  if (size == 8192) cx.cublas_tflops_8192 = cublas_rate;
  if (size == 4096) cx.cublas_tflops_4096 = cublas_rate;

  // Every implementation: all of C written (NaN poison gone), 16 entries against fp64 on the CPU,
  // agreement with cuBLAS' C when there is one, and the checksum compare_checksums holds the paths to.
  auto poison = [&] { check(cudaMemsetAsync(sets[0].c, 0xff, bytes, cx.stream), "poison"); };
  auto verify = [&]() {
    return check_gemm_output(cx, sets[0].c, cublas_rate > 0 ? cref.f() : nullptr, (long long)elems,
                             [&] { return spot_check_gemm(sets[0].at, true, sets[0].b, sets[0].c, m, n, k, 16); });
  };
  run_gemm_variants(cx, cx.reg.sgemm, default_stages_sgemm, base, sets, poison, verify, sweep, cublas_rate);
}

// ---- smallgemm -------------------------------------------------------------------------------------------

void run_smallgemm(context& cx, int size, bool sweep) {
  const int m = size, n = size, k = size;
  const std::size_t elems = std::size_t(size) * size, bytes = elems * sizeof(float);
  std::vector<std::unique_ptr<dbuf>> bufs;
  const std::vector<smallgemm_problem> sets = fp32_gemm_sets<smallgemm_problem>(cx, size, 200, bufs);
  dbuf cref(bytes);
  const row base = fp32_gemm_row(cx, "smallgemm", size, smallgemm_shape::tile, smallgemm_shape::tile, smallgemm_shape::bk, sets.size());

  // The ceiling: cuBLAS at the same size (into cref; checked on sampled entries against fp64).
  std::unique_ptr<cublas_gemm> cb;
  const double cublas_rate = run_cublas_reference(
      cx, base, "cublasSgemm", cb, sets, cref, bytes,
      [&](const float* c) { return spot_check_gemm(sets[0].a, false, sets[0].b, c, m, n, k, 16, true); }, "", false);
  cx.cublas_tflops_smallgemm = cublas_rate;

  // Every implementation: all of C written (NaN poison gone), 32 entries (the corners first)
  // against fp64 on the CPU, agreement with cuBLAS' C when there is one, and the checksum that
  // compare_checksums holds the porter paths (and notes the hand-written pipelines) to.
  auto poison = [&] { check(cudaMemsetAsync(sets[0].c, 0xff, bytes, cx.stream), "poison"); };
  auto verify = [&]() {
    return check_gemm_output(cx, sets[0].c, cublas_rate > 0 ? cref.f() : nullptr, (long long)elems,
                             [&] { return spot_check_gemm(sets[0].a, false, sets[0].b, sets[0].c, m, n, k, 32, true); });
  };
  run_gemm_variants(cx, cx.reg.smallgemm, default_stages_smallgemm, base, sets, poison, verify, sweep, cublas_rate);
}

// ---- bf16gemm --------------------------------------------------------------------------------------------

namespace {
/// CPU double-precision check of `samples` entries of C = A B^T (A M x K and B N x K, bf16 row-major;
/// C fp32 M x N), the four corners of C first, then entry s at row (1103515245 (s+1) + 12345) mod m,
/// column 2654435761 (s+7) mod n. Passes when max |C - C_fp64| / sum_q |a_iq b_jq| <= 1e-5.
/// Why 1e-5: a product of two bf16 (8 significant bits each) is exact in fp32, so the only error is
/// the fp32 accumulation: at most 2^-23 of the running sum per addition (2^-24 rounding; 2^-23 if the
/// tensor core's adders truncate), over K/16 mma accumulations plus the 16 terms inside one. With
/// zero-mean inputs (uniform [-1, 1]: E|ab| = 1/4, rms(ab) = 1/3) the running sum stays within a few
/// sqrt(K) / 3 while sum |a b| is K / 4, so even errors that all point the same way stay near
/// (K/16 + 16) 2^-23 x 3 x (4/3) / sqrt(K) ~ 3e-6 at K = 8192 (3x under the bound; 1e-7 typical);
/// a wrong fragment, a missed K-tile or a stale stage is O(1e-2) or worse.
verdict spot_check_bf16gemm(const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c, int m, int n, int k, int samples) {
  std::vector<__nv_bfloat16> arow(k), brow(k);
  double worst = 0;
  for (int s = 0; s < samples; ++s) {
    int i = int((1103515245u * unsigned(s + 1) + 12345u) % unsigned(m));
    int j = int((2654435761u * unsigned(s + 7)) % unsigned(n));
    if (s < 4) {
      i = s & 1 ? m - 1 : 0;
      j = s & 2 ? n - 1 : 0;
    }
    check(cudaMemcpy(arow.data(), a + std::size_t(i) * k, std::size_t(k) * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost), "gather A");
    check(cudaMemcpy(brow.data(), b + std::size_t(j) * k, std::size_t(k) * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost), "gather B");
    float got = 0;
    check(cudaMemcpy(&got, c + std::size_t(i) * n + j, sizeof(float), cudaMemcpyDeviceToHost), "read C");
    double ref = 0, mag = 0;
    for (int q = 0; q < k; ++q) {
      const double p = double(__bfloat162float(arow[q])) * double(__bfloat162float(brow[q]));
      ref += p;
      mag += std::fabs(p);
    }
    const double e = std::fabs(double(got) - ref) / (mag > 0 ? mag : 1);
    if (!(e <= worst)) worst = std::isfinite(e) ? e : INFINITY;
  }
  verdict v;
  v.ok = worst <= 1e-5;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d entries (corners first) vs CPU fp64: max |err| / sum|a*b| = %.2g", samples, worst);
  v.what = buf;
  return v;
}
}  // namespace

void run_bf16gemm(context& cx, int size, bool sweep) {
  const int m = size, n = size, k = size;
  const std::size_t elems = std::size_t(size) * size;
  const std::size_t ab_bytes = elems * sizeof(__nv_bfloat16), c_bytes = elems * sizeof(float);
  // Buffer sets rotated between timed runs so that the working set is at least 4x the L2 (at most 4).
  const std::size_t set_bytes = 2 * ab_bytes + c_bytes;
  const int nsets = gemm_buffer_sets(cx, set_bytes);
  // Fresh random inputs: a new seed every run, printed in the cuBLAS row's check.
  std::random_device rd;
  const std::uint64_t seed = (std::uint64_t(rd()) << 32) ^ rd();
  std::vector<std::unique_ptr<dbuf>> bufs;
  std::vector<bf16gemm_problem> sets;
  for (int s = 0; s < nsets; ++s) {
    bufs.push_back(std::make_unique<dbuf>(ab_bytes));
    bufs.push_back(std::make_unique<dbuf>(ab_bytes));
    bufs.push_back(std::make_unique<dbuf>(c_bytes));
    __nv_bfloat16* am = bufs[bufs.size() - 3]->bf16();
    __nv_bfloat16* bm = bufs[bufs.size() - 2]->bf16();
    fill_uniform_bf16(am, (long long)elems, seed + 2 * std::uint64_t(s), -1.f, 1.f, cx.stream);
    fill_uniform_bf16(bm, (long long)elems, seed + 2 * std::uint64_t(s) + 1, -1.f, 1.f, cx.stream);
    sets.push_back({am, bm, bufs.back()->f(), m, n, k});
  }
  dbuf cref(c_bytes);
  check(cudaStreamSynchronize(cx.stream), "fill");

  row base;
  base.workload = "bf16gemm";
  base.size = std::to_string(size) + "^3";
  base.flops = 2.0 * double(m) * n * k;
  base.bytes = 2.0 * (double(m) * k + double(n) * k) + 4.0 * double(m) * n;
  base.unit = "TFLOP/s";
  base.ceiling = "cuBLAS bf16";
  if (nsets > 1) base.size += " x" + std::to_string(nsets);
  cx.tiles_of[workload_size(base.workload, base.size)] = {
      static_cast<long long>((m + bf16gemm_shape::bm - 1) / bf16gemm_shape::bm) * ((n + bf16gemm_shape::bn - 1) / bf16gemm_shape::bn),
      (k + bf16gemm_shape::bk - 1) / bf16gemm_shape::bk};

  // The ceiling and reference: cuBLAS bf16 (fp32 accumulation) into cref, itself checked on 16
  // entries against fp64 on the CPU.
  char seeds[80];
  std::snprintf(seeds, sizeof seeds, "; inputs uniform [-1, 1] in bf16, seed %016llx", static_cast<unsigned long long>(seed));
  std::unique_ptr<cublas_gemm> cb;
  const double cublas_rate = run_cublas_reference(
      cx, base, "cublasGemmEx(bf16 x bf16 -> fp32, CUBLAS_COMPUTE_32F)", cb, sets, cref, c_bytes,
      [&](const float* c) { return spot_check_bf16gemm(sets[0].a, sets[0].b, c, m, n, k, 16); }, seeds, true);
  if (size == 8192) cx.cublas_bf16_tflops_8192 = cublas_rate;
  if (size == 4096) cx.cublas_bf16_tflops_4096 = cublas_rate;

  // Every porter row: all of C written (NaN poison gone), 32 entries against fp64 on the CPU,
  // agreement with cuBLAS' C (relative Frobenius error < 1e-4: two fp32 accumulations in different
  // orders differ by about sqrt(K/16) x 2^-24 ~ 1e-6 relative; 1e-4 still holds if every addition
  // of both truncated the same way, (K/16) x 2^-23 = 6e-5 at K = 8192), and the checksum that
  // compare_checksums holds every path, stage count and schedule to (same compute, same order).
  auto poison = [&] { check(cudaMemsetAsync(sets[0].c, 0xff, c_bytes, cx.stream), "poison"); };
  auto verify = [&]() {
    return check_gemm_output(cx, sets[0].c, cublas_rate > 0 ? cref.f() : nullptr, (long long)elems,
                             [&] { return spot_check_bf16gemm(sets[0].a, sets[0].b, sets[0].c, m, n, k, 32); });
  };
  run_gemm_variants(cx, cx.reg.bf16gemm, default_stages_bf16gemm, base, sets, poison, verify, sweep, cublas_rate);
}

// ---- copy2d and transpose ----------------------------------------------------------------------------

/// The ceiling row of a workload that moves `bytes` each way (copy2d, transpose, boxsize): cudaMemcpy D2D of them.
static void add_memcpy_row(context& cx, const row& base, const void* x, void* y, std::size_t bytes, const std::function<void()>& poison,
                           const std::function<verdict()>& copied) {
  row r = base;
  r.impl = "memcpy";
  r.kernel = "cudaMemcpyAsync";
  check_and_time(cx, r, {[=](cudaStream_t s) { check(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync"); }},
                 poison, copied);
  cx.rep.rows.push_back(r);
}

/// Ratio of every ok row of `workload` to its memcpy row of the same run.
static void ratio_to_memcpy(context& cx, const std::string& workload) {
  double ceiling = 0;
  for (const auto& r : cx.rep.rows)
    if (r.workload == workload && r.impl == "memcpy" && r.ok()) ceiling = r.rate;
  for (auto& r : cx.rep.rows)
    if (r.workload == workload && r.ok()) r.ratio = ceiling > 0 ? r.rate / ceiling : 0;
}

/// copy2d and transpose: y = x or y = x^T over an h x w fp32 grid of fresh data (fill seed `seed`);
/// the cudaMemcpy D2D ceiling of the same bytes, then the variants of `list` at `stages`, each
/// checked exactly (y == x, or y == x^T) and by checksum across paths.
static void run_grid2d(context& cx, const std::string& workload, const std::vector<variant<grid2d_problem>>& list, int h, int w,
                       long long tiles, std::uint64_t seed, int stages, bool transpose) {
  const long long n = (long long)h * w;
  const std::size_t bytes = std::size_t(n) * sizeof(float);
  dbuf x(bytes), y(bytes);
  fill_uniform(x.f(), n, seed, -1.f, 1.f, cx.stream);
  check(cudaStreamSynchronize(cx.stream), "fill");
  row base;
  base.workload = workload;
  base.size = "16384^2 fp32";
  cx.tiles_of[workload_size(base.workload, base.size)] = {tiles, 1};
  base.bytes = 2.0 * double(bytes);
  base.unit = "GB/s";
  base.ceiling = "cudaMemcpy D2D";
  auto poison = [&] { check(cudaMemsetAsync(y.p, 0xff, bytes, cx.stream), "poison"); };
  // y == x, with the checksum the paths are compared by when `with_sum`.
  auto copied = [&](bool with_sum) {
    verdict v = copy_verdict(x.f(), y.f(), n, cx.stream);
    if (v.ok && with_sum) v.what += "; checksum " + hex64(checksum(y.f(), n, cx.stream));
    return v;
  };
  auto transposed = [&]() {
    const long long bad = count_transpose_errors(x.f(), y.f(), h, w, cx.stream);
    verdict v{bad == 0, bad == 0 ? "y == x^T exactly" : std::to_string(bad) + " elements differ from x^T"};
    if (bad == 0) v.what += "; checksum " + hex64(checksum(y.f(), n, cx.stream));
    return v;
  };
  add_memcpy_row(cx, base, x.p, y.p, bytes, poison, [&] { return copied(!transpose); });
  const std::vector<grid2d_problem> sets = {{x.f(), y.f(), h, w}};
  const std::function<verdict()> verify = [&] { return transpose ? transposed() : copied(true); };
  run_variants(cx, list, [stages](const kernel_desc& d) { return is_default(d, stages); }, base, sets, poison, verify, false);
  compare_checksums(cx, base.workload, base.size);
  ratio_to_memcpy(cx, workload);
}

void run_copy2d(context& cx) {
  const int s = copy2d_shape::size;
  run_grid2d(cx, "copy2d", cx.reg.copy2d, s, s, static_cast<long long>(s / copy2d_shape::tile_w) * (s / copy2d_shape::tile_h), 11,
             default_stages_copy2d, false);
}

void run_transpose(context& cx) {
  const int s = transpose_shape::size;
  run_grid2d(cx, "transpose", cx.reg.transpose, s, s, static_cast<long long>(s / transpose_shape::tile) * (s / transpose_shape::tile), 12,
             default_stages_transpose, true);
}


// ---- boxsize: where tma's bulk copies overtake per-thread copies ------------------------------------------

/// The box-size sweep (bench/kernels/boxsize_kernels.cu): y = a*x + b over 2^28 floats, read in 1D
/// boxes of 512 B .. 32 KiB and in 2D boxes of 16 rows (512 B .. 16 KiB), on every path and on
/// automatic, each row checked (every element of y) and timed; the ceiling is cudaMemcpy D2D of the
/// same bytes. The note per rank says where tma reaches the best thread-issued path, the number
/// porter's break-even table (core/src/choose.cpp) holds for this device.
void run_boxsize(context& cx) {
  const long long n = boxsize_shape::n1d;
  const int side = boxsize_shape::size2d;  // the 2D grid: side x side == n floats
  static_assert(boxsize_shape::n1d == (long long)boxsize_shape::size2d * boxsize_shape::size2d, "one pair of buffers for 1D and 2D");
  const std::size_t bytes = std::size_t(n) * sizeof(float);
  dbuf x(bytes), y(bytes);
  fill_uniform(x.f(), n, 21, -1.f, 1.f, cx.stream);
  check(cudaStreamSynchronize(cx.stream), "fill");
  const float a = boxsize_a, b = boxsize_b;
  auto poison = [&] { check(cudaMemsetAsync(y.p, 0xff, bytes, cx.stream), "poison"); };
  auto axpb_ok = [&]() { return axpb_verdict(x.f(), y.f(), n, a, b, cx.stream); };
  row base;
  base.workload = "boxsize";
  base.size = "2^28 fp32";
  base.bytes = 2.0 * double(bytes);
  base.unit = "GB/s";
  base.ceiling = "cudaMemcpy D2D";
  add_memcpy_row(cx, base, x.p, y.p, bytes, poison, [&] { return copy_verdict(x.f(), y.f(), n, cx.stream); });
  row& ceiling = cx.rep.rows.back();
  const double d2d = ceiling.ok() ? ceiling.rate : 0;
  ceiling.ratio = ceiling.ok() ? 1.0 : 0;
  const stream_problem p1{x.f(), y.f(), n, a, b};
  const grid2d_problem p2{x.f(), y.f(), side, side};
  for (const boxsize_set& set : cx.reg.boxsize) {
    row rb = base;
    rb.workload = set.rank == 1 ? "boxsize-1d" : "boxsize-2d";
    rb.size = set.shape;
    auto all = [](const kernel_desc&) { return true; };
    if (set.rank == 1) run_variants(cx, set.v1, all, rb, std::vector<stream_problem>{p1}, poison, axpb_ok, false);
    else run_variants(cx, set.v2, all, rb, std::vector<grid2d_problem>{p2}, poison, axpb_ok, false);
    compare_checksums(cx, rb.workload, rb.size);
  }
  for (auto& r : cx.rep.rows)
    if (r.workload.rfind("boxsize-", 0) == 0 && r.ok()) r.ratio = d2d > 0 ? r.rate / d2d : 0;
  // Per rank: tma against the best thread-issued path at each size, and the break-even.
  for (int rank : {1, 2}) {
    const std::string w = rank == 1 ? "boxsize-1d" : "boxsize-2d";
    std::string line = w + " (" + (rank == 1 ? "cp.async.bulk" : "cp.async.bulk.tensor") +
                       " vs per-thread copies; tma / the faster of cp_async and staged, and automatic's pick):";
    std::size_t break_even = 0;  // the smallest size from which tma keeps >= 0.99x at every larger size
    bool any = false;
    for (const boxsize_set& set : cx.reg.boxsize) {
      if (set.rank != rank) continue;
      double tma = 0, other = 0, au = 0;
      int tma_ctas = 0, other_ctas = 0;
      std::string pick, other_path;
      for (const auto& r : cx.rep.rows) {
        if (r.workload != w || r.size != set.shape || !r.ok() || r.impl != "porter") continue;
        if (r.path == "tma") {
          tma = r.rate;
          tma_ctas = r.ctas_per_sm;
        } else if (r.path == "automatic") {
          au = r.rate;
          const auto at = r.kernel.find("automatic -> ");
          if (at != std::string::npos) pick = r.kernel.substr(at + 13, r.kernel.find(':', at + 13) - (at + 13));
        } else if (r.rate > other) {
          other = r.rate;
          other_ctas = r.ctas_per_sm;
          other_path = r.path;
        }
      }
      if (tma <= 0 || other <= 0) continue;
      any = true;
      // CTAs per SM beside the ratio: a path whose instantiation holds fewer CTAs (registers) keeps
      // fewer bytes in flight, which is the kernel's cost, not the copy's.
      char buf[200];
      std::snprintf(buf, sizeof buf, " %zu B %.3f (CTAs/SM tma %d, %s %d; automatic: %s, %.3f of the fastest)", set.box_bytes,
                    tma / other, tma_ctas, other_path.c_str(), other_ctas, pick.empty() ? "?" : pick.c_str(), au / std::max(tma, other));
      line += buf;
      line += ";";
      if (tma >= 0.99 * other) {
        if (break_even == 0) break_even = set.box_bytes;
      } else {
        break_even = 0;
      }
    }
    if (!any) continue;
    line += break_even ? " break-even: tma from " + std::to_string(break_even) + " B" : " break-even: none (tma behind at the largest size measured)";
    cx.rep.notes.push_back(line);
    cx.progress(line);
  }
}

}  // namespace pb

// ---- ports ---------------------------------------------------------------------------------------------

namespace pb {

void run_ports(context& cx) {
  // Fresh random data: a new seed every run (printed in each reference row's check).
  std::random_device rd;
  const std::uint64_t seed = (std::uint64_t(rd()) << 32) ^ rd();
  int index = 0;
  for (const port_pair& pair : cx.reg.ports) {
    ++index;
    if (pair.variants.empty()) continue;
    const std::size_t fl = sizeof(float), ab = std::size_t(pair.ab_bytes);
    dbuf a(std::size_t(std::max(1LL, pair.a_elems)) * ab), b(std::size_t(std::max(1LL, pair.b_elems)) * ab);
    dbuf c(std::size_t(std::max(1LL, pair.c_elems)) * fl);
    dbuf out(std::size_t(pair.out_elems) * fl), ref(std::size_t(pair.out_elems) * fl);
    const std::uint64_t s_a = seed + 4 * std::uint64_t(index), s_b = s_a + 1, s_c = s_a + 2;
    auto fill_ab = [&](dbuf& d, long long n, std::uint64_t s) {
      if (pair.ab_bytes == 2) fill_uniform_bf16(d.p, n, s, -1.f, 1.f, cx.stream);
      else fill_uniform(d.f(), n, s, -1.f, 1.f, cx.stream);
    };
    fill_ab(a, pair.a_elems, s_a);
    if (pair.b_elems) fill_ab(b, pair.b_elems, s_b);
    if (pair.c_elems) fill_uniform(c.f(), pair.c_elems, s_c, -1.f, 1.f, cx.stream);
    check(cudaStreamSynchronize(cx.stream), "fill");
    port_problem p = pair.shape;
    if (pair.ab_bytes == 2) {
      p.a16 = a.p;
      p.b16 = pair.b_elems ? b.p : nullptr;
    } else {
      p.a = a.f();
      p.b = pair.b_elems ? b.f() : nullptr;
    }
    p.c = pair.c_elems ? c.f() : nullptr;
    p.out = out.f();

    row base;
    base.workload = "ports/" + pair.name;
    base.size = pair.size;
    base.bytes = pair.bytes;
    base.flops = pair.flops;
    base.unit = pair.unit;
    base.ceiling = "before";
    cx.rep.notes.push_back(base.workload + " (" + pair.size + "): " + pair.computes);
    if (!pair.note.empty()) cx.rep.notes.push_back(base.workload + ": " + pair.note);

    // The first row that runs (the before, or the public original) is the reference; every other
    // row must match it bit for bit: all of the output written (NaN poison gone), no element
    // different, the same order-independent checksum of the bits.
    const long long n_out = pair.out_elems;
    bool have_ref = false;
    std::uint64_t ref_sum = 0;
    std::string ref_name;
      auto poison = [&] { check(cudaMemsetAsync(out.p, 0xff, std::size_t(n_out) * fl, cx.stream), "poison"); };
    auto verify = [&]() -> verdict {
      const long long unwritten = count_nonfinite(out.f(), n_out, cx.stream);
      if (unwritten) return {false, std::to_string(unwritten) + " of " + std::to_string(n_out) + " outputs not written (NaN poison left)"};
      const std::uint64_t sum = checksum(out.f(), n_out, cx.stream);
      if (!have_ref) {
        check(cudaMemcpyAsync(ref.p, out.p, std::size_t(n_out) * fl, cudaMemcpyDeviceToDevice, cx.stream), "keep the reference");
        check(cudaStreamSynchronize(cx.stream), "keep the reference");
        have_ref = true;
        ref_sum = sum;
        char seeds[64];
        std::snprintf(seeds, sizeof seeds, "%016llx", static_cast<unsigned long long>(s_a));
        return {true, "the reference: every output written; checksum " + hex64(sum) + "; inputs uniform [-1, 1), seed " + seeds};
      }
      const long long differ = count_stream_errors(ref.f(), out.f(), n_out, 1.0f, 0.0f, 0.0f, cx.stream);
      if (differ || sum != ref_sum)
        return {false, std::to_string(differ) + " of " + std::to_string(n_out) + " outputs differ from " + ref_name +
                           " (checksum " + hex64(sum) + " vs " + hex64(ref_sum) + ")"};
      return {true, "bit-identical to " + ref_name + " (checksum " + hex64(sum) + ")"};
    };
    for (const auto& v : pair.variants) {
      const std::vector<variant<port_problem>> one = {v};
      if (!have_ref) ref_name = v.d.impl + "/" + v.d.path;
      run_variants(cx, one, [](const kernel_desc&) { return true; }, base, {p}, poison, verify, false);
    }
    // Ratios to the before (the reference row), when it ran.
    const row* before = nullptr;
    for (const auto& r : cx.rep.rows)
      if (r.workload == base.workload && r.ok() && (r.impl == "before" || r.impl == "original")) before = &r;
    const double den = before ? before->rate : 0;
    for (auto& r : cx.rep.rows)
      if (r.workload == base.workload && r.ok()) {
        r.ratio = den > 0 ? r.rate / den : 0;
        // No before in this build (a public original that was not fetched): no ratio, and the
        // row says why instead of naming a baseline that did not run.
        if (!before) r.ceiling = "no before row in this build (notes)";
      }
  }
}

}  // namespace pb
