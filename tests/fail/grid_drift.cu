// tests/fail/grid_drift.cu — must not compile: a grid control whose cluster_rank returns `int`
// where the reference returns `unsigned`.
#include "backends/conformance.hpp"
#include "porter/grid/control.hpp"

struct drifted {
  static constexpr const char* instructions = porter::backend::grid_control::instructions;
  static __device__ int cluster_rank() { return int(porter::backend::grid_control::cluster_rank()); }
  static __device__ unsigned cluster_size() { return porter::backend::grid_control::cluster_size(); }
  static __device__ void cluster_sync() { porter::backend::grid_control::cluster_sync(); }
  static __device__ void wait_prior_grid() { porter::backend::grid_control::wait_prior_grid(); }
  static __device__ void launch_dependents() { porter::backend::grid_control::launch_dependents(); }
};
static_assert(porter::backend::check_grid_conformance<drifted>(), "the drifted grid control is caught");
