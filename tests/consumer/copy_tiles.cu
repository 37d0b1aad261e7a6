// tests/consumer/copy_tiles.cu — a kernel written with porter in a project of its own: one
// porter::pipeline<porter::path::staged, 2, porter::box<float, 8, 32>> copying tiles through
// shared memory.
#include <porter/porter.hpp>

#include "copy_tiles.hpp"

namespace {

using tile = porter::box<float, 8, 32>;  // 8 rows x 32 floats
using copy_pipeline = porter::pipeline<porter::path::staged, 2, tile>;

__global__ void copy_tiles_kernel(const __grid_constant__ porter::tiled_source<tile> src, float* dst, int rows, int cols) {
  extern __shared__ unsigned char smem[];
  copy_pipeline pipe(smem);
  const int tiles_x = (cols + 31) / 32, tiles = tiles_x * ((rows + 7) / 8);
  const int mine = tiles > int(blockIdx.x) ? (tiles - int(blockIdx.x) + int(gridDim.x) - 1) / int(gridDim.x) : 0;
  auto origin = [&](int i) {
    const int t = int(blockIdx.x) + i * int(gridDim.x);
    return porter::coord<2>{(t / tiles_x) * 8, (t % tiles_x) * 32};
  };
  porter::for_each_tile(pipe, src, mine, origin, [&](porter::tile_view<tile> t, int i) {
    const auto o = origin(i);
    for (int k = int(threadIdx.x); k < 8 * 32; k += int(blockDim.x)) {
      const int r = o[0] + k / 32, c = o[1] + k % 32;
      if (r < rows && c < cols) dst[std::size_t(r) * std::size_t(cols) + std::size_t(c)] = t(k / 32, k % 32);
    }
  });
}

}  // namespace

void copy_tiles(const float* src, float* dst, int rows, int cols, cudaStream_t stream) {
  const auto s = porter::make_tiled_source<tile>(src, {rows, cols});
  porter::launch<porter::path::staged>(copy_tiles_kernel, dim3(64), dim3(128), copy_pipeline::shared_bytes, stream, s, dst,
                                       rows, cols);
}
