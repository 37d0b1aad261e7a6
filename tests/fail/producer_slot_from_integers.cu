// tests/fail/producer_slot_from_integers.cu — must not compile: forging a producer_slot from a stage number and a phase.
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;
using pipe_t = porter::pipeline<porter::path::staged, 2, tile>;

__global__ void k(const __grid_constant__ porter::tiled_source<tile> src) {
  extern __shared__ unsigned char smem[];
  pipe_t pipe(smem);
  porter::producer_slot<pipe_t> forged(&pipe, 1u, 0u, smem);
  porter::async_copy(forged, src, porter::coord<2>{0, 0});
  pipe.producer_commit(forged);
}
