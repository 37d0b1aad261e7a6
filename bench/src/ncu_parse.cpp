// bench/src/ncu_parse.cpp — the metrics porter-bench asks Nsight Compute for, and the reading of
// its output (see ncu_parse.hpp; run_ncu in ncu.cpp runs ncu).
//
// Metrics (Nsight Compute "Metrics Reference" / the WarpStateStats and ComputeWorkloadAnalysis
// sections): smsp__warp_issue_stalled_<reason>_per_warp_active.pct is the share of active warp
// cycles a warp spent stalled for <reason>, over every active warp of the SM sub-partition, whatever
// its role (long_scoreboard: waiting on an L1TEX/global result;
// barrier: bar.sync; sleeping: suspended, e.g. in mbarrier.try_wait); sm__pipe_fma_cycles_active
// .avg.pct_of_peak_sustained_active is how busy the FMA pipe was, sm__pipe_tensor_op_hmma_cycles_active
// the same for the tensor pipe: the bf16 GEMMs' mma.sync and wmma, and on sm_90 wgmma too (H100,
// ncu 2025.x, session 44: 86.5-87.3% on the porter-wgmma*/tma kernels, which issue no mma.sync; the
// GMMA-specific metric is not collected, see ncu_gemm_kinds in analysis.cpp). A metric that this ncu
// does not know is dropped and named in the report, and the rest are collected.
#include "ncu_parse.hpp"

#include <cstdio>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>

namespace pb {
namespace {

const ncu_metric k_metrics[] = {
    {"smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", "long_scoreboard%"},
    {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "fma_pipe%"},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor_pipe%"},
    {"smsp__warp_issue_stalled_barrier_per_warp_active.pct", "barrier%"},
    {"smsp__warp_issue_stalled_sleeping_per_warp_active.pct", "sleeping%"},
    {"smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct", "mio_throttle%"},
    {"smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct", "short_scoreboard%"},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy%"},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram%"},
    {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "smem_bank_conflicts"},
    // From the instructions' own addresses (SASS-level counters, as the Source page's "L1 Wavefronts
    // Shared"): the wavefronts the shared loads needed. Divided by the shared-load instructions it is
    // the wavefronts per load (4 for a warp's 16-byte loads without conflicts, 32 for 32-way ones).
    // The hardware counter above also counts collisions with the asynchronous fills of shared memory
    // (TMA, cp.async): the swizzled transpose's loads need 4.00 wavefronts each, and the counter still
    // shows 0.63 M "conflicts" on tma (session 26).
    {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smem_ld_wavefronts"},
    {"smsp__sass_inst_executed_op_shared_ld.sum", "smem_ld_instructions"},
    {"smsp__inst_executed.sum", "warp_instructions"},
    {"lts__t_sectors_op_read.sum", "l2_read_sectors"},  // L2 reads in 32-byte sectors (multicast divides a shared tile's)
    {"gpu__time_duration.sum", "time"},  // in the unit of ncu's units row; also as time_ns (derived)
};

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  bool q = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (q) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') { cur += '"'; ++i; }
      else if (c == '"') q = false;
      else cur += c;
    } else if (c == '"') {
      q = true;
    } else if (c == ',') {
      f.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  f.push_back(cur);
  return f;
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(c >= '0' && c <= '9')) return false;
  return true;
}

/// A counter as ncu's CSV prints it ("402,653,184"), or -1 when it is not a number ("n/a", empty).
double counter_value(const std::string& v) {
  const std::optional<double> x = metric_number(v);
  return x ? *x : -1;
}

}  // namespace

const std::vector<ncu_metric>& ncu_metrics() {
  static const std::vector<ncu_metric> m(std::begin(k_metrics), std::end(k_metrics));
  return m;
}

double ncu_ns_per(const std::string& unit) {
  // ncu 2025.x (H100, session 44) writes "ns" under gpu__time_duration; older versions "nsecond".
  if (unit == "ns" || unit == "nsecond") return 1;
  if (unit == "us" || unit == "usecond") return 1e3;
  if (unit == "ms" || unit == "msecond") return 1e6;
  if (unit == "s" || unit == "second") return 1e9;
  return 0;
}

ncu_parsed parse_ncu_output(const std::string& out, const std::vector<ncu_metric>& metrics, const std::vector<std::string>& dropped) {
  ncu_parsed res;
  // Labels in launch order, from the child.
  std::vector<std::pair<std::string, std::string>> labels;  // label, kernel
  std::istringstream is(out);
  std::vector<std::string> header, units;  // the metric names, then the units row below them
  std::vector<std::vector<std::string>> rows;
  std::string errors;
  for (std::string line; std::getline(is, line);) {
    if (line.rfind("PBNCU ", 0) == 0) {
      std::istringstream ls(line.substr(6));
      int idx;
      std::string kernel, label;
      ls >> idx >> kernel;
      std::getline(ls, label);
      if (!label.empty() && label[0] == ' ') label.erase(0, 1);
      labels.emplace_back(label, kernel);
    } else if (line.rfind("\"ID\"", 0) == 0) {
      header = split_csv(line);
    } else if (!header.empty() && line.size() > 2 && line[0] == '"') {
      auto f = split_csv(line);
      if (!f.empty() && is_number(f[0])) rows.push_back(f);
      else if (!f.empty() && f[0].empty() && units.empty() && rows.empty()) units = f;
    } else if (line.find("==ERROR==") != std::string::npos) {
      errors += (errors.empty() ? "" : " | ") + line;
    }
  }
  std::string note;
  if (!dropped.empty()) {
    note = "not collected (unknown to this ncu):";
    for (const auto& d : dropped) note += " " + d;
    note += ". ";
  }
  if (rows.empty()) {
    if (out.find("ERR_NVGPUCTRPERM") != std::string::npos)
      note += "ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM): run as root or allow profiling";
    else
      note += "ncu produced no results" + (errors.empty() ? std::string() : ": " + errors.substr(0, 600));
    res.note = note;
    return res;
  }
  int col_kernel = -1;
  std::map<std::string, int> col;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "Kernel Name") col_kernel = int(i);
    col[header[i]] = int(i);
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    stall_line s;
    const auto& f = rows[r];
    s.kernel = col_kernel >= 0 && col_kernel < int(f.size()) ? f[col_kernel] : "";
    s.label = r < labels.size() ? labels[r].first : "kernel #" + std::to_string(r);
    // The child names each kernel it launches ("*": a library's kernel, any name but one of
    // porter-bench's own, pb_*, matches).
    const bool matches = r < labels.size() && (labels[r].second == "*" ? s.kernel.find("pb_") == std::string::npos
                                                                        : s.kernel.find(labels[r].second) != std::string::npos);
    if (r < labels.size() && !matches)
      s.label += " (order mismatch: ncu names " + s.kernel.substr(0, 60) + ")";
    else if (r < labels.size())
      parse_stall_label(labels[r].first, s);  // only a matched line names its variant (the ncu targets judge it)
    double wf = -1, in = -1;  // shared-load wavefronts and instructions (see k_metrics)
    double time_ns = -1;      // gpu__time_duration in ns (its unit from the units row)
    for (const auto& m : metrics) {
      auto it = col.find(m.name);
      std::string v = it != col.end() && it->second < int(f.size()) ? f[it->second] : "n/a";
      if (m.shown == "smem_ld_wavefronts") wf = counter_value(v);
      if (m.shown == "smem_ld_instructions") in = counter_value(v);
      if (m.shown == "time" && it != col.end() && it->second < int(units.size())) {
        const double t = counter_value(v), scale = ncu_ns_per(units[it->second]);
        if (t >= 0 && scale > 0) time_ns = t * scale;
      }
      s.metrics.emplace_back(m.shown, v);
    }
    // Derived: shared-load wavefronts per shared-load instruction.
    if (wf >= 0 && in > 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", wf / in);
      s.metrics.emplace_back("smem_ld_wavefronts_per_load", buf);
    }
    // Derived: the kernel's duration in ns, whatever unit ncu chose for the column (the ncu
    // targets rank kernels by it when the run has no timed rows: --ncu-only).
    if (time_ns >= 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.0f", time_ns);
      s.metrics.emplace_back("time_ns", buf);
    }
    res.stalls.push_back(s);
  }
  if (labels.size() != rows.size())
    note += "ncu profiled " + std::to_string(rows.size()) + " kernels, the child launched " + std::to_string(labels.size()) + ". ";
  res.note = note;
  return res;
}

}  // namespace pb
