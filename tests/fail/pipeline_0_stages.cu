// tests/fail/pipeline_0_stages.cu — must not compile: a pipeline with 0 stages.
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;

__global__ void k(float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<porter::path::staged, 0, tile> pipe(smem);
  out[0] = float(pipe.shared_bytes);
}
