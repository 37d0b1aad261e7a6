// bench/src/timing.hpp — CUDA-event timing: warm-up apart, per-launch events, medians.
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace pb {

/// How long to measure one variant.
struct timing_budget {
  int warmup = 2;            ///< untimed launches first (module load, clocks, caches)
  int min_reps = 10;         ///< timed launches, at least
  int max_reps = 100;        ///< and at most
  double target_ms = 300;    ///< aim for this much timed GPU time per variant
};

/// The budget of porter-bench's modes: quick (1 warm-up, 5..30 runs, ~60 ms) or full (2, 10..100, ~300 ms).
timing_budget budget_for(bool quick);

/// Statistics of the timed launches, milliseconds.
struct timing {
  double median_ms = 0, min_ms = 0, p10_ms = 0, p90_ms = 0;
  int reps = 0;
};

/// Time `launch(rep)` on stream `s`: `warmup` launches, one estimate, then reps launches each
/// between two events (recorded back to back, so the queue never drains and nothing is allocated
/// between timed launches). `rep` counts the timed launches from 0 (for rotating buffers).
/// Throws std::runtime_error on a CUDA error.
timing time_launches(const std::function<void(int rep)>& launch, cudaStream_t s, const timing_budget& b);

double median(std::vector<double> v);

}  // namespace pb
