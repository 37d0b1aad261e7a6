// tests/fail/fragment_three_matrices.cu — must not compile: a 24 x 8 region is three 8x8 matrices (ldmatrix loads 1, 2 or 4).
#include <porter/porter.hpp>

using tile = porter::box<unsigned short, 32, 64>;

__global__ void k(unsigned short* smem_tile, unsigned* out) {
  const auto f = porter::load_fragments<24, 8>(porter::tile_view<tile>(smem_tile), 0, 0);
  out[threadIdx.x] = f.reg[0];
}
