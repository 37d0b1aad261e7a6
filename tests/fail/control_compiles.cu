// tests/fail/control_compiles.cu — positive control: the correct form of every misuse in tests/fail must compile (proves the harness).
#include <porter/porter.hpp>

#include <utility>

using tile = porter::box<float, 8, 32>;
using side = porter::box<std::uint16_t, 64>;
struct rgba { unsigned char r, g, b, a; };  // 4 bytes: a legal element
using pixels = porter::box<rgba, 4, 16>;
// Swizzled boxes: rank >= 2, an unswizzled box, a row of exactly one span.
static_assert(porter::swizzled<porter::box<float, 8, 32>, porter::swizzle::b128>::bytes == 1024, "128 B rows in 128 B mode");
static_assert(porter::swizzled<porter::box<unsigned short, 64, 32>, porter::swizzle::b64>::bytes == 4096, "64 B rows in 64 B mode");

template <class Path>
__global__ void control(const __grid_constant__ porter::tiled_source<tile> src, const __grid_constant__ porter::tiled_source<pixels> img,
                        const std::uint16_t* raw, float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, tile, side> pipe(smem);             // 1..8 stages, path tag first
  porter::pipeline<Path, 8, pixels> deep(smem + decltype(pipe)::shared_bytes);
  auto slot = pipe.producer_acquire();
  auto moved = std::move(slot);                                 // tokens move; they do not copy
  porter::async_copy(moved, src, porter::coord<2>{0, 0});       // box types match
  porter::async_copy(porter::buffer<1>(moved), raw, 64 * sizeof(std::uint16_t));
  pipe.producer_commit(moved);
  auto ready = pipe.consumer_wait();
  out[threadIdx.x] = ready.template tile<0>()(1, 2) + float(ready.template tile<1>()(3));  // one index per dimension
  pipe.consumer_release(ready);
  auto s2 = deep.producer_acquire();
  porter::async_copy(s2, img, porter::coord<2>{0, 0});
  deep.producer_commit(s2);
  auto r2 = deep.consumer_wait();
  out[threadIdx.x] += float(r2.tile()(0, 1).g);
  deep.consumer_release(r2);
}
template __global__ void control<porter::path::tma>(const __grid_constant__ porter::tiled_source<tile>,
                                                    const __grid_constant__ porter::tiled_source<pixels>, const std::uint16_t*, float*);
template __global__ void control<porter::path::staged>(const __grid_constant__ porter::tiled_source<tile>,
                                                       const __grid_constant__ porter::tiled_source<pixels>, const std::uint16_t*, float*);

void host_launch(const porter::tiled_source<tile>& src, const porter::tiled_source<pixels>& img, const std::uint16_t* raw, float* out) {
  // automatic is resolved on the host: the launch gets every instantiation of the kernel template.
  porter::launch<porter::path::automatic>(porter::kernel_family{[](auto p) { return &control<decltype(p)>; }}, dim3(1), dim3(128), 0,
                                          nullptr, src, img, raw, out);
  porter::launch<porter::path::staged>(&control<porter::path::staged>, dim3(1), dim3(128), 0, nullptr, src, img, raw, out);
  // The family form forced to one path returns that path's constant choice (no string per call).
  const porter::path_choice& forced = porter::launch<porter::path::staged>(
      porter::kernel_family{[](auto p) { return &control<decltype(p)>; }}, dim3(1), dim3(128), 0, nullptr, src, img, raw, out);
  const porter::path_choice copied = porter::launch<porter::path::automatic>(
      porter::kernel_family{[](auto p) { return &control<decltype(p)>; }}, dim3(1), dim3(128), 0, nullptr, src, img, raw, out);
  (void)forced, (void)copied;
}

// The correct form of launch_struct_without_hook.cu: the struct names its source with the hook, and
// an aggregate of plain fields is visited without one; both launch forms take launch options with
// a cluster and a dependent launch.
struct hooked_params {
  porter::tiled_source<tile> src;
  int offsets[4];
  template <class F>
  void porter_sources(F&& f) const { f(src); }
};
struct plain_params {
  int n;
  porter::tiled_source<tile> src;
};
__global__ void k_hooked(const __grid_constant__ hooked_params p, const __grid_constant__ plain_params q, float* out) {
  if (porter::cluster_rank() == 0) porter::wait_prior_grid();
  out[threadIdx.x] = float(p.offsets[0] + q.n) + float(porter::cluster_size());
  porter::cluster_sync();
  porter::launch_dependents();
}
void host_launch_struct(const hooked_params& p, const plain_params& q, float* out) {
  porter::launch<porter::path::tma>(porter::launch_options{}.cluster(dim3(2)).programmatic_dependent_launch(), &k_hooked, dim3(2),
                                    dim3(32), 0, nullptr, p, q, out);
  porter::launch<porter::path::staged>(&k_hooked, dim3(1), dim3(32), 0, nullptr, p, q, out);
}
// An aggregate with empty members (tags) is visited too: the empty ones are skipped.
struct mode_tag {};
struct tagged_params {
  mode_tag mode;
  int n;
  porter::tiled_source<tile> src;
  mode_tag end;
};
__global__ void k_tagged(const __grid_constant__ tagged_params p, float* out) { out[threadIdx.x] = float(p.n); }
void host_launch_tagged(const tagged_params& p, float* out) {
  porter::launch<porter::path::staged>(&k_tagged, dim3(1), dim3(32), 0, nullptr, p, out);
}

// The correct forms of the fragment misuses (fragment_*.cu, wgmma_descriptor_dense_box.cu).
using frag_tile = porter::swizzled<porter::box<std::uint16_t, 32, 64>, porter::swizzle::b128>;
__global__ void control_fragments(std::uint16_t* smem_tile, unsigned* out, unsigned long long* desc) {
  const porter::tile_view<frag_tile> t(smem_tile);
  const porter::fragment<1> a = porter::load_fragments<8, 8>(t, 0, 0);
  const porter::fragment<4> b = porter::load_fragments<32, 8, true>(t, 0, 0);
  out[threadIdx.x] = a.reg[0] + b.reg[3];
  desc[threadIdx.x] = porter::wgmma_descriptor(t, 8, 16);
}

// The correct forms of the role misuses (roles_registers_not_warpgroups.cu, roles_registers_over_pool.cu,
// role_pipeline_not_roles.cu): 88 x 128 + 208 x 256 fills the 64,512-register pool exactly.
using ctl_roles = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>, porter::registers<40, 232>>;
using ctl_roles_full_pool = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>, porter::registers<88, 208>>;
static_assert(ctl_roles_full_pool::register_pool == 64512u, "384 threads hold 168 registers each");
__global__ void control_roles(const __grid_constant__ porter::tiled_source<tile> src, float* out) {
  extern __shared__ unsigned char smem[];
  porter::role_pipeline<porter::path::tma, ctl_roles, 2, tile> pipe(smem);
  pipe.enter_role();
  if (pipe.is_producer()) {
    auto slot = pipe.producer_acquire();
    porter::async_copy(slot, src, porter::coord<2>{0, 0});
    pipe.producer_commit(slot);
  } else {
    auto ready = pipe.consumer_wait();
    out[threadIdx.x] = ready.tile()(0, 1);
    pipe.consumer_release(ready);
  }
}
// A kernel with a role pipeline is launched with the option that declares it (the launch then
// refuses devices and binaries the role protocol cannot run on).
void host_launch_roles(const porter::tiled_source<tile>& src, float* out) {
  using pipe = porter::role_pipeline<porter::path::tma, ctl_roles, 2, tile>;
  porter::launch<porter::path::tma>(porter::launch_options{}.uses_role_pipeline(), &control_roles, dim3(1), dim3(pipe::threads),
                                    pipe::shared_bytes, nullptr, src, out);
}
