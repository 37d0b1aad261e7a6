// bench/kernels/bf16gemm_kernels.cu — the bf16 tensor-core GEMM (bf16gemm.cuh) at its default stage
// count on every path and schedule, and its path::automatic row. Compiled for every target in
// PORTER_CUDA_ARCHITECTURES (below sm_80 the kernels are trap stubs and the rows are refused on the
// host: bf16gemm_shape::min_cc). Its own translation unit, so that it compiles beside the others.
#include "porter_register.cuh"

namespace pb {

namespace {
struct add_bf16gemm_defaults {
  registry& r;
  template <class Path>
  void operator()() const {
    registry& reg = r;
    for_each_schedule([&reg](sched_mode m) { add_bf16gemm<Path, default_stages_bf16gemm>(reg, m); });
  }
};
}  // namespace

void register_bf16gemm_kernels(registry& r) {
  for_each_path(add_bf16gemm_defaults{r});
  add_automatic_bf16gemm<default_stages_bf16gemm>(r);
}

}  // namespace pb
