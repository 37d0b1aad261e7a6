// tests/fail/wgmma_descriptor_dense_box.cu — must not compile: a wgmma descriptor of a dense (unswizzled) box, which is no canonical wgmma layout.
#include <porter/porter.hpp>

using tile = porter::box<unsigned short, 64, 64>;

__global__ void k(unsigned short* smem_tile, unsigned long long* out) {
  out[threadIdx.x] = porter::wgmma_descriptor(porter::tile_view<tile>(smem_tile));
}
