// tests/fail/roles_registers_over_pool.cu — must not compile: register budgets that fit the SM's
// 65,536 registers but not the 64,512 a CTA of 384 threads holds (168 each): 96 x 128 + 208 x 256
// = 65,536. On the H200 this split hung every CTA in setmaxnreg.inc (session 31).
#include <porter/porter.hpp>

using r = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>, porter::registers<96, 208>>;

__global__ void k(unsigned* out) { out[0] = r::threads; }
