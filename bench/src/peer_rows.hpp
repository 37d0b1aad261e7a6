// bench/src/peer_rows.hpp — the rows an external peer prints (bench/peers/triton_peers.py), parsed and
// merged into porter-bench's results. Plain C++ (no CUDA): the host test bench/tests/peer_rows_test.cpp
// runs it without a GPU.
//
// The peer prints one line per item on stdout, "PBPEER " followed by a flat JSON object:
//   {"type": "meta", "key": K, "value": V}           run metadata (triton, torch versions, ...)
//   {"type": "note", "text": T}                      a sentence for the report's notes
//   {"type": "skip", "reason": R}                    the peer did not run (no triton, torch or GPU)
//   {"type": "row", "workload": W, "size": S, "impl": I, "kernel": K, "config": C, "status": "ok" |
//    "FAILED: ..." | "skipped: ...", "check": ..., "checksum": "%016x", "ms_median": ..., "ms_min",
//    "ms_p10", "ms_p90", "reps", "bytes", "flops", "unit": "GB/s" | "TFLOP/s", "ceiling": ...,
//    "ceiling_stand_in": bool, "self_test": bool, ...}   (unknown keys are ignored)
// Lines without the prefix (warnings of the libraries the peer loads) are ignored.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report.hpp"

namespace pb {

/// A flat JSON object: string, number, true/false (as 1/0) and null (absent) values.
struct flat_json {
  std::map<std::string, std::string> str;
  std::map<std::string, double> num;
  std::string s(const std::string& key, const std::string& fallback = "") const;
  double d(const std::string& key, double fallback = 0) const;
};

/// Parse one flat JSON object; false (and why in *error) on anything else: nested objects or
/// arrays, bad escapes, trailing text.
bool parse_flat_json(const std::string& text, flat_json& out, std::string* error = nullptr);

/// A peer's measured (or failed, or skipped) result.
struct peer_row {
  row r;                         ///< workload, size, impl, kernel [config], status, check, times, bytes, flops, unit, ceiling
  std::string config;            ///< the configuration its autotuner kept ("" for library calls)
  std::string checksum;          ///< porter-bench's checksum of the output ("" when not computed)
  bool ceiling_stand_in = false; ///< stands in for the ceiling when porter-bench has no rows of this workload and size
  bool self_test = false;        ///< a --self-test fixture, never a measurement
};

struct peer_output {
  std::vector<peer_row> rows;
  std::vector<std::pair<std::string, std::string>> meta;
  std::vector<std::string> notes;
  std::string skipped;           ///< non-empty: the peer did not run, and why (its own words)
  int other_lines = 0;           ///< lines without the prefix
  int malformed = 0;             ///< prefixed lines that did not parse or lacked a field
  std::string first_malformed;   ///< the first of them, and why
};

/// Every PBPEER line of `text` (a peer's stdout).
peer_output parse_peer_output(const std::string& text);

/// The first word of a size label: "4096^3 x2" -> "4096^3".
std::string size_key(const std::string& size);

/// Merge peer rows into `rows`. A peer row joins the porter-bench rows of its workload whose size
/// has the same first word ("8192^3", "2^28"): it takes their size label, bytes, flops and unit
/// (porter-bench's definitions), its rate is recomputed from its median, its ratio is against the
/// same ceiling as theirs (rate / ratio of any row of the group with both), its check notes whether
/// its checksum equals porter's (the first porter row of the group that has one), and it is
/// inserted after the group's last row. A peer row without such a group stands on its own, after
/// all rows, in the order printed, its ratio against the group's ceiling stand-in (torch's
/// cudaMemcpy D2D or cuBLAS call at the same size) when that row is ok. Returns notes for the report.
std::vector<std::string> merge_peer_rows(std::vector<row>& rows, const std::vector<peer_row>& peers);

}  // namespace pb
