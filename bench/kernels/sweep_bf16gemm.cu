// bench/kernels/sweep_bf16gemm.cu — bf16gemm porter kernels at the other stage counts that fit an
// H200's 227 KiB per CTA (48 KiB per stage: 1..4; 3 is the default, in bf16gemm_kernels.cu), every
// path, for the stage sweep.
#include "sweep_common.cuh"

namespace pb {
void register_sweep_bf16gemm(registry& r) {
  auto add = [&r](auto s) {
    constexpr int S = decltype(s)::value;
    for_each_schedule([&](sched_mode m) {
      add_bf16gemm<porter::path::tma, S>(r, m);
      add_bf16gemm<porter::path::cp_async, S>(r, m);
      add_bf16gemm<porter::path::staged, S>(r, m);
    });
  };
  add(std::integral_constant<int, 1>{});
  add(std::integral_constant<int, 2>{});
  add(std::integral_constant<int, 4>{});
}
}  // namespace pb
