// bench/tools/lowering_report.cpp — build-time tool: turns what nvcc said and kept while compiling
// the bench kernels (ptxas --resource-usage logs and the PTX of each target) into porter-bench's
// lowering report, as text and as a C++ source that embeds it.
//
// usage: porter_bench_lowering <keep-dir> <out.txt> <out.cpp>
//   <keep-dir>/<tu>/ptxas.log      stderr of the compile (nvcc --resource-usage)
//   <keep-dir>/<tu>/*.compute_XX.ptx   the PTX of each target (nvcc --keep)
// Counts are static: instructions in a kernel's PTX, plus those of the device functions it calls.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_name.hpp"

namespace fs = std::filesystem;

namespace {

struct resources {
  int regs = -1, stack = 0, spill_st = 0, spill_ld = 0, smem = 0;
};

/// Instruction families counted per kernel (substring of a PTX instruction line).
struct family {
  const char* shown;
  const char* needle;
  const char* exclude;  // a line containing this is not counted (nullptr: none)
};
const family k_families[] = {
    {"bulk.tensor", "cp.async.bulk.tensor", nullptr},
    {"bulk", "cp.async.bulk.", "cp.async.bulk.tensor"},
    {"cp.async.cg", "cp.async.cg.", nullptr},
    {"cp.async.ca", "cp.async.ca.", nullptr},
    {"commit", "cp.async.commit_group", nullptr},
    {"wait_group", "cp.async.wait_group", nullptr},
    {"mbarrier", "mbarrier.", "cp.async.mbarrier"},
    {"bar.sync", "bar.sync", nullptr},
    {"ld.global.v4", "ld.global", nullptr},  // refined below: only .v4
    {"st.shared.v4", "st.shared.v4", nullptr},
    {"ld.shared.v4", "ld.shared.v4", nullptr},
    {"ldmatrix", "ldmatrix.sync", nullptr},
    {"mma.sync", "mma.sync", nullptr},
    {"trap", "trap;", nullptr},
};
constexpr int k_nfam = sizeof(k_families) / sizeof(k_families[0]);

struct func_counts {
  int n[k_nfam] = {};
  std::set<std::string> callees;
};

std::string read_all(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Resources per (arch, mangled entry) from a ptxas log.
void parse_log(const std::string& text, std::map<std::pair<std::string, std::string>, resources>& out) {
  static const std::regex entry_re(R"(Compiling entry function '([^']+)' for '(sm_[0-9a-z]+)')");
  static const std::regex spill_re(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used_re(R"(Used (\d+) registers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  std::istringstream is(text);
  std::string cur, arch;
  for (std::string line; std::getline(is, line);) {
    std::smatch m;
    if (std::regex_search(line, m, entry_re)) {
      cur = m[1];
      arch = m[2];
      out[{arch, cur}];
    } else if (!cur.empty() && std::regex_search(line, m, spill_re)) {
      auto& r = out[{arch, cur}];
      r.stack = std::stoi(m[1]);
      r.spill_st = std::stoi(m[2]);
      r.spill_ld = std::stoi(m[3]);
    } else if (!cur.empty() && std::regex_search(line, m, used_re)) {
      auto& r = out[{arch, cur}];
      r.regs = std::stoi(m[1]);
      if (std::regex_search(line, m, smem_re)) r.smem = std::stoi(m[1]);
    }
  }
}

/// Instruction counts per .entry (with the .func bodies they call) of one PTX file.
std::map<std::string, func_counts> parse_ptx(const std::string& text, std::vector<std::string>& entries) {
  std::map<std::string, func_counts> funcs;
  static const std::regex head_re(R"(^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*))");
  static const std::regex call_re(R"(\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$][\w$]*))");
  std::istringstream is(text);
  std::string cur;
  int depth = 0;
  bool in_body = false;
  for (std::string line; std::getline(is, line);) {
    std::smatch m;
    if (!in_body && std::regex_search(line, m, head_re)) {
      cur = m[2];
      if (m[1] == "entry") entries.push_back(cur);
      funcs[cur];
      depth = 0;
      in_body = false;
    }
    if (cur.empty()) continue;
    for (char c : line) {
      if (c == '{') { ++depth; in_body = true; }
      else if (c == '}') --depth;
    }
    if (in_body) {
      auto& f = funcs[cur];
      for (int i = 0; i < k_nfam; ++i) {
        const family& fam = k_families[i];
        if (line.find(fam.needle) == std::string::npos) continue;
        if (fam.exclude && line.find(fam.exclude) != std::string::npos) continue;
        if (std::string(fam.shown) == "ld.global.v4" && line.find(".v4") == std::string::npos) continue;
        ++f.n[i];
      }
      if (line.find("call") != std::string::npos && std::regex_search(line, m, call_re)) f.callees.insert(m[1]);
      if (depth == 0) { in_body = false; cur.clear(); }
    }
  }
  return funcs;
}

void total(const std::map<std::string, func_counts>& funcs, const std::string& name, std::set<std::string>& seen, int (&acc)[k_nfam]) {
  if (!seen.insert(name).second) return;
  auto it = funcs.find(name);
  if (it == funcs.end()) return;
  for (int i = 0; i < k_nfam; ++i) acc[i] += it->second.n[i];
  for (const auto& c : it->second.callees) total(funcs, c, seen, acc);
}

std::string pad(const std::string& s, std::size_t w, bool right = false) {
  if (s.size() >= w) return s + " ";
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string cpp_escape(const std::string& text) {
  std::ostringstream o;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) {
    o << "    \"";
    for (char c : line) {
      if (c == '"' || c == '\\') o << '\\' << c;
      else if (c == '?') o << "\\?";  // no trigraphs
      else o << c;
    }
    o << "\\n\"\n";
  }
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <keep-dir> <out.txt> <out.cpp>\n", argv[0]);
    return 2;
  }
  const fs::path dir = argv[1];
  std::map<std::pair<std::string, std::string>, resources> res;             // (arch, mangled)
  std::map<std::pair<std::string, std::string>, std::vector<int>> counts;  // (arch, mangled) -> families
  std::map<std::string, std::string> tu_of;                                  // mangled -> translation unit
  std::ostringstream missing;
  std::vector<fs::path> tus;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory()) tus.push_back(e.path());
  std::sort(tus.begin(), tus.end());
  for (const auto& tu : tus) {
    const std::string log = read_all(tu / "ptxas.log");
    if (log.empty()) missing << "  " << tu.filename().string() << ": no ptxas log\n";
    parse_log(log, res);
    for (const auto& e : fs::directory_iterator(tu)) {
      const std::string fn = e.path().filename().string();
      if (fn.size() < 4 || fn.compare(fn.size() - 4, 4, ".ptx") != 0) continue;
      // The target comes from the PTX itself (".target sm_90"): nvcc names the file
      // <tu>.compute_XX.ptx for several targets but <tu>.ptx for one.
      const std::string text = read_all(e.path());
      static const std::regex target_re(R"(\.target\s+(sm_[0-9]+[a-z]?))");
      std::smatch m;
      if (!std::regex_search(text, m, target_re)) continue;
      const std::string arch = m[1].str();
      std::vector<std::string> entries;
      const auto funcs = parse_ptx(text, entries);
      for (const auto& en : entries) {
        int acc[k_nfam] = {};
        std::set<std::string> seen;
        total(funcs, en, seen, acc);
        counts[{arch, en}] = std::vector<int>(acc, acc + k_nfam);
        tu_of[en] = tu.filename().string();
      }
    }
  }

  std::set<std::string> archs;
  for (const auto& [k, v] : res) archs.insert(k.first);
  for (const auto& [k, v] : counts) archs.insert(k.first);

  std::ostringstream o;
  o << "porter-bench lowering report (generated at build time from nvcc --resource-usage and the PTX it kept)\n"
    << "regs: registers per thread; spill: bytes spilled (stores/loads); stack: local stack frame, bytes;\n"
    << "smem: static shared memory (the pipelines' rings are dynamic: see the kernel list below).\n"
    << "Instruction counts are static counts in each kernel's PTX (with the device functions it calls):\n"
    << "  bulk.tensor = cp.async.bulk.tensor (TMA 2D-5D), bulk = cp.async.bulk (TMA 1D), cp.async.cg/.ca (Ampere),\n"
    << "  commit/wait_group = cp.async groups, mbarrier = mbarrier.* (init/arrive/expect_tx/try_wait),\n"
    << "  bar.sync = CTA barriers, ld.global.v4 / st.shared.v4 / ld.shared.v4 = 16-byte accesses,\n"
    << "  ldmatrix = warp fragment loads (porter::load_fragments), mma.sync = warp-level MMA (bf16gemm's consumer),\n"
    << "  trap = trap instructions: where a path's instruction is missing on the target (below), and porter's\n"
    << "  device-side refusals and timeouts, so a kernel that runs fine can count one.\n";
  for (const auto& arch : archs) {
    std::vector<std::pair<std::string, std::string>> rows;  // short name, mangled
    std::set<std::string> names;
    for (const auto& [k, v] : res)
      if (k.first == arch) names.insert(k.second);
    for (const auto& [k, v] : counts)
      if (k.first == arch) names.insert(k.second);
    for (const auto& n : names) rows.emplace_back(pb::short_kernel_name(n), n);
    std::sort(rows.begin(), rows.end());
    std::size_t name_w = 34;  // the kernel column: as wide as its longest bench kernel's name
    for (const auto& r : rows)
      if (r.first.rfind("pb_", 0) == 0) name_w = std::max(name_w, r.first.size() + 1);
    o << "\n== " << arch << " ==\n";
    o << pad("kernel", name_w) << pad("regs", 5, true) << pad("spill", 10, true) << pad("stack", 6, true) << pad("smem", 6, true) << " |";
    for (const auto& f : k_families) o << pad(f.shown, std::max<std::size_t>(std::strlen(f.shown) + 1, 5), true);
    o << "\n";
    for (const auto& [sn, mangled] : rows) {
      if (sn.rfind("pb_", 0) != 0) continue;  // bench kernels only
      const auto r = res.count({arch, mangled}) ? res[{arch, mangled}] : resources{};
      o << pad(sn, name_w) << pad(r.regs >= 0 ? std::to_string(r.regs) : "?", 5, true)
        << pad(std::to_string(r.spill_st) + "/" + std::to_string(r.spill_ld), 10, true) << pad(std::to_string(r.stack), 6, true)
        << pad(std::to_string(r.smem), 6, true) << " |";
      const auto it = counts.find({arch, mangled});
      for (int i = 0; i < k_nfam; ++i)
        o << pad(it != counts.end() ? std::to_string(it->second[i]) : "-",
                 std::max<std::size_t>(std::strlen(k_families[i].shown) + 1, 5), true);
      o << "\n";
    }
  }
  if (archs.empty()) o << "\n(no compiler output was found in " << dir.string() << ")\n";
  if (!missing.str().empty()) o << "\nmissing:\n" << missing.str();
  o << "\nReading it: on sm_90 the tma kernels hold bulk.tensor (2D) or bulk (1D) copies and mbarrier waits, the\n"
    << "cp_async kernels cp.async.cg with commit/wait_group, the staged kernels plain 16-byte loads and bar.sync;\n"
    << "on a target without a path's instruction (tma below sm_90, cp.async below sm_80) the copy compiles to a\n"
    << "trap and the rest of the kernel as usual (on sm_80 the tma kernels keep their mbarrier and compute code),\n"
    << "and porter::launch refuses that path on the host before it could run. pb_bf16gemm has the same ldmatrix and\n"
    << "mma.sync counts on every path from sm_80 (one compute, three data paths); on sm_75 its mma.sync compiles to a\n"
    << "trap and porter-bench refuses its rows.\n";

  std::ofstream(argv[2]) << o.str();
  std::ofstream cpp(argv[3]);
  cpp << "// Generated by porter_bench_lowering from the compiler's output; do not edit.\n"
      << "namespace pb {\nextern const char* const lowering_report_text;\nconst char* const lowering_report_text =\n"
      << cpp_escape(o.str()) << "    \"\";\n}  // namespace pb\n";
  return cpp ? 0 : 1;
}
