// tests/fail/launch_struct_without_hook.cu — must not compile: porter::launch of a kernel whose
// parameter is a struct holding a tiled_source beside a C-array member. porter cannot count the
// fields of such an aggregate (brace elision spreads the array's elements), so the source would go
// unchecked; the launch refuses to compile and says to add the porter_sources hook.
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;
struct params {
  porter::tiled_source<tile> src;
  int offsets[4];  // a C array: the struct is not visited field by field
};

template <class Path>
__global__ void k(const __grid_constant__ params p, float* out) {
  out[threadIdx.x] = float(p.offsets[0]);
}

void host(const params& p, float* out) {
  porter::launch<porter::path::tma>(&k<porter::path::tma>, dim3(1), dim3(32), 0, nullptr, p, out);
}
