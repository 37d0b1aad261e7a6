// tests/fail/box_rank_6.cu — must not compile: a 6-dimensional box (TMA and porter stop at 5).
#include <porter/porter.hpp>

using tile = porter::box<float, 2, 2, 2, 2, 2, 2>;

__global__ void k(float* out) { out[0] = float(tile::rank); }
