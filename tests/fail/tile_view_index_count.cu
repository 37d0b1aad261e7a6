// tests/fail/tile_view_index_count.cu — must not compile: a 2D tile_view indexed with one index.
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;

__global__ void k(const __grid_constant__ porter::tiled_source<tile> src, float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<porter::path::staged, 2, tile> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(slot, src, porter::coord<2>{0, 0});
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait();
  out[threadIdx.x] = ready.tile()(threadIdx.x);
  pipe.consumer_release(ready);
}
