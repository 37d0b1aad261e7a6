// tests/hip/roles_half_wavefront.fail.hip — must NOT compile under HIP: a role pipeline whose roles
// are not whole wavefronts (PRODUCER_WARPS = 1: 32 producer threads share a 64-lane wavefront with
// 32 consumers, which would spin in one role's wait while the lanes it waits for cannot run). The
// error must say so in words (hip.fail.roles_half_wavefront in tests/hip/CMakeLists.txt). With
// PRODUCER_WARPS = 2 (one whole wavefront) it compiles (control).
#include <porter/porter.hpp>

using box = porter::box<float, 8, 64>;
using split = porter::roles<porter::warps<PRODUCER_WARPS>, porter::warps<4>>;

__global__ void roles(const __grid_constant__ porter::tiled_source<box> src, float* out) {
  extern __shared__ unsigned char smem[];
  porter::role_pipeline<porter::path::staged, split, 2, box> pipe(smem);
  if (pipe.is_producer()) {
    auto slot = pipe.producer_acquire();
    porter::async_copy(porter::buffer<0>(slot), src, porter::coord<2>{0, 0});
    pipe.producer_commit(slot);
    return;
  }
  auto ready = pipe.consumer_wait();
  out[threadIdx.x] = ready.template tile<0>().data()[threadIdx.x % box::elements];
  pipe.consumer_release(ready);
}
