// tests/fail/element_size_3.cu — must not compile: a box of 3-byte elements (porter moves 1, 2, 4, 8 or 16-byte elements).
#include <porter/porter.hpp>

struct rgb { unsigned char r, g, b; };
using tile = porter::box<rgb, 8, 32>;

__global__ void k(const __grid_constant__ porter::tiled_source<tile> src, rgb* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<porter::path::staged, 2, tile> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(slot, src, porter::coord<2>{0, 0});
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait();
  out[threadIdx.x] = ready.tile()(0, threadIdx.x % 32);
  pipe.consumer_release(ready);
}
