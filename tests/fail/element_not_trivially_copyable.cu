// tests/fail/element_not_trivially_copyable.cu — must not compile: a box of elements with a user-written copy constructor.
#include <porter/porter.hpp>

struct counted {
  int v;
  __host__ __device__ counted(const counted& o) : v(o.v + 1) {}
};
using tile = porter::box<counted, 8, 32>;

__global__ void k(float* out) { out[0] = float(tile::bytes); }
