// bench/kernels/bf16gemm_roles_kernels.cu — the mma.sync bf16 GEMM with producer/consumer roles
// (pb_bf16gemm_roles, bf16gemm.cuh) on every path, as bf16gemm rows of impl "porter-roles": one
// producer warpgroup issues the copies through a porter::role_pipeline while pb_bf16gemm's 8 MMA
// warps only wait, load fragments and multiply (bit-identical C: the "porter" checksum family).
// Persistent grid (one CTA per SM), register reallocation per path (bf16gemm_roles_shape).
// Compiled with PORTER_TRAP_MESSAGES=0 and for sm_90a only, like the wgmma kernels
// (bench/CMakeLists.txt: setmaxnreg is an arch-specific feature); with no sm_90 target in
// PORTER_CUDA_ARCHITECTURES (PB_ROLES_NO_TARGETS) it registers nothing.
#include "porter_register.cuh"  // bf16gemm.cuh: pb_bf16gemm_roles

namespace pb {

#if !defined(PB_ROLES_NO_TARGETS)
namespace {
/// pb_bf16gemm_roles on path `Path` with `S` stages and roles `Roles` (add_bf16gemm_role_row).
template <class Path, int S, class Roles>
void add_bf16gemm_roles(registry& r, const char* impl) {
  using namespace bf16gemm_shape;
  using Pipe = porter::role_pipeline<Path, Roles, S, a_box, b_box>;
  add_bf16gemm_role_row<Path, Pipe>(r, &pb_bf16gemm_roles<Path, S, Roles>, "pb_bf16gemm_roles", impl, bf16gemm_roles_shape::min_cc);
}
/// pb_bf16gemm_roles' multicast instantiation (tiles in pairs sharing B): "porter-roles-multicast"
/// in clusters of 2 CTAs, "porter-roles-pairs" the same kernel without clusters (its baseline).
template <class Path, int S, class Roles>
void add_bf16gemm_roles_multicast(registry& r) {
  using namespace bf16gemm_shape;
  using Pipe = porter::role_pipeline<Path, Roles, S, a_box, b_box>;
  auto* k = &pb_bf16gemm_roles<Path, S, Roles, true>;
  add_bf16gemm_role_row<Path, Pipe>(r, k, "pb_bf16gemm_roles", "porter-roles-pairs", bf16gemm_roles_shape::min_cc, 0, true, 1);
  add_bf16gemm_role_row<Path, Pipe>(r, k, "pb_bf16gemm_roles", "porter-roles-multicast", bf16gemm_roles_shape::min_cc, 0, true, 2);
}
}  // namespace
#endif

void register_bf16gemm_roles_kernels(registry& r) {
#if defined(PB_ROLES_NO_TARGETS)
  (void)r;
#else
  using namespace bf16gemm_roles_shape;
  using porter::path::tma;
  using porter::path::cp_async;
  using porter::path::staged;
  add_bf16gemm_roles<tma, 3, roles_tma>(r, "porter-roles");
  add_bf16gemm_roles<tma, 4, roles_tma>(r, "porter-roles");
  add_bf16gemm_roles<cp_async, 3, roles_cp_async>(r, "porter-roles");
  add_bf16gemm_roles<cp_async, 4, roles_cp_async>(r, "porter-roles");
  add_bf16gemm_roles<staged, 3, roles_staged>(r, "porter-roles");
  // Clusters of 2 sharing B by TMA multicast, against the same kernel without clusters (tma only:
  // elsewhere each CTA copies its own B, the "pairs" row).
  add_bf16gemm_roles_multicast<tma, 3, roles_tma>(r);
#endif
}

}  // namespace pb
