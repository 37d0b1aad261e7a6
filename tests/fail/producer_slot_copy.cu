// tests/fail/producer_slot_copy.cu — must not compile: copying a producer_slot token (a copy could be committed twice).
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;

__global__ void k(const __grid_constant__ porter::tiled_source<tile> src) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<porter::path::staged, 2, tile> pipe(smem);
  auto slot = pipe.producer_acquire();
  auto copy = slot;
  porter::async_copy(copy, src, porter::coord<2>{0, 0});
  pipe.producer_commit(slot);
}
