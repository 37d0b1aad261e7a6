// bench/src/ncu.cpp — stall reasons through Nsight Compute (see ncu.hpp).
//
// Metrics (Nsight Compute "Metrics Reference" / the WarpStateStats and ComputeWorkloadAnalysis
// sections): smsp__warp_issue_stalled_<reason>_per_warp_active.pct is the share of active warp
// cycles a warp spent stalled for <reason> (long_scoreboard: waiting on an L1TEX/global result;
// barrier: bar.sync; sleeping: suspended, e.g. in mbarrier.try_wait); sm__pipe_fma_cycles_active
// .avg.pct_of_peak_sustained_active is how busy the FMA pipe was, sm__pipe_tensor_op_hmma_cycles_active
// the same for the tensor cores' HMMA pipe (the bf16 GEMMs' mma.sync and wmma), and
// sm__pipe_tensor_op_gmma_cycles_active the same for the warpgroup MMA (GMMA: wgmma, sm_90). A metric
// that this ncu does not know is dropped and named in the report, and the rest are collected.
#include "ncu.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "../kernels/shapes.hpp"
#include "device_util.hpp"
#include "meta.hpp"

namespace pb {
namespace {

struct metric {
  const char* name;
  const char* shown;
};
const metric k_metrics[] = {
    {"smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", "long_scoreboard%"},
    {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "fma_pipe%"},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor_pipe%"},
    // wgmma's own pipe metric on sm_90 (the "gmma" family beside "hmma": sm__inst_executed_pipe_
    // tensor_op_gmma counts its instructions). Whether the HMMA metric above also counts wgmma is
    // not documented; NVIDIA's answer on the developer forum ("What is the different between SM: Pipe
    // Tc Cycles Active and SM: Pipe Tensor Cycles Active", forums.developer.nvidia.com/t/355164)
    // puts wmma/mma.sync and GH100's wgmma on one MMA unit in the SM sub-partitions, and public
    // Hopper profiles read the gmma metrics apart from the hmma ones. The wgmma GEMM's target judges
    // this one; both are in the report. Unknown to ncu before Hopper support: dropped and named.
    {"sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor_gmma_pipe%"},
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

/// Nanoseconds per `unit` of a duration as ncu's units row names it; 0 when it is not one.
double ns_per(const std::string& unit) {
  if (unit == "nsecond") return 1;
  if (unit == "usecond") return 1e3;
  if (unit == "msecond") return 1e6;
  if (unit == "second") return 1e9;
  return 0;
}

std::string find_ncu() {
  std::string p = shell_output("command -v ncu");
  if (!p.empty()) return p;
  for (const char* c : {"/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu"}) {
    std::ifstream f(c);
    if (f) return c;
  }
  p = shell_output("ls -d /opt/nvidia/nsight-compute/*/ncu | sort | tail -1");
  return p;
}

}  // namespace

void run_ncu(context& cx, const std::string& self) {
  const std::string ncu = find_ncu();
  if (ncu.empty()) {
    cx.rep.stalls_note = "Nsight Compute (ncu) was not found (PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute): stall reasons not collected";
    cx.progress(cx.rep.stalls_note);
    return;
  }
  std::vector<metric> metrics(std::begin(k_metrics), std::end(k_metrics));
  std::vector<std::string> dropped;
  std::string out;
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::string list;
    for (const auto& m : metrics) list += (list.empty() ? "" : ",") + std::string(m.name);
    const std::string cmd = "'" + ncu + "' --clock-control none --target-processes all --kernel-name regex:pb_ --metrics " + list +
                            " --csv --page raw '" + self + "' --ncu-child --device " + std::to_string(cx.opt.device) + " 2>&1";
    cx.progress("ncu: " + cmd);
    out.clear();
    if (FILE* f = popen(cmd.c_str(), "r")) {
      char buf[8192];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
      pclose(f);
    }
    // Drop metrics that this ncu does not know, then try again.
    std::vector<metric> keep;
    bool unknown = false;
    for (const auto& m : metrics) {
      bool bad = false;
      std::istringstream is(out);
      for (std::string line; std::getline(is, line);)
        if (line.find("==ERROR==") != std::string::npos && line.find(m.name) != std::string::npos) bad = true;
      if (bad) { dropped.push_back(m.name); unknown = true; }
      else keep.push_back(m);
    }
    metrics = keep;
    if (!unknown || metrics.empty()) break;
  }
  if (!cx.opt.out.empty()) std::ofstream(cx.opt.out + "/ncu_raw.txt") << out;

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
    cx.rep.stalls_note = note;
    cx.progress("ncu: " + note);
    return;
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
    if (r < labels.size() && s.kernel.find(labels[r].second) == std::string::npos)
      s.label += " (order mismatch: ncu names " + s.kernel.substr(0, 60) + ")";
    else if (r < labels.size())
      parse_stall_label(labels[r].first, s);  // only a matched line names its variant (the ncu targets judge it)
    double wf = -1, in = -1;  // shared-load wavefronts and instructions (see k_metrics)
    double time_ns = -1;      // gpu__time_duration in ns (its unit from the units row)
    for (const auto& m : metrics) {
      auto it = col.find(m.name);
      std::string v = it != col.end() && it->second < int(f.size()) ? f[it->second] : "n/a";
      if (m.shown == std::string("smem_ld_wavefronts")) wf = counter_value(v);
      if (m.shown == std::string("smem_ld_instructions")) in = counter_value(v);
      if (m.shown == std::string("time") && it != col.end() && it->second < int(units.size())) {
        const double t = counter_value(v), scale = ns_per(units[it->second]);
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
    cx.rep.stalls.push_back(s);
  }
  if (labels.size() != rows.size())
    note += "ncu profiled " + std::to_string(rows.size()) + " kernels, the child launched " + std::to_string(labels.size()) + ". ";
  cx.rep.stalls_note = note;
}

int ncu_child(context& cx) {
  int index = 0;
  auto launch_once = [&](const std::string& label, const kernel_desc& d, const std::function<launcher(int)>& bind) {
    if (d.min_cc > cx.caps.compute_capability()) return;
    if (d.only_cc != 0 && d.only_cc != cx.caps.compute_capability()) return;
    cudaFuncAttributes a{};
    if (cudaFuncGetAttributes(&a, d.func) != cudaSuccess) { cudaGetLastError(); return; }
    const int ctas = ctas_per_sm(d);
    if (!ctas) return;
    try {
      launcher l = bind(ctas * cx.caps.sm_count);
      std::printf("PBNCU %d %s %s\n", index++, d.kernel.c_str(), label.c_str());
      std::fflush(stdout);
      l(cx.stream);
      cudaStreamSynchronize(cx.stream);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ncu child: %s: %s\n", label.c_str(), e.what());
    }
  };
  auto label_of = [](const std::string& w, const kernel_desc& d) {
    return w + " " + d.impl + "/" + d.path + " S=" + std::to_string(d.stages);
  };
  auto wanted = [](const kernel_desc& d, int def) { return d.stages == (d.default_stages > 0 ? d.default_stages : def); };
  void* a = nullptr;
  void* b = nullptr;
  const long long n = 1LL << 28;
  if (cudaMalloc(&a, n * 4) != cudaSuccess || cudaMalloc(&b, n * 4) != cudaSuccess) {
    std::fprintf(stderr, "ncu child: cudaMalloc failed\n");
    return 1;
  }
  float* x = static_cast<float*>(a);
  float* y = static_cast<float*>(b);
  fill_uniform(x, n, 1, -1.f, 1.f, cx.stream);
  cudaStreamSynchronize(cx.stream);
  if (cx.opt.wants("stream")) {
    int occ = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, copy_kernel_func(), copy_kernel_threads, 0);
    std::printf("PBNCU %d pb_copy stream copy-kernel\n", index++);
    std::fflush(stdout);
    launch_copy_kernel(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), n / 4, occ * cx.caps.sm_count, cx.stream);
    cudaStreamSynchronize(cx.stream);
    const stream_problem p{x, y, n, 1.5f, -0.25f};
    for (const auto& v : cx.reg.stream)
      if (wanted(v.d, default_stages_stream)) launch_once(label_of("stream", v.d), v.d, [&](int g) { return v.bind(p, g); });
  }
  if (cx.opt.wants("stencil")) {
    const stencil_problem p{x, y, 16384, 16384};
    for (int r = 1; r <= 2; ++r)
      for (const auto& v : cx.reg.stencil[r])
        if (wanted(v.d, default_stages_stencil))
          launch_once(label_of("stencil2d-r" + std::to_string(r), v.d), v.d, [&](int g) { return v.bind(p, g); });
  }
  if (cx.opt.wants("sgemm")) {
    // 4096^3 from the same buffers: At, B and C each 64 MiB.
    const int s = 4096;
    const std::size_t e = std::size_t(s) * s;
    const sgemm_problem p{x, x + e, y, s, s, s};
    for (const auto& v : cx.reg.sgemm)
      if (wanted(v.d, default_stages_sgemm)) launch_once(label_of("sgemm 4096^3", v.d), v.d, [&](int g) { return v.bind(p, g); });
  }
  if (cx.opt.wants("smallgemm")) {
    // smallgemm_shape::size^3 from the same buffers: A, B and C each 16 MiB at 2048.
    const int s = smallgemm_shape::size;
    const std::size_t e = std::size_t(s) * s;
    const smallgemm_problem p{x, x + e, y, s, s, s};
    const std::string label = "smallgemm " + std::to_string(s) + "^3";
    for (const auto& v : cx.reg.smallgemm)
      if (wanted(v.d, default_stages_smallgemm)) launch_once(label_of(label, v.d), v.d, [&](int g) { return v.bind(p, g); });
  }
  if (cx.opt.wants("bf16gemm")) {
    // 4096^3 from the same buffers, refilled with bf16: A and B 32 MiB each, C 64 MiB.
    const int s = 4096;
    const std::size_t e = std::size_t(s) * s;
    __nv_bfloat16* ab = reinterpret_cast<__nv_bfloat16*>(x);
    fill_uniform_bf16(ab, (long long)(2 * e), 3, -1.f, 1.f, cx.stream);
    cudaStreamSynchronize(cx.stream);
    const bf16gemm_problem p{ab, ab + e, y, s, s, s};
    for (const auto& v : cx.reg.bf16gemm)
      if (wanted(v.d, default_stages_bf16gemm)) launch_once(label_of("bf16gemm 4096^3", v.d), v.d, [&](int g) { return v.bind(p, g); });
    fill_uniform(x, n, 1, -1.f, 1.f, cx.stream);  // the fp32 data the workloads after this one read
    cudaStreamSynchronize(cx.stream);
  }
  if (cx.opt.wants("copy2d")) {
    const grid2d_problem p{x, y, copy2d_shape::size, copy2d_shape::size};
    for (const auto& v : cx.reg.copy2d)
      if (wanted(v.d, default_stages_copy2d)) launch_once(label_of("copy2d", v.d), v.d, [&](int g) { return v.bind(p, g); });
  }
  if (cx.opt.wants("transpose")) {
    const grid2d_problem p{x, y, transpose_shape::size, transpose_shape::size};
    for (const auto& v : cx.reg.transpose)
      if (wanted(v.d, default_stages_transpose)) launch_once(label_of("transpose", v.d), v.d, [&](int g) { return v.bind(p, g); });
  }
  if (cx.opt.wants("ports")) {
    // Each pair's variants (before, porter on every path) once, on that pair's own problem; fp32
    // pairs read x and write y, bf16 pairs read x refilled with bf16.
    for (const port_pair& pair : cx.reg.ports) {
      const long long need_in = (pair.a_elems + pair.b_elems) * pair.ab_bytes / 4 + pair.c_elems;
      if (pair.variants.empty() || need_in > n || pair.out_elems > n) continue;
      port_problem p = pair.shape;
      if (pair.ab_bytes == 2) {
        __nv_bfloat16* ab = reinterpret_cast<__nv_bfloat16*>(x);
        fill_uniform_bf16(ab, pair.a_elems + pair.b_elems, 3, -1.f, 1.f, cx.stream);
        p.a16 = ab;
        p.b16 = pair.b_elems ? ab + pair.a_elems : nullptr;
        p.c = pair.c_elems ? x + (pair.a_elems + pair.b_elems) / 2 : nullptr;
      } else {
        p.a = x;
        p.b = pair.b_elems ? x + pair.a_elems : nullptr;
        p.c = pair.c_elems ? x + pair.a_elems + pair.b_elems : nullptr;
      }
      p.out = y;
      cudaStreamSynchronize(cx.stream);
      for (const auto& v : pair.variants)
        if (v.d.kernel.rfind("pb_", 0) == 0)  // only porter-bench's own kernels match ncu's filter
          launch_once("ports/" + pair.name + " " + v.d.impl + "/" + v.d.path + " S=" + std::to_string(v.d.stages), v.d,
                      [&](int g) { return v.bind(p, g); });
      if (pair.ab_bytes == 2) {
        fill_uniform(x, n, 1, -1.f, 1.f, cx.stream);
        cudaStreamSynchronize(cx.stream);
      }
    }
  }
  cudaFree(a);
  cudaFree(b);
  return 0;
}

}  // namespace pb
