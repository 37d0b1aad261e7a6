// tests/fail/swizzle_of_swizzled.cu — must not compile: swizzling a box that is already swizzled.
#include <porter/porter.hpp>

using once = porter::swizzled<porter::box<float, 8, 32>, porter::swizzle::b128>;
using twice = porter::swizzled<once, porter::swizzle::b128>;

__global__ void k(float* out) { out[0] = float(twice::bytes); }
