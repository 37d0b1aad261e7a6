// tests/fail/launch_not_a_path.cu — must not compile: porter::launch with a template argument that is not a path tag.
#include <porter/porter.hpp>

__global__ void k(float* out) { out[threadIdx.x] = 0.f; }

void host(float* out) { porter::launch<float>(k, dim3(1), dim3(32), 0, nullptr, out); }
