// tests/fail/role_pipeline_not_roles.cu — must not compile: a role pipeline whose second argument is
// not porter::roles (here a bare warp count).
#include <porter/porter.hpp>

using b = porter::box<float, 8, 32>;

__global__ void k(float* out) {
  extern __shared__ unsigned char smem[];
  porter::role_pipeline<porter::path::tma, porter::warps<4>, 2, b> pipe(smem);
  out[0] = pipe.is_producer() ? 1.f : 0.f;
}
