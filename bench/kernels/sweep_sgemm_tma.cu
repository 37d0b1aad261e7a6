// bench/kernels/sweep_sgemm_tma.cu — sgemm porter kernels, path tma, stages 1..8 except the default.
#include "sweep_common.cuh"

namespace pb {
void register_sweep_sgemm_tma(registry& r) { register_sweep_sgemm<porter::path::tma>(r); }
}  // namespace pb
