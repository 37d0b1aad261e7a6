// tests/fail/box_dimension_0.cu — must not compile: a box with a dimension of 0 elements.
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 0>;

__global__ void k(float* out) { out[0] = float(tile::rank); }
