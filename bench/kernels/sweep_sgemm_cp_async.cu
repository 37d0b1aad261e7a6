// bench/kernels/sweep_sgemm_cp_async.cu — sgemm porter kernels, path cp_async, stages 1..8 except the default.
#include "sweep_common.cuh"

namespace pb {
void register_sweep_sgemm_cp_async(registry& r) { register_sweep_sgemm<porter::path::cp_async>(r); }
}  // namespace pb
