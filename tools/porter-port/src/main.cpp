// tools/porter-port/src/main.cpp — the porter-port command line (see --help).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "porter_port/scanner.hpp"

namespace fs = std::filesystem;

namespace {

constexpr const char* usage = R"(usage: porter-port [options] PATH...

Find the hand-written asynchronous-copy sites and pipelines in CUDA C++ files and say, per site,
the idiom, what can be inferred (bytes per copy, zero fill, alignment, completion, stages), the
porter construct that replaces it, and the hazards seen. A folder is scanned recursively for
.cu .cuh .cpp .cc .cxx .c .h .hpp .hh .hxx .inl .ipp files. All files are scanned together: a
wrapper (a function or macro that is not __global__ and holds the instructions) defined in one
file is seen by the files that #include it, and its calls from kernels are the sites.

Idioms: asm-cp-async (inline cp.async.{ca,cg}, commit_group, wait_group, wait_all),
  asm-tma (inline cp.async.bulk[.tensor], mbarrier), pipeline-primitives (__pipeline_*),
  cuda-pipeline (cuda::pipeline, cuda::memcpy_async with a pipeline), cuda-barrier
  (cuda::memcpy_async with a cuda::barrier), cuda-tma (cuda::device::memcpy_async_tx,
  cuda::ptx::cp_async_bulk*, cuda::ptx::mbarrier_*), cooperative-groups
  (cooperative_groups::memcpy_async, wait, wait_prior), cutlass (cp_async_fence,
  cp_async_wait<N>, SM80_CP_ASYNC_*, SM90_TMA_LOAD*, PipelineTmaAsync).
Hazards: parity-from-loop-counter, wait-count-mismatch, generic-store-before-bulk-copy,
  generic-read-before-bulk-refill, untyped-memcpy-async, generic-wmma-load-of-shared.

options:
  --json          write the report as JSON (schema in docs/porting.md) instead of text
  --wrapped       text: also list the instructions inside wrapper definitions
  --summary       text: the first line only (counts)
  -o FILE         write the report to FILE instead of standard output
  --version       print the version and exit 0
  -h, --help      print this and exit 0

exit status:
  0  no site found (nothing to port)
  1  sites found, no hazard
  3  sites or wrapper definitions with at least one hazard
  2  usage error, or a path that cannot be read (nothing is scanned)
)";

bool wanted(const fs::path& p) {
  static const char* exts[] = {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl", ".ipp"};
  const std::string e = p.extension().string();
  return std::any_of(std::begin(exts), std::end(exts), [&](const char* x) { return e == x; });
}

bool read(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool json = false, wrapped = false, summary = false;
  std::string out_path;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage, stdout);
      return 0;
    } else if (a == "--version") {
      std::puts("porter-port " PORTER_PORT_VERSION);
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--wrapped") {
      wrapped = true;
    } else if (a == "--summary") {
      summary = true;
    } else if (a == "-o") {
      if (++i >= argc) {
        std::fprintf(stderr, "porter-port: -o needs a file name\n%s", usage);
        return 2;
      }
      out_path = argv[i];
    } else if (a == "--") {
      for (++i; i < argc; ++i) paths.push_back(argv[i]);
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "porter-port: unknown option '%s' (porter-port --help lists them)\n", a.c_str());
      return 2;
    } else {
      paths.push_back(a);
    }
  }
  if (paths.empty()) {
    std::fprintf(stderr, "porter-port: no file or folder given\n%s", usage);
    return 2;
  }
  std::vector<porter_port::source_file> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && wanted(it->path())) found.push_back(it->path());
      if (ec) {
        std::fprintf(stderr, "porter-port: cannot read folder '%s': %s\n", p.c_str(), ec.message().c_str());
        return 2;
      }
      std::sort(found.begin(), found.end());
      for (const fs::path& f : found) {
        porter_port::source_file s{f.generic_string(), {}};
        if (!read(f, s.text)) {
          std::fprintf(stderr, "porter-port: cannot read '%s'\n", s.path.c_str());
          return 2;
        }
        files.push_back(std::move(s));
      }
    } else {
      porter_port::source_file s{p, {}};
      if (!read(p, s.text)) {
        std::fprintf(stderr, "porter-port: cannot read '%s': no such file or not readable\n", p.c_str());
        return 2;
      }
      files.push_back(std::move(s));
    }
  }
  const porter_port::report r = porter_port::scan(files);
  std::string text = json ? porter_port::to_json(r) : porter_port::to_text(r, wrapped);
  if (summary && !json) text = text.substr(0, text.find('\n') + 1);
  if (out_path.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    std::ofstream o(out_path, std::ios::binary);
    if (!(o << text)) {
      std::fprintf(stderr, "porter-port: cannot write '%s'\n", out_path.c_str());
      return 2;
    }
  }
  if (!r.hazards.empty()) return 3;
  return r.sites.empty() ? 0 : 1;
}
