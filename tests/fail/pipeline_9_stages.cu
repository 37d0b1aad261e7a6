// tests/fail/pipeline_9_stages.cu — must not compile: a pipeline with 9 stages (at most 8: cp.async.wait_group takes 0..7).
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;

__global__ void k(float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<porter::path::cp_async, 9, tile> pipe(smem);
  out[0] = float(pipe.shared_bytes);
}
