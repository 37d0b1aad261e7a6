// tests/consumer/hip/copy_tiles_hip.cpp — the consumer of tests/consumer written for HIP: the same
// porter::pipeline<porter::path::staged, 2, porter::box<float, 8, 32>> tile copy, with HIP's runtime
// calls. Prints which porter it runs with and what porter::explain says; on an AMD GPU it copies a
// matrix through the pipeline and checks every element.
#include <hip/hip_runtime.h>
#include <porter/porter.hpp>

#include <cstdio>
#include <string>
#include <vector>

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

int main() {
  std::printf("porter %s (library), headers %s\n", porter::version().string, PORTER_VERSION_STRING);
  if (!porter::library_matches_headers()) {
    std::printf("porter's headers and library are different versions\n");
    return 1;
  }
  const int rows = 100, cols = 300;
  std::vector<float> host(std::size_t(rows) * cols);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i);
  std::string why;
  if (!porter::query_device(-1, &why)) {
    const auto src = porter::make_tiled_source<tile>(host.data(), {rows, cols});
    std::printf("%s\nno GPU, so no copy: %s\n", porter::explain(src).c_str(), why.c_str());
    return 0;
  }
  float *d_src = nullptr, *d_dst = nullptr;
  const std::size_t bytes = host.size() * sizeof(float);
  if (hipMalloc(&d_src, bytes) != hipSuccess || hipMalloc(&d_dst, bytes) != hipSuccess ||
      hipMemcpy(d_src, host.data(), bytes, hipMemcpyHostToDevice) != hipSuccess) {
    std::printf("HIP setup failed: %s\n", hipGetErrorString(hipGetLastError()));
    return 1;
  }
  const auto src = porter::make_tiled_source<tile>(d_src, {rows, cols});
  std::printf("%s\n", porter::explain(src).c_str());
  porter::launch<porter::path::staged>(copy_tiles_kernel, dim3(64), dim3(128), copy_pipeline::shared_bytes, nullptr, src,
                                       d_dst, rows, cols);
  std::vector<float> back(host.size(), -1.f);
  const hipError_t e = hipMemcpy(back.data(), d_dst, bytes, hipMemcpyDeviceToHost);
  (void)hipFree(d_src);
  (void)hipFree(d_dst);
  if (e != hipSuccess) {
    std::printf("copy failed: %s\n", hipGetErrorString(e));
    return 1;
  }
  for (std::size_t i = 0; i < host.size(); ++i)
    if (back[i] != host[i]) {
      std::printf("MISMATCH at element %zu: %g, expected %g\n", i, double(back[i]), double(host[i]));
      return 1;
    }
  std::printf("copied %d x %d floats through 8 x 32 tiles: identical\n", rows, cols);
  return 0;
}
