// tests/fail/pipeline_not_a_path.cu — must not compile: a pipeline whose first template argument is not a path tag.
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;

__global__ void k(float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<int, 2, tile> pipe(smem);
  out[0] = float(pipe.stages);
}
