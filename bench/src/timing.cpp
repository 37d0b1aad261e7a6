// bench/src/timing.cpp — see timing.hpp.
#include "timing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace pb {
namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * double(sorted.size() - 1);
  const std::size_t i = std::size_t(std::floor(pos));
  const double f = pos - double(i);
  return i + 1 < sorted.size() ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i];
}
}  // namespace

timing_budget budget_for(bool quick) {
  timing_budget b;
  if (quick) {
    b.warmup = 1;
    b.min_reps = 5;
    b.max_reps = 30;
    b.target_ms = 60;
  } else {
    b.warmup = 2;
    b.min_reps = 10;
    b.max_reps = 100;
    b.target_ms = 300;
  }
  return b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return quantile(v, 0.5);
}

timing time_launches(const std::function<void(int)>& launch, cudaStream_t s, const timing_budget& b) {
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "cudaEventCreate");
  check(cudaEventCreate(&e1), "cudaEventCreate");
  // Warm-up, then one timed launch for an estimate of how many fit the budget.
  for (int i = 0; i < b.warmup; ++i) launch(i);
  check(cudaEventRecord(e0, s), "cudaEventRecord");
  launch(0);
  check(cudaEventRecord(e1, s), "cudaEventRecord");
  check(cudaEventSynchronize(e1), "warm-up run");
  float est = 0;
  check(cudaEventElapsedTime(&est, e0, e1), "cudaEventElapsedTime");
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  int reps = est > 0 ? int(std::ceil(b.target_ms / double(est))) : b.max_reps;
  reps = std::clamp(reps, b.min_reps, b.max_reps);

  std::vector<cudaEvent_t> ev(2 * std::size_t(reps));
  for (auto& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
  launch(1);  // keep the GPU busy while the timed launches are queued behind it
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(ev[2 * r], s), "cudaEventRecord");
    launch(r);
    check(cudaEventRecord(ev[2 * r + 1], s), "cudaEventRecord");
  }
  check(cudaEventSynchronize(ev.back()), "timed runs");
  std::vector<double> ms(reps);
  for (int r = 0; r < reps; ++r) {
    float t = 0;
    check(cudaEventElapsedTime(&t, ev[2 * r], ev[2 * r + 1]), "cudaEventElapsedTime");
    ms[r] = t;
  }
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  timing t;
  t.reps = reps;
  t.median_ms = quantile(ms, 0.5);
  t.min_ms = ms.front();
  t.p10_ms = quantile(ms, 0.1);
  t.p90_ms = quantile(ms, 0.9);
  return t;
}

}  // namespace pb
