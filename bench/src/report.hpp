// bench/src/report.hpp — porter-bench's results: rows, targets, planner lines, stall reasons, and
// their table (stdout), CSV and JSON forms.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pb {

/// One measured (or skipped, or failed) implementation of one workload at one size.
struct row {
  std::string workload;     ///< stream | stencil2d-r1 | stencil2d-r2 | sgemm | smallgemm
  std::string size;         ///< e.g. "2^28 fp32", "16384^2 fp32", "8192^3", "2048^3 x4"
  std::string impl;         ///< porter | manual | manual-cuda-pipeline | memcpy | copy-kernel | cub | cublas |
                            ///< kokkos-range | kokkos-range-vec4 | kokkos-mdrange | kokkos-team
  std::string path = "-";   ///< tma | cp_async | staged | - (porter::path_name, or the hand-written pipeline's)
  int stages = 0;           ///< pipeline stages (0: not a pipeline)
  bool sweep_only = false;  ///< a stage-sweep point (not a row of the main table)
  std::string kernel;       ///< kernel function name (as ncu shows it)
  int threads = 0, ctas_per_sm = 0, grid = 0, regs = 0, local_bytes = 0;
  long long smem = 0;       ///< dynamic shared memory per CTA, bytes
  double ms_median = 0, ms_min = 0, ms_p10 = 0, ms_p90 = 0;
  int reps = 0;
  double bytes = 0;         ///< bytes counted per run (read + written)
  double flops = 0;         ///< floating-point operations per run
  double rate = 0;          ///< GB/s (1e9 B/s) or TFLOP/s
  std::string unit;         ///< "GB/s" or "TFLOP/s"
  double ratio = 0;         ///< rate / ceiling rate
  std::string ceiling;      ///< the ceiling of its kind, e.g. "cudaMemcpy D2D", "cuBLAS"
  std::string status = "ok";  ///< ok | FAILED: ... | skipped: ... | refused: ...
  std::string check;        ///< what the correctness check found
  /// A paired re-timing against another row of the same workload and size: porter/automatic
  /// against the fastest forced path, or the planner's point (the "porter" row at the planned stage
  /// count) against the best point of the sweep. The median over `paired_rounds` rounds of this
  /// row's rate over `paired_with`'s, the two timed back to back in alternating order (ABBA), so
  /// that clock and power drift between rows measured minutes apart cancels. 0 when not paired.
  double paired_ratio = 0;
  int paired_rounds = 0;
  std::string paired_with;  ///< label of the other row: impl/path S=stages
  bool ok() const { return status == "ok"; }
  /// "impl/path S=stages" (the path and stages only when the row has them).
  std::string label() const {
    return impl + (path != "-" ? "/" + path : "") + (stages ? " S=" + std::to_string(stages) : "");
  }
};

/// A target of the issue and how the run did against it.
struct target {
  std::string name;         ///< e.g. "stream: tma >= 1.00x cudaMemcpy D2D"
  double value = 0;         ///< measured ratio
  double goal = 0;          ///< required ratio
  std::string verdict;      ///< PASS | MISS | n/a
  std::string detail;       ///< numbers behind it, and for a miss: by how much and the likely reason
};

/// The planner's recommendation beside the sweep.
struct planner_line {
  std::string workload, path;
  int planned = 0, best = 0;         ///< stages
  double planned_rate = 0, best_rate = 0;  ///< the two rows' own medians as rates
  std::string unit;
  std::string best_label;            ///< the best point's row, "impl/path S=stages" (row::label)
  /// The planned row re-timed against the best point in alternating rounds (row::paired_ratio):
  /// planned's rate over best's; 0 rounds when not paired (then the target takes the medians' ratio).
  double paired_ratio = 0;
  int paired_rounds = 0;
  std::string reason;
  /// planned_rate / best_rate, the two medians' ratio (0 when either is missing).
  double unpaired_ratio() const { return best_rate > 0 && planned_rate > 0 ? planned_rate / best_rate : 0; }
  /// The ratio the planner target judges: the paired one when there is one, else unpaired_ratio().
  double ratio() const { return paired_rounds > 0 ? paired_ratio : unpaired_ratio(); }
};

/// ncu metrics of one kernel launch.
struct stall_line {
  std::string label;        ///< e.g. "stream porter/tma S=4", "sgemm 4096^3 porter/tma S=4"
  std::string kernel;       ///< kernel name as ncu printed it
  /// The variant the label names (parse_stall_label); empty and 0 when it names none (the copy
  /// kernel) or when ncu's kernel did not match the one the child launched at that place.
  std::string workload, size, impl, path;
  int stages = 0;
  std::vector<std::pair<std::string, std::string>> metrics;  ///< metric -> value (as printed)
  /// The metric shown as `name` as a number (metric_number), nullopt when the line lacks it or ncu
  /// printed no number ("n/a").
  std::optional<double> number(const std::string& name) const;
};

/// A value as ncu's CSV prints it: "74.83", "402,653,184" (thousands separators); nullopt when it is
/// not a number ("n/a", empty).
std::optional<double> metric_number(const std::string& v);

/// Fill s.workload, s.size, s.impl, s.path and s.stages from `label` as the ncu child writes it:
/// "<workload>[ <size>] <impl>/<path> S=<stages>", e.g. "bf16gemm 4096^3 porter-wgmma/tma S=4" or
/// "ports/cutlass porter/tma S=4". False, and `s` unchanged, when the label has no "<impl>/<path>
/// S=<n>" tail (e.g. "stream copy-kernel").
bool parse_stall_label(const std::string& label, stall_line& s);

/// Which mechanism moved each porter path's bytes on one workload (porter::copy_mechanisms over
/// the workload's copies, every source of a step summed).
struct mechanism_line {
  std::string workload, path;
  std::vector<std::pair<std::string, double>> fractions;  ///< mechanism name -> fraction of the bytes (only those > 0)
  std::string detail;       ///< copy_mechanisms' description, and the first fallback if any
};

struct report {
  std::vector<std::pair<std::string, std::string>> meta;  ///< device, clocks, driver, CUDA, commit, ...
  std::vector<row> rows;
  std::vector<target> targets;
  std::vector<planner_line> planner;
  std::vector<mechanism_line> mechanisms;
  std::vector<stall_line> stalls;
  std::string stalls_note;       ///< why stall reasons are missing or partial
  std::vector<std::string> notes;

  /// The main table (default-stage rows and baselines), the stage sweep, the planner, the targets.
  std::string table() const;
  std::string csv() const;
  std::string json() const;
  bool any_failed() const;
};

/// The "Bytes per mechanism" section of the table (empty when there are no lines).
std::string mechanisms_table(const std::vector<mechanism_line>& mechanisms);

/// "1.23 ms" / "456.7 us".
std::string format_time(double ms);
std::string format_double(double v, int precision);

}  // namespace pb
