// tests/fail/swizzle_row_not_span.cu — must not compile: a 64-byte row (32 bf16) in 128 B mode.
#include <porter/porter.hpp>

using tile = porter::swizzled<porter::box<unsigned short, 64, 32>, porter::swizzle::b128>;

__global__ void k(float* out) { out[0] = float(tile::bytes); }
