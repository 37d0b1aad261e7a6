// tests/fail/swizzle_rank_1.cu — must not compile: a swizzled 1D box (swizzle permutes chunks by row).
#include <porter/porter.hpp>

using tile = porter::swizzled<porter::box<float, 32>, porter::swizzle::b128>;

__global__ void k(float* out) { out[0] = float(tile::bytes); }
