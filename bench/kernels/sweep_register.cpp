// bench/kernels/sweep_register.cpp — collects the stage-sweep translation units (host only).
#include "../src/variants.hpp"

namespace pb {
void register_sweep_stream(registry& r);
void register_sweep_stencil_r1(registry& r);
void register_sweep_stencil_r2(registry& r);
void register_sweep_sgemm_tma(registry& r);
void register_sweep_sgemm_cp_async(registry& r);
void register_sweep_sgemm_staged(registry& r);
void register_sweep_smallgemm(registry& r);
void register_sweep_bf16gemm(registry& r);

void register_sweep_kernels(registry& r) {
  register_sweep_stream(r);
  register_sweep_stencil_r1(r);
  register_sweep_stencil_r2(r);
  register_sweep_sgemm_tma(r);
  register_sweep_sgemm_cp_async(r);
  register_sweep_sgemm_staged(r);
  register_sweep_smallgemm(r);
  register_sweep_bf16gemm(r);
}
const char* sweep_architectures() { return PB_SWEEP_ARCHS; }
}  // namespace pb
