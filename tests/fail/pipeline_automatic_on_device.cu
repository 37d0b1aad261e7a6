// tests/fail/pipeline_automatic_on_device.cu — must not compile: a pipeline instantiated with path::automatic
// in device code (automatic is resolved on the host for each launch; the kernel runs as a concrete path).
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;

__global__ void k(float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<porter::path::automatic, 2, tile> pipe(smem);
  out[0] = float(pipe.stages);
}
