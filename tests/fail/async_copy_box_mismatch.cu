// tests/fail/async_copy_box_mismatch.cu — must not compile: async_copy of a 32x8 source box into a stage buffer of 8x32 boxes.
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;
using transposed = porter::box<float, 32, 8>;  // same bytes, different shape

__global__ void k(const __grid_constant__ porter::tiled_source<transposed> src, float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<porter::path::staged, 2, tile> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(slot, src, porter::coord<2>{0, 0});
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait();
  out[threadIdx.x] = ready.tile()(0, threadIdx.x % 32);
  pipe.consumer_release(ready);
}
