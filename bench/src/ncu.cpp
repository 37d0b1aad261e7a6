// bench/src/ncu.cpp — stall reasons through Nsight Compute (see ncu.hpp): runs ncu on porter-bench's
// ncu child. The metrics and the reading of ncu's output are in ncu_parse.cpp.
#include "ncu.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "../baselines/cublas_gemm.hpp"
#include "../kernels/shapes.hpp"
#include "device_util.hpp"
#include "meta.hpp"
#include "ncu_parse.hpp"

namespace pb {
namespace {

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

/// The kernels ncu profiles (its --kernel-name regex, alternatives matched anywhere in the name):
/// porter-bench's own (pb_*), the public samples' originals that the ports workload times beside
/// their ports (cuda-samples' compute_bf16gemm_async_copy, matched by "gemm", and
/// MatrixMulAsyncCopySingleStage), and cuBLAS' bf16 GEMM kernel, the child's reference line (cuBLAS
/// 13 on sm_90 names it nvjet_sm90_*; older ones *gemm*). The child launches a kernel only when its
/// name matches (ncu_profiles): ncu's rows are matched to the child's labels by order.
constexpr const char* kernel_filter[] = {"pb_", "gemm", "nvjet", "MatrixMulAsyncCopy"};

std::string kernel_filter_regex() {
  std::string r;
  for (const char* k : kernel_filter) r += (r.empty() ? "" : "|") + std::string(k);
  return r;
}

/// True when ncu's filter (kernel_filter) matches a kernel named `name`.
bool ncu_profiles(const std::string& name) {
  for (const char* k : kernel_filter)
    if (name.find(k) != std::string::npos) return true;
  return false;
}

}  // namespace

void run_ncu(context& cx, const std::string& self) {
  const std::string ncu = find_ncu();
  if (ncu.empty()) {
    cx.rep.stalls_note = "Nsight Compute (ncu) was not found (PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute): stall reasons not collected";
    cx.progress(cx.rep.stalls_note);
    return;
  }
  // The child profiles the workloads this run was asked for (--only), no others.
  std::string only;
  for (const auto& w : cx.opt.only) only += (only.empty() ? " --only " : ",") + w;
  std::vector<ncu_metric> metrics = ncu_metrics();
  std::vector<std::string> dropped;
  std::string out;
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::string list;
    for (const auto& m : metrics) list += (list.empty() ? "" : ",") + m.name;
    const std::string cmd = "'" + ncu + "' --clock-control none --target-processes all --kernel-name 'regex:" + kernel_filter_regex() +
                            "' --metrics " + list +
                            " --csv --page raw '" + self + "' --ncu-child --device " + std::to_string(cx.opt.device) + only + " 2>&1";
    cx.progress("ncu: " + cmd);
    out.clear();
    if (FILE* f = popen(cmd.c_str(), "r")) {
      char buf[8192];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
      pclose(f);
    }
    // Drop metrics that this ncu does not know, then try again.
    std::vector<ncu_metric> keep;
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

  const ncu_parsed parsed = parse_ncu_output(out, metrics, dropped);
  cx.rep.stalls.insert(cx.rep.stalls.end(), parsed.stalls.begin(), parsed.stalls.end());
  cx.rep.stalls_note = parsed.note;
  if (parsed.stalls.empty()) cx.progress("ncu: " + parsed.note);
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
        if (ncu_profiles(v.d.kernel))  // the befores, the ports, and the public originals when built
          launch_once("ports/" + pair.name + " " + v.d.impl + "/" + v.d.path + " S=" + std::to_string(v.d.stages), v.d,
                      [&](int g) { return v.bind(p, g); });
      if (pair.ab_bytes == 2) {
        fill_uniform(x, n, 1, -1.f, 1.f, cx.stream);
        cudaStreamSynchronize(cx.stream);
      }
    }
  }
  // cuBLAS on the bf16 GEMM's ncu problem, as a reference line: the same metrics on the ceiling's
  // own kernel, which the bf16gemm ncu targets quote beside porter's (the long-scoreboard share
  // reads differently for a warp-specialised kernel; cuBLAS' shows what the library that sets the
  // ceiling reads). Last, after every porter kernel, and only this one: the line is matched to
  // ncu's row by order, its kernel column by "*" (the name is cuBLAS' choice), so a reference
  // whose kernel ncu's filter missed would hand its label to the next one. The H100 of session 46
  // showed it: cuBLAS 13's fp32 SGEMM kernels match none of pb_, gemm or nvjet (the bf16 one is
  // nvjet_sm90_*), and the sgemm reference line took the bf16 kernel's figures.
  if (cx.opt.wants("bf16gemm")) {
    try {
      cublas_gemm cb;
      const int s = 4096;
      const std::size_t e = std::size_t(s) * s;
      __nv_bfloat16* ab = reinterpret_cast<__nv_bfloat16*>(x);
      fill_uniform_bf16(ab, (long long)(2 * e), 3, -1.f, 1.f, cx.stream);
      cudaStreamSynchronize(cx.stream);
      const launcher l = cb.bind(bf16gemm_problem{ab, ab + e, y, s, s, s}, cx.stream);
      std::printf("PBNCU %d * bf16gemm 4096^3 cublas/reference S=0\n", index++);
      std::fflush(stdout);
      l(cx.stream);
      cudaStreamSynchronize(cx.stream);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ncu child: cuBLAS reference: %s\n", e.what());
    }
  }
  cudaFree(a);
  cudaFree(b);
  return 0;
}

}  // namespace pb
