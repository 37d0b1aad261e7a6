// tests/fail/fragment_element_size_4.cu — must not compile: fragments of a float tile (ldmatrix moves b16 matrices).
#include <porter/porter.hpp>

using tile = porter::box<float, 16, 32>;

__global__ void k(float* smem_tile, unsigned* out) {
  const porter::fragment<1> f = porter::load_fragments<8, 8>(porter::tile_view<tile>(smem_tile), 0, 0);
  out[threadIdx.x] = f.reg[0];
}
