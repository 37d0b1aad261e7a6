// bench/kernels/default_kernels.cu — porter kernels at the default stage counts, every path.
// Compiled for every target in PORTER_CUDA_ARCHITECTURES.
#include "porter_register.cuh"

namespace pb {

namespace {
struct add_defaults {
  registry& r;
  template <class Path>
  void operator()() const {
    registry& reg = r;
    for_each_schedule([&reg](sched_mode m) {
      add_stream<Path, default_stages_stream>(reg, m);
      add_stencil<Path, default_stages_stencil, 1>(reg, m);
      add_stencil<Path, default_stages_stencil, 2>(reg, m);
      add_sgemm<Path, default_stages_sgemm>(reg, m);
      add_smallgemm<Path, default_stages_smallgemm>(reg, m);
    });
    add_sgemm_nested<Path, default_stages_sgemm>(reg);
    add_sgemm_swizzled<Path, default_stages_sgemm>(reg);
    // x read with L2 hint evict_first (porter/cache_hint.hpp): only tma issues hints (cp_async and
    // staged take them and issue nothing: the same kernel as the "porter" row).
    if constexpr (std::is_same_v<Path, porter::path::tma>)
      add_stream<Path, default_stages_stream, porter::cache_hint::evict_first>(reg, sched_mode::planned);
    add_copy2d<Path, default_stages_copy2d_of<Path>>(reg, sched_mode::planned);
    add_copy2d<Path, default_stages_copy2d_of<Path>>(reg, sched_mode::per_tile);
    add_transpose<Path, default_stages_transpose, porter::swizzle::b128>(reg);
    add_transpose<Path, default_stages_transpose, porter::swizzle::none>(reg);
  }
};
}  // namespace

void register_default_kernels(registry& r) {
  for_each_path(add_defaults{r});
  add_automatic<default_stages_stream, default_stages_stencil, default_stages_sgemm, default_stages_smallgemm>(r);
}

}  // namespace pb
