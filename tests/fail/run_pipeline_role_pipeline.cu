// tests/fail/run_pipeline_role_pipeline.cu — must not compile: porter::for_each_tile (run_pipeline)
// over a role pipeline, whose calls are per role (every thread would produce and consume).
#include <porter/porter.hpp>

using b = porter::box<float, 8, 32>;
using r = porter::roles<porter::warps<1>, porter::warps<4>>;

__global__ void k(const __grid_constant__ porter::tiled_source<b> src, float* out) {
  extern __shared__ unsigned char smem[];
  porter::role_pipeline<porter::path::tma, r, 2, b> pipe(smem);
  porter::for_each_tile(
      pipe, src, 4, [](int i) { return porter::coord<2>{8 * i, 0}; },
      [&](porter::tile_view<b> t, int i) { out[i] = t(0, 0); });
}
