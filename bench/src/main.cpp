// porter-bench — the data-path comparison: every workload written once with porter, run on the
// tma, cp_async and staged paths, against the ceilings, peers (cub, Kokkos, cuBLAS, Triton and
// torch) and the hand-written pipeline of each path (TMA, cp.async, cuda::pipeline), measured in
// the same run.
//
// Without a GPU it prints the lowering report instead (per target and path: instructions emitted,
// registers, shared memory, spills, from the compiler) and exits 0.
#include <porter/device.hpp>
#include <porter/planner.hpp>
#include <porter/version.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "../kernels/shapes.hpp"
#include "bench.hpp"
#include "meta.hpp"
#include "ncu.hpp"

namespace pb {
extern const char* const lowering_report_text;  // generated at build time (tools/lowering_report.cpp)
}

namespace {

const char* k_usage =
    "usage: porter-bench [options]\n"
    "  --quick            fewer repetitions (about 30 s on an H200); the stage sweep of sgemm at 8192^3 only\n"
    "  --full             more repetitions, sgemm sweep at 4096^3 and 8192^3 too (the default)\n"
    "  --no-sweep         only the default stage counts\n"
    "  --only LIST        workloads to run, comma-separated: stream,stencil,sgemm,bf16gemm,smallgemm,copy2d,transpose,boxsize,ports,launch\n"
    "                     (bf16gemm: the Triton and torch peers' rows)\n"
    "  --out DIR          write results.csv, results.json, table.txt and lowering.txt to DIR\n"
    "  --ncu              after timing, run Nsight Compute on each path's kernel: stall reasons per path\n"
    "  --ncu-only         only the Nsight Compute pass\n"
    "  --lowering         print the lowering report (what the compiler emitted per target and path)\n"
    "  --device N         GPU ordinal (default 0)\n"
    "  --budget SECONDS   stop starting sweep points after this long (default: 150 quick, 420 full)\n"
    "  --no-triton        skip the Triton and torch peers (bench/peers/triton_peers.py, run after the workloads\n"
    "                     when PYTHON -c 'import triton, torch' works)\n"
    "  --python PATH      the peers' interpreter (default: $PORTER_BENCH_PYTHON, else python3)\n"
    "  --triton-budget S  the peers start no new workload after S seconds (default: 120 quick, 300 full)\n"
    "  --version          print porter's version (the linked core's) and exit\n"
    "  --help\n"
    "Tables go to stdout, progress to stderr. Exit status 1 if any result was wrong.\n";

/// The kernels this build holds, with their compile-time shapes (no GPU needed).
std::string kernel_inventory(const pb::registry& r) {
  std::ostringstream o;
  o << "Kernels in this build (dynamic shared memory = the pipeline's shared_bytes; stage = bytes per stage)\n";
  auto list = [&](const char* w, const auto& vs) {
    for (const auto& v : vs)
      o << "  " << w << "  " << v.d.impl << "/" << v.d.path << " S=" << v.d.stages << "  " << v.d.threads << " threads, "
        << v.d.smem << " B dynamic smem, " << v.d.stage_bytes << " B/stage, kernel " << v.d.kernel << "\n";
  };
  list("stream      ", r.stream);
  list("stencil2d-r1", r.stencil[1]);
  list("stencil2d-r2", r.stencil[2]);
  list("sgemm       ", r.sgemm);
  list("smallgemm   ", r.smallgemm);
  list("bf16gemm    ", r.bf16gemm);
  list("copy2d      ", r.copy2d);
  list("transpose   ", r.transpose);
  for (const auto& p : r.ports) list(("ports/" + p.name).c_str(), p.variants);
  return o.str();
}

/// The planner on an assumed H200 (datasheet-level numbers), to show its rule without a GPU.
std::string planner_example(const pb::registry& r) {
  porter::device_caps h;
  h.name = "NVIDIA H200 (assumed: 132 SMs, 228 KiB smem/SM, 4.2 TB/s D2D, 7.4 TB/s L2-resident read, 51 TFLOP/s cuBLAS SGEMM, "
           "737 TFLOP/s cuBLAS bf16)";
  h.cc_major = 9;
  h.sm_count = 132;
  h.max_threads_per_sm = 2048;
  h.smem_per_sm = 233472;
  h.smem_per_block_optin = 232448;
  h.l2_bytes = 60 << 20;
  std::ostringstream o;
  o << "Stage planner on " << h.name << ", latency " << porter::default_memory_latency_ns(h)
    << " ns (default; porter-bench measures it on a GPU), register limits unknown without a GPU:\n";
  // demand > 0: bytes/s per SM; else from the stage's flops at cuBLAS' assumed rate (`tflops`).
  auto plan = [&](const char* w, const auto& vs, int def, double demand, double flops_per_stage, double tflops = 51) {
    for (const auto& v : vs) {
      if (v.d.impl != "porter" || v.d.stages != def) continue;
      porter::stage_plan_request q;
      q.path = v.d.path == "tma" ? porter::path_id::tma : v.d.path == "cp_async" ? porter::path_id::cp_async : porter::path_id::staged;
      q.stage_bytes = v.d.stage_bytes;
      q.fixed_smem_bytes = v.d.fixed_smem;
      q.threads_per_cta = v.d.threads;
      q.demand_bytes_per_second_per_sm = demand > 0 ? demand : porter::demand_from_flops(v.d.stage_bytes, flops_per_stage, tflops * 1e12 / 132);
      q.fill_bytes_per_second_per_sm = 7.36e12 / 132;  // the H200's L2-resident read (porter-bench, session 33)
      const auto p = porter::plan_stages(h, q);
      o << "  " << w << " " << v.d.path << ": S=" << p.stages << "  (" << p.reason << ")\n";
    }
  };
  const double read_per_sm = 4.2e12 / 2 / 132;
  plan("stream      ", r.stream, pb::default_stages_stream, read_per_sm, 0);
  plan("stencil2d-r1", r.stencil[1], pb::default_stages_stencil, read_per_sm, 0);
  plan("stencil2d-r2", r.stencil[2], pb::default_stages_stencil, read_per_sm, 0);
  plan("sgemm       ", r.sgemm, pb::default_stages_sgemm, 0, pb::sgemm_shape::flops_per_stage);
  plan("smallgemm   ", r.smallgemm, pb::default_stages_smallgemm, 0, pb::smallgemm_shape::flops_per_stage);
  plan("bf16gemm    ", r.bf16gemm, pb::default_stages_bf16gemm, 0, pb::bf16gemm_shape::flops_per_stage, 737);
  return o.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, sep);)
    if (!t.empty()) v.push_back(t);
  return v;
}

void write_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::ofstream f(dir + "/" + name);
  f << text;
  if (!f) std::fprintf(stderr, "porter-bench: could not write %s/%s\n", dir.c_str(), name.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  pb::options opt;
  std::string argv_line;
  for (int i = 0; i < argc; ++i) argv_line += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "porter-bench: %s needs a value\n%s", a.c_str(), k_usage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--quick") opt.quick = true;
    else if (a == "--full") opt.quick = false;
    else if (a == "--no-sweep") opt.sweep = false;
    else if (a == "--only") opt.only = split(next(), ',');
    else if (a == "--out") opt.out = next();
    else if (a == "--ncu") opt.ncu = true;
    else if (a == "--ncu-only") opt.ncu = opt.ncu_only = true;
    else if (a == "--ncu-child") opt.ncu_child = true;
    else if (a == "--lowering") opt.lowering = true;
    else if (a == "--device") opt.device = std::atoi(next().c_str());
    else if (a == "--budget") opt.budget_s = std::atof(next().c_str());
    else if (a == "--no-triton") opt.triton = false;
    else if (a == "--python") opt.python = next();
    else if (a == "--triton-budget") opt.triton_budget_s = std::atof(next().c_str());
    else if (a == "--version") {
      std::printf("porter-bench %s\n", porter::version().string);
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::fputs(k_usage, stdout);
      return 0;
    } else {
      std::fprintf(stderr, "porter-bench: unknown option %s\n%s", a.c_str(), k_usage);
      return 2;
    }
  }
  for (const auto& w : opt.only)
    if (w != "stream" && w != "stencil" && w != "sgemm" && w != "bf16gemm" && w != "smallgemm" && w != "copy2d" && w != "transpose" &&
        w != "boxsize" && w != "ports" && w != "launch") {
      std::fprintf(stderr, "porter-bench: --only takes stream, stencil, sgemm, bf16gemm, smallgemm, copy2d, transpose, boxsize, ports, launch (got %s)\n",
                   w.c_str());
      return 2;
    }
  if (!opt.out.empty()) std::filesystem::create_directories(opt.out);

  pb::context cx;
  cx.opt = opt;
  pb::register_default_kernels(cx.reg);
  pb::register_sweep_kernels(cx.reg);
  pb::register_boxsize_kernels(cx.reg);
  pb::register_bf16gemm_kernels(cx.reg);
  pb::register_bf16gemm_wgmma_kernels(cx.reg);
  pb::register_bf16gemm_roles_kernels(cx.reg);
  pb::register_manual_kernels(cx.reg);
  pb::register_manual_tma_kernels(cx.reg);
  pb::register_cuda_pipeline_kernels(cx.reg);
  pb::register_port_befores(cx.reg);
  pb::register_port_afters(cx.reg);
  pb::register_public_original(cx.reg);
  pb::ports::register_public_bf16gemm_original(cx.reg);

  std::string why;
  auto caps = porter::query_device(opt.device, &why);
  if (!caps) {
    std::ostringstream o;
    o << "porter-bench: no GPU found: " << why << "\n"
      << "Printing the lowering report instead: what the compiler emitted for each bench kernel, per target and path.\n\n"
      << pb::lowering_report_text << "\n"
      << kernel_inventory(cx.reg) << "\n"
      << planner_example(cx.reg);
    o << pb::mechanisms_table(pb::workload_mechanisms());
    const std::string triton = pb::triton_status_without_gpu(opt);
    o << "\nTriton and torch peers (bench/peers/triton_peers.py): " << triton << "\n";
    std::fputs(o.str().c_str(), stdout);
    if (!opt.out.empty()) {
      write_file(opt.out, "lowering.txt", o.str());
      pb::report rep;
      rep.meta = pb::collect_meta(nullptr, argv_line);
      rep.meta.emplace_back("device", "none (" + why + ")");
      rep.meta.emplace_back("triton", triton);
      // Host-side facts that stdout printed too: bytes per copy mechanism of every workload. (The
      // planner lines stay out: stdout's are an example on an assumed H200, not a result.)
      rep.mechanisms = pb::workload_mechanisms();
      rep.notes.push_back("no GPU found: " + why + "; see lowering.txt");
      write_file(opt.out, "results.json", rep.json());
      write_file(opt.out, "results.csv", rep.csv());
    }
    return 0;
  }
  cx.caps = *caps;
  if (cudaSetDevice(opt.device) != cudaSuccess || cudaStreamCreateWithFlags(&cx.stream, cudaStreamNonBlocking) != cudaSuccess) {
    std::fprintf(stderr, "porter-bench: could not set up device %d: %s\n", opt.device, cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  if (opt.ncu_child) return pb::ncu_child(cx);

  cx.rep.meta = pb::collect_meta(&cx.caps, argv_line);
  cx.rep.mechanisms = pb::workload_mechanisms();
  cx.rep.meta.emplace_back("mode", opt.quick ? "quick" : "full");
  std::printf("porter-bench on %s; %s mode\n", cx.caps.describe().c_str(), opt.quick ? "quick" : "full");
  for (const auto& [k, v] : cx.rep.meta) std::printf("  %s: %s\n", k.c_str(), v.c_str());
  std::fflush(stdout);
  if (opt.lowering) std::printf("\n%s\n", pb::lowering_report_text);

  int rc = 0;
  try {
    if (!opt.ncu_only) {
      if (opt.wants("stream") || opt.wants("stencil")) pb::run_stream(cx);
      if (opt.wants("stencil")) {
        pb::run_stencil(cx, 1);
        pb::run_stencil(cx, 2);
      }
      if (opt.wants("sgemm")) {
        if (cx.latency_ns <= 0) pb::measure_memory(cx);
        pb::run_sgemm(cx, 4096, opt.sweep && !opt.quick);
        pb::run_sgemm(cx, 8192, opt.sweep);
      }
      if (opt.wants("smallgemm")) {
        if (cx.latency_ns <= 0) pb::measure_memory(cx);
        pb::run_smallgemm(cx, pb::smallgemm_shape::size, opt.sweep);
      }
      if (opt.wants("bf16gemm")) {
        if (cx.latency_ns <= 0) pb::measure_memory(cx);
        pb::run_bf16gemm(cx, 4096, opt.sweep && !opt.quick);
        pb::run_bf16gemm(cx, 8192, opt.sweep);
      }
      if (opt.wants("copy2d")) pb::run_copy2d(cx);
      if (opt.wants("transpose")) pb::run_transpose(cx);
      if (opt.wants("boxsize")) pb::run_boxsize(cx);
      if (opt.wants("ports")) pb::run_ports(cx);
      if (opt.wants("launch")) pb::run_launch_cost(cx);
      pb::run_triton_peers(cx);  // after the workloads: its rows join theirs (bench/src/peer_rows.cpp)
      cx.rep.meta.emplace_back("memory_latency", cx.latency_note);
      cx.rep.meta.emplace_back("l2_read", cx.l2_read_note);
      pb::evaluate_planner(cx);
      pb::evaluate_targets(cx);
    }
    if (opt.ncu) {
      pb::run_ncu(cx, pb::executable_dir() + "/porter-bench");
      pb::evaluate_ncu_targets(cx);  // after the timed rows' targets: it ranks by their rates
      pb::evaluate_ncu_conflict_targets(cx);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "porter-bench: %s\n", e.what());
    cx.rep.notes.push_back(std::string("aborted: ") + e.what());
    rc = 1;
  }
  cx.rep.meta.emplace_back("wall_seconds", pb::format_double(cx.elapsed_s(), 1));
  {
    // Clocks right after the last timed kernel (the query at start may see idle clocks).
    const std::string q = pb::shell_output("nvidia-smi -i " + std::to_string(opt.device) +
                                           " --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader");
    cx.rep.meta.emplace_back("nvidia-smi after the run (clocks.sm, clocks.mem, temp, power.draw)", q.empty() ? "nvidia-smi not available" : q);
  }

  const std::string table = cx.rep.table();
  std::fputs(table.c_str(), stdout);
  if (!opt.out.empty()) {
    write_file(opt.out, "results.csv", cx.rep.csv());
    write_file(opt.out, "results.json", cx.rep.json());
    write_file(opt.out, "table.txt", table);
    write_file(opt.out, "lowering.txt", pb::lowering_report_text);
    std::printf("\nwrote %s/{results.csv,results.json,table.txt,lowering.txt}\n", opt.out.c_str());
  }
  if (cx.rep.any_failed()) {
    std::printf("\nporter-bench: some results were WRONG (rows marked FAILED)\n");
    rc = 1;
  }
  cudaStreamDestroy(cx.stream);
  return rc;
}
