// tests/fail/reduce_min_on_float.cu — must not compile: a min reduction of float elements (no
// hardware reduction does it on every path: atomicMin has no float form).
#include <porter/porter.hpp>

using tile = porter::box<float, 8, 32>;

__global__ void k(const __grid_constant__ porter::tiled_destination<tile> dst) {
  __shared__ __align__(128) float t[tile::elements];
  porter::store_queue<porter::path::staged> q;
  porter::async_reduce<porter::reduce_op::min>(q, dst, porter::tile_view<tile>(t), porter::coord<2>{0, 0});
}
