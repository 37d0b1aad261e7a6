// tests/fail/consumer_stage_from_integers.cu — must not compile: forging a consumer_stage from a stage number and a phase.
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;
using pipe_t = porter::pipeline<porter::path::staged, 2, tile>;

__global__ void k(float* out) {
  extern __shared__ unsigned char smem[];
  pipe_t pipe(smem);
  porter::consumer_stage<pipe_t> forged(1u, 0u, smem);
  out[threadIdx.x] = forged.tile()(0, 0);
  pipe.consumer_release(forged);
}
