// bench/kernels/sweep_sgemm_staged.cu — sgemm porter kernels, path staged, stages 1..8 except the default.
#include "sweep_common.cuh"

namespace pb {
void register_sweep_sgemm_staged(registry& r) { register_sweep_sgemm<porter::path::staged>(r); }
}  // namespace pb
