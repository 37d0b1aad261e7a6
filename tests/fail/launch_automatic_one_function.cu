// tests/fail/launch_automatic_one_function.cu — must not compile: porter::launch<path::automatic> given one
// instantiation of a kernel (it cannot choose a path without the others: pass porter::kernel_family).
#include <porter/porter.hpp>

template <class Path>
__global__ void k(float* out) { out[threadIdx.x] = 0.f; }

void host(float* out) {
  porter::launch<porter::path::automatic>(&k<porter::path::staged>, dim3(1), dim3(32), 0, nullptr, out);
}
