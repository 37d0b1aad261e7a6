// tests/fail/buffer_index_out_of_range.cu — must not compile: buffer<1> of a stage that holds one buffer.
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;

__global__ void k(const float* raw) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<porter::path::staged, 2, tile> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(porter::buffer<1>(slot), raw, 64);
  pipe.producer_commit(slot);
}
