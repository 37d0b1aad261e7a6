// bench/src/meta.cpp — run metadata (see meta.hpp).
#include "meta.hpp"

#include <porter/version.hpp>

#include <cuda_runtime.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <memory>

#include "bench.hpp"
#include "variants.hpp"

namespace pb {

std::string shell_output(const std::string& cmd) {
  std::string out;
  FILE* f = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!f) return out;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
  if (pclose(f) != 0) return "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string executable_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string p(buf, std::size_t(n));
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

std::vector<std::pair<std::string, std::string>> collect_meta(const porter::device_caps* caps, const std::string& argv_line) {
  std::vector<std::pair<std::string, std::string>> m;
  char tbuf[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(tbuf, sizeof tbuf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.emplace_back("date", tbuf);
  m.emplace_back("porter_version", porter::version().string);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  m.emplace_back("host", host);
  m.emplace_back("command", argv_line);
  if (caps) {
    m.emplace_back("device", caps->name);
    m.emplace_back("compute_capability", std::to_string(caps->cc_major) + "." + std::to_string(caps->cc_minor));
    m.emplace_back("sm_count", std::to_string(caps->sm_count));
    m.emplace_back("l2_bytes", std::to_string(caps->l2_bytes));
    m.emplace_back("smem_per_sm_bytes", std::to_string(caps->smem_per_sm));
    m.emplace_back("smem_per_block_optin_bytes", std::to_string(caps->smem_per_block_optin));
    m.emplace_back("sm_clock_max_mhz (runtime attribute)", std::to_string(caps->sm_clock_khz / 1000));
    m.emplace_back("mem_clock_max_mhz (runtime attribute)", std::to_string(caps->mem_clock_khz / 1000));
    m.emplace_back("mem_bus_width_bits", std::to_string(caps->mem_bus_width_bits));
    m.emplace_back("dram_peak_gbs (from clock and bus)", std::to_string(int(caps->peak_dram_bytes_per_second() / 1e9)));
    const std::string q = shell_output("nvidia-smi -i " + std::to_string(caps->device) +
                                       " --query-gpu=clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,driver_version,power.limit,"
                                       "temperature.gpu,persistence_mode --format=csv,noheader");
    m.emplace_back("nvidia-smi (clocks.sm, clocks.mem, clocks.max.sm, clocks.max.mem, driver, power.limit, temp, persistence)",
                   q.empty() ? "nvidia-smi not available" : q);
  }
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  cudaGetLastError();
  m.emplace_back("cuda_driver_api", drv ? std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10) : "none");
  m.emplace_back("cuda_runtime", std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10));
  m.emplace_back("nvcc", PB_NVCC_VERSION);
  std::string commit = shell_output("git -C '" PB_SOURCE_DIR "' rev-parse HEAD");
  if (!commit.empty()) {
    const std::string dirty = shell_output("git -C '" PB_SOURCE_DIR "' status --porcelain --untracked-files=no");
    if (!dirty.empty()) commit += " (with uncommitted changes)";
  } else {
    commit = std::string(PB_GIT_COMMIT) + " (at configure time)";
  }
  m.emplace_back("git_commit", commit);
  m.emplace_back("build_type", PB_BUILD_TYPE);
  m.emplace_back("cuda_architectures", PB_CUDA_ARCHS);
  m.emplace_back("sweep_architectures", sweep_architectures());
  m.emplace_back("kokkos", kokkos_status());
  return m;
}

}  // namespace pb
