// bench/kernels/bf16gemm_wgmma_kernels.cu — the warpgroup-MMA bf16 GEMM (bf16gemm_wgmma.cuh) on every
// path, as bf16gemm rows of impl "porter-wgmma": one producer warpgroup and two consumer warpgroups
// through a porter::role_pipeline, persistent grid (one CTA per SM: 192 KiB of ring), 3 and 4
// stages (4 is the default), and on tma "porter-wgmma-setmaxnreg" (the roles with register
// reallocation) and "porter-wgmma-setmaxnreg-l2hint" (the same with L2 hints; only tma issues
// hints). Compiled with PORTER_TRAP_MESSAGES=0 (bench/CMakeLists.txt; porter/detail/trap.hpp says
// why: a printf call in the kernel serializes its wgmma). Built for sm_90a only (bench/CMakeLists.txt:
// wgmma is an arch-specific feature); with no sm_90 target in PORTER_CUDA_ARCHITECTURES
// (PB_WGMMA_NO_TARGETS) it registers nothing and the wgmma target line reads n/a.
#include "porter_register.cuh"
#if !defined(PB_WGMMA_NO_TARGETS)
#include "bf16gemm_wgmma.cuh"
#endif

namespace pb {

#if !defined(PB_WGMMA_NO_TARGETS)
namespace {
/// The wgmma kernel on path `Path` with `S` stages (add_bf16gemm_role_row: persistent, launched
/// with uses_role_pipeline).
template <class Path, int S, class Roles = bf16gemm_wgmma_shape::roles, porter::cache_hint HA = porter::cache_hint::none,
          porter::cache_hint HB = porter::cache_hint::none>
void add_bf16gemm_wgmma(registry& r, const char* impl) {
  using namespace bf16gemm_wgmma_shape;
  using Pipe = porter::role_pipeline<Path, Roles, S, a_box, b_box>;
  static_assert(int(Pipe::threads) == threads, "pb_bf16gemm_wgmma runs bf16gemm_wgmma_shape::threads threads");
  add_bf16gemm_role_row<Path, Pipe>(r, &pb_bf16gemm_wgmma<Path, S, Roles, HA, HB>, "pb_bf16gemm_wgmma", impl, min_cc,
                                    default_stages_bf16gemm_wgmma);
}

/// The setmaxnreg wgmma kernel's multicast instantiation (tiles in pairs sharing B), tma:
/// "porter-wgmma-setmaxnreg-multicast" in clusters of 2 CTAs, "porter-wgmma-setmaxnreg-pairs" the
/// same kernel without clusters (its baseline).
template <int S>
void add_bf16gemm_wgmma_multicast(registry& r) {
  using namespace bf16gemm_wgmma_shape;
  using Path = porter::path::tma;
  using Pipe = porter::role_pipeline<Path, roles_setmaxnreg, S, a_box, b_box>;
  auto* k = &pb_bf16gemm_wgmma<Path, S, roles_setmaxnreg, porter::cache_hint::none, porter::cache_hint::none, true>;
  add_bf16gemm_role_row<Path, Pipe>(r, k, "pb_bf16gemm_wgmma", "porter-wgmma-setmaxnreg-pairs", min_cc, S, true, 1);
  add_bf16gemm_role_row<Path, Pipe>(r, k, "pb_bf16gemm_wgmma", "porter-wgmma-setmaxnreg-multicast", min_cc, S, true, 2);
}
template <int S>
void add_bf16gemm_wgmma_paths(registry& r) {
  add_bf16gemm_wgmma<porter::path::tma, S>(r, "porter-wgmma");
  add_bf16gemm_wgmma<porter::path::cp_async, S>(r, "porter-wgmma");
  add_bf16gemm_wgmma<porter::path::staged, S>(r, "porter-wgmma");
}
}  // namespace
#endif

void register_bf16gemm_wgmma_kernels(registry& r) {
#if defined(PB_WGMMA_NO_TARGETS)
  (void)r;
#else
  add_bf16gemm_wgmma_paths<default_stages_bf16gemm_wgmma>(r);
  add_bf16gemm_wgmma_paths<3>(r);
  // The same kernel with register reallocation (producers 40, consumers 232: setmaxnreg), tma only.
  add_bf16gemm_wgmma<porter::path::tma, default_stages_bf16gemm_wgmma, bf16gemm_wgmma_shape::roles_setmaxnreg>(
      r, "porter-wgmma-setmaxnreg");
  // L2 hints (porter/cache_hint.hpp): A evict_last, B evict_first. In the grouped order a wave of
  // 132 tiles covers 8 tile rows x 16.5 columns and the next wave the other 15.5 columns of the same
  // 8 rows, so A's 8 row blocks (16 MiB at 8192^3) are read again while B's (4 MiB each) are not.
  add_bf16gemm_wgmma<porter::path::tma, default_stages_bf16gemm_wgmma, bf16gemm_wgmma_shape::roles_setmaxnreg,
                     porter::cache_hint::evict_last, porter::cache_hint::evict_first>(r, "porter-wgmma-setmaxnreg-l2hint");
  // Clusters of 2 CTAs sharing B by TMA multicast, against the same kernel without clusters.
  add_bf16gemm_wgmma_multicast<default_stages_bf16gemm_wgmma>(r);
#endif
}

}  // namespace pb
