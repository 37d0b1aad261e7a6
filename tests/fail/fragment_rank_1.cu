// tests/fail/fragment_rank_1.cu — must not compile: fragments of a 1D box (a fragment needs rows and columns).
#include <porter/porter.hpp>

using tile = porter::box<unsigned short, 512>;

__global__ void k(unsigned short* smem_tile, unsigned* out) {
  const porter::fragment<1> f = porter::load_fragments<8, 8>(porter::tile_view<tile>(smem_tile), 0, 0);
  out[threadIdx.x] = f.reg[0];
}
