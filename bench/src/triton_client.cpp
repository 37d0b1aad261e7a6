// bench/src/triton_client.cpp — runs bench/peers/triton_peers.py, the Triton and torch peers, as a
// child process and merges its rows (bench/src/peer_rows.cpp) into the report.
//
// porter-bench runs it once, after its own workloads (so that the child's compile and autotuning
// time is not charged to porter-bench's sweep budget and both processes never hold their buffers
// at once), when `PYTHON -c "import triton, torch"` works. PYTHON is --python, else
// $PORTER_BENCH_PYTHON, else python3 on PATH; --no-triton skips the peers. The child gets the
// workloads of --only among stream, sgemm and bf16gemm, the device, the mode, porter-bench's timing
// budget (--timing) and L2 size (--l2-bytes, for the buffer-set rule and so the size labels), and a
// time budget of its own (--triton-budget; default 120 s quick, 300 s full) after which it starts no
// new workload; `timeout` ends it 180 s after that budget. Its progress goes to porter-bench's stderr.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bench.hpp"
#include "meta.hpp"
#include "peer_rows.hpp"

namespace pb {
namespace {

std::string sh_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

/// Run `cmd` through the shell: stdout (and stderr when `with_stderr`), and the exit status.
std::string run_capture(const std::string& cmd, bool with_stderr, int& status) {
  std::string out;
  FILE* f = popen((cmd + (with_stderr ? " 2>&1" : "")).c_str(), "r");
  if (!f) {
    status = -1;
    return out;
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  status = pclose(f);
  return out;
}

std::string last_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  const auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

void set_meta(context& cx, const std::string& key, const std::string& value) {
  for (auto& kv : cx.rep.meta)
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  cx.rep.meta.emplace_back(key, value);
}

}  // namespace

std::string peer_python(const options& o) {
  if (!o.python.empty()) return o.python;
  if (const char* e = std::getenv("PORTER_BENCH_PYTHON"); e && *e) return e;
  return "python3";
}

std::string triton_peers_script() {
  const std::string beside = executable_dir() + "/triton_peers.py";  // bench/CMakeLists.txt copies it there
  if (std::ifstream(beside)) return beside;
  return std::string(PB_SOURCE_DIR) + "/bench/peers/triton_peers.py";
}

bool probe_triton(const std::string& python, std::string& versions, std::string& why) {
  int status = 0;
  const std::string out =
      run_capture(sh_quote(python) + " -c 'import triton, torch; print(\"triton\", triton.__version__, \"torch\", torch.__version__)'",
                  true, status);
  if (status == 0) {
    versions = last_line(out);
    return true;
  }
  why = last_line(out);
  if (why.empty()) why = "exit status " + std::to_string(status);
  return false;
}

std::string triton_status_without_gpu(const options& o) {
  if (!o.triton) return "not run (--no-triton)";
  const std::string py = peer_python(o);
  std::string versions, why;
  if (probe_triton(py, versions, why))
    return "not run without a GPU (" + py + " has " + versions + "; " + triton_peers_script() + " would run)";
  return "not run without a GPU; " + py + " -c 'import triton, torch' failed: " + why;
}

void run_triton_peers(context& cx) {
  const options& o = cx.opt;
  if (!o.triton) {
    set_meta(cx, "triton", "not run (--no-triton)");
    return;
  }
  std::string only;
  for (const char* w : {"stream", "sgemm", "bf16gemm"})
    if (o.wants(w)) only += (only.empty() ? "" : ",") + std::string(w);
  if (only.empty()) {
    set_meta(cx, "triton", "not run (--only has none of stream, sgemm, bf16gemm)");
    return;
  }
  const std::string py = peer_python(o);
  std::string versions, why;
  if (!probe_triton(py, versions, why)) {
    set_meta(cx, "triton", "not available: " + py + " -c 'import triton, torch' failed: " + why);
    cx.rep.notes.push_back("Triton peers not run: " + py + " -c 'import triton, torch' failed (" + why +
                           "); --python or PORTER_BENCH_PYTHON choose the interpreter, --no-triton skips the peers");
    cx.progress("Triton peers not run: " + py + " cannot import triton and torch: " + why);
    return;
  }
  const std::string script = triton_peers_script();
  if (!std::ifstream(script)) {
    set_meta(cx, "triton", versions + "; peers not run: " + script + " is missing");
    cx.rep.notes.push_back("Triton peers not run: " + script + " is missing");
    return;
  }
  const double budget = o.triton_budget_s > 0 ? o.triton_budget_s : (o.quick ? 120.0 : 300.0);
  const int limit = int(budget) + 180;  // a workload started just before the budget may compile and tune for minutes
  const timing_budget tb = budget_for(o.quick);
  std::ostringstream cmd;
  if (!shell_output("command -v timeout").empty()) cmd << "timeout -k 10 " << limit << " ";
  cmd << sh_quote(py) << " " << sh_quote(script) << " --device " << o.device << (o.quick ? " --quick" : "") << " --only " << only
      << " --l2-bytes " << cx.caps.l2_bytes << " --budget " << format_double(budget, 0) << " --timing " << tb.warmup << ","
      << tb.min_reps << "," << tb.max_reps << "," << format_double(tb.target_ms, 0);
  cx.progress("Triton peers (" + versions + "): " + cmd.str());
  const double t0 = cx.elapsed_s();
  int status = 0;
  const std::string out = run_capture(cmd.str(), false, status);  // its stderr (progress) passes through
  const double took = cx.elapsed_s() - t0;
  peer_output po = parse_peer_output(out);
  set_meta(cx, "triton", versions);
  for (const auto& [k, v] : po.meta)
    if (k != "triton") set_meta(cx, k, v);
    else set_meta(cx, "triton", v);
  for (const auto& n : po.notes) cx.rep.notes.push_back("Triton peers: " + n);
  if (!po.skipped.empty()) {
    cx.rep.notes.push_back("Triton peers not run: " + po.skipped);
    cx.progress("Triton peers not run: " + po.skipped);
  }
  if (po.malformed) cx.rep.notes.push_back("Triton peers: " + std::to_string(po.malformed) + " lines not understood; first: " + po.first_malformed);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code != 0) {
    const std::string what = code == 124 || code == 137 ? "was stopped after " + std::to_string(limit) + " s (timeout)"
                                                        : "exited with status " + std::to_string(code);
    cx.rep.notes.push_back("Triton peers: " + script + " " + what + "; the rows it printed before are kept (its stderr is in porter-bench's)");
  }
  std::vector<peer_row> rows;
  for (auto& p : po.rows)
    if (!p.self_test) rows.push_back(std::move(p));
  for (const auto& n : merge_peer_rows(cx.rep.rows, rows)) cx.rep.notes.push_back(n);
  for (const auto& p : rows)
    cx.progress("Triton peers: " + p.r.workload + " " + p.r.size + " " + p.r.impl + ": " +
                (p.r.ok() ? format_time(p.r.ms_median) : p.r.status));
  cx.progress("Triton peers: " + std::to_string(rows.size()) + " rows in " + format_double(took, 1) + " s");
}

}  // namespace pb
