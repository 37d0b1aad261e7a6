// bench/src/ncu.hpp — stall reasons per path through Nsight Compute.
#pragma once
#include <string>

#include "bench.hpp"

namespace pb {

/// Run ncu (--clock-control none) on one launch of each path's kernel of every workload (this
/// executable re-run with --ncu-child) and add long-scoreboard stall %, FMA-pipe-active % and a few
/// more metrics per kernel to the report. Without ncu, or when it cannot read the counters, the
/// report says so (stalls_note) and nothing fails. Writes ncu's raw output to <out>/ncu_raw.txt.
void run_ncu(context& cx, const std::string& self);

/// The child side: launch each profiled kernel once, printing "PBNCU <index> <kernel> <label>"
/// before each, so that the parent can match ncu's rows (in launch order) to labels
/// (parse_ncu_output, ncu_parse.hpp).
int ncu_child(context& cx);

}  // namespace pb
