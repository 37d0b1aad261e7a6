// bench/src/kokkos_client.cpp — runs porter-bench-kokkos, the Kokkos baselines, as a child process.
//
// Kokkos lives in its own executable so that porter-bench itself never links Kokkos (nor the CUDA
// driver library Kokkos links): porter-bench starts, and prints its lowering report, on machines
// without a GPU driver. The child builds the same inputs (same seeds), checks its results with the
// same checks, times with the same budget, and prints one line per result:
//   PBROW <tab> workload <tab> impl <tab> kernel <tab> status <tab> check <tab> median <tab> min <tab> p10 <tab> p90 <tab> reps
#include <cstdio>
#include <fstream>
#include <sstream>

#include "bench.hpp"
#include "meta.hpp"

namespace pb {

std::string kokkos_status() { return PB_KOKKOS_STATUS; }

std::vector<row> run_kokkos_child(context& cx) {
  std::vector<row> rows;
  if (!PB_KOKKOS_BUILT) {
    cx.rep.notes.push_back("Kokkos baselines not run: " + kokkos_status());
    cx.progress("Kokkos baselines not run: " + kokkos_status());
    return rows;
  }
  const std::string exe = executable_dir() + "/porter-bench-kokkos";
  if (!std::ifstream(exe)) {
    cx.rep.notes.push_back("Kokkos baselines not run: " + exe + " is missing (build the porter-bench-kokkos target)");
    return rows;
  }
  std::string cmd = "'" + exe + "' --device " + std::to_string(cx.opt.device) + (cx.opt.quick ? " --quick" : "");
  if (!cx.opt.wants("stream")) cmd += " --no-stream";
  if (!cx.opt.wants("stencil")) cmd += " --no-stencil";
  cx.progress("Kokkos baselines: " + cmd);
  std::string out;
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) {
    cx.rep.notes.push_back("Kokkos baselines not run: could not start " + exe);
    return rows;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int rc = pclose(f);
  std::istringstream is(out);
  std::string other;
  for (std::string line; std::getline(is, line);) {
    if (line.rfind("PBROW\t", 0) != 0) {
      if (!line.empty()) other += line + "\n";
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string t; std::getline(ls, t, '\t');) f.push_back(t);
    if (f.size() < 11) continue;
    row r;
    r.workload = f[1];
    r.impl = f[2];
    r.kernel = f[3];
    r.status = f[4];
    r.check = f[5];
    r.ms_median = std::atof(f[6].c_str());
    r.ms_min = std::atof(f[7].c_str());
    r.ms_p10 = std::atof(f[8].c_str());
    r.ms_p90 = std::atof(f[9].c_str());
    r.reps = std::atoi(f[10].c_str());
    rows.push_back(r);
    cx.progress("Kokkos " + r.workload + " " + r.impl + ": " + (r.ok() ? format_time(r.ms_median) : r.status));
  }
  if (rc != 0 || rows.empty()) {
    std::string tail = other.size() > 800 ? other.substr(other.size() - 800) : other;
    cx.rep.notes.push_back("porter-bench-kokkos exited with status " + std::to_string(rc) + (tail.empty() ? "" : ": " + tail));
    cx.progress("porter-bench-kokkos exited with status " + std::to_string(rc) + "\n" + tail);
  }
  return rows;
}

}  // namespace pb
