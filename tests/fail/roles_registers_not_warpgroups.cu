// tests/fail/roles_registers_not_warpgroups.cu — must not compile: a register request (setmaxnreg
// is warpgroup-wide) with a producer role of one warp.
#include <porter/porter.hpp>

using r = porter::roles<porter::warps<1>, porter::warpgroups<2>, porter::registers<40, 232>>;

__global__ void k(unsigned* out) { out[0] = r::threads; }
