// bench/src/ncu_parse.hpp — the metrics porter-bench asks Nsight Compute for, and the reading of
// ncu's output into stall lines. Plain C++ (no CUDA): run_ncu (ncu.cpp) runs ncu and calls
// parse_ncu_output on what it printed; the host tests feed it a recorded output
// (bench/tests/data/ncu_raw_h100_session44_excerpt.txt) without ncu or a GPU.
#pragma once
#include <string>
#include <vector>

#include "report.hpp"

namespace pb {

/// One metric: ncu's name, and the name the stall table and the stall lines show it by.
struct ncu_metric {
  std::string name;
  std::string shown;
};

/// The metrics run_ncu asks for, in the order the stall table shows them.
const std::vector<ncu_metric>& ncu_metrics();

/// Nanoseconds per `unit` of a duration as ncu's units row names it ("ns", "us", "ms", "s" from
/// ncu 2025.x; "nsecond", "usecond", "msecond", "second" from older versions); 0 when it is not one.
double ncu_ns_per(const std::string& unit);

/// What parse_ncu_output read: one stall line per profiled kernel (in ncu's order), and the note
/// the report prints above them (dropped metrics, a label/row count mismatch, or why there is none).
struct ncu_parsed {
  std::vector<stall_line> stalls;
  std::string note;
};

/// Read ncu's `--csv --page raw` output as porter-bench's ncu child run leaves it: the child's
/// "PBNCU <index> <kernel> <label>" lines (one before each launch), ncu's header row ("ID", ...,
/// the metric names), its units row (first field empty) and one row per profiled kernel; other
/// lines (==PROF==, ==WARNING==, the child's own messages) are skipped, ==ERROR== lines kept for the
/// note. Columns are found by name. Rows are matched to labels BY ORDER: the r-th row gets the r-th
/// PBNCU label (neither the PBNCU index nor ncu's ID is read), and a row whose kernel name does not
/// contain that label's kernel is marked "(order mismatch: ...)" and names no variant. `metrics` are
/// the metrics that were asked for and collected (each line lists them all, "n/a" when its row lacks
/// one); `dropped` those ncu did not know, named in the note. Derived metrics: smem_ld_wavefronts_per_load
/// and time_ns (gpu__time_duration in ns, its unit from the units row).
ncu_parsed parse_ncu_output(const std::string& out, const std::vector<ncu_metric>& metrics, const std::vector<std::string>& dropped);

}  // namespace pb
