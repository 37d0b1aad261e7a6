// bench/tests/ncu_target_names.hpp — the ncu targets' names as porter-bench writes them
// (evaluate_ncu_targets, bench/src/analysis.cpp: "<kind prefix><quantity>"), and the lookup by
// prefix, shared by the analysis tests (analysis_test.cpp, synthetic stall lines) and the ncu
// parsing tests (ncu_parse_test.cpp, session 44's recorded output).
#pragma once
#include <string>

#include "bench.hpp"

namespace pb_test {

/// The kinds' name prefixes.
inline const std::string k_sgemm = "ncu sgemm (fp32 FFMA): best porter kernel's ";
inline const std::string k_small = "ncu smallgemm (fp32 FFMA): best porter kernel's ";
inline const std::string k_mma = "ncu bf16gemm mma.sync: best porter kernel's ";
inline const std::string k_wg = "ncu bf16gemm wgmma: best porter kernel's ";
/// The quantities each kind is judged on.
inline const std::string k_ls = "long-scoreboard stalls";
inline const std::string k_fma_pipe = "FMA pipe active";
inline const std::string k_hmma_pipe = "tensor pipe (HMMA) active";

/// The target of cx whose name starts with `prefix` (a default target, empty name, when none).
inline pb::target target_with_prefix(const pb::context& cx, const std::string& prefix) {
  for (const auto& t : cx.rep.targets)
    if (t.name.rfind(prefix, 0) == 0) return t;
  return {};
}

}  // namespace pb_test
