// tests/consumer/main.cpp — the consumer's host program (plain C++): which porter it runs with,
// what porter::explain says about its matrix, and, on a GPU, a tile copy checked element by element.
#include <porter/porter.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "copy_tiles.hpp"

int main() {
  std::printf("porter %s (library), headers %s\n", porter::version().string, PORTER_VERSION_STRING);
  if (!porter::library_matches_headers()) {
    std::printf("porter's headers and library are different versions\n");
    return 1;
  }
  const int rows = 100, cols = 300;  // not multiples of the 8 x 32 tile: edge tiles are partial
  std::vector<float> host(std::size_t(rows) * cols);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i);

  std::string why;
  if (!porter::query_device(-1, &why)) {
    // No GPU: the source is still validated on the host, and explain says what the paths need.
    const auto src = porter::make_tiled_source<porter::box<float, 8, 32>>(host.data(), {rows, cols});
    std::printf("%s\nno GPU, so no copy: %s\n", porter::explain(src).c_str(), why.c_str());
    return 0;
  }
  float *d_src = nullptr, *d_dst = nullptr;
  const std::size_t bytes = host.size() * sizeof(float);
  if (cudaMalloc(&d_src, bytes) != cudaSuccess || cudaMalloc(&d_dst, bytes) != cudaSuccess ||
      cudaMemcpy(d_src, host.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    std::printf("CUDA setup failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  std::printf("%s\n", porter::explain(porter::make_tiled_source<porter::box<float, 8, 32>>(d_src, {rows, cols})).c_str());
  copy_tiles(d_src, d_dst, rows, cols, nullptr);
  std::vector<float> back(host.size(), -1.f);
  const cudaError_t e = cudaMemcpy(back.data(), d_dst, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_src);
  cudaFree(d_dst);
  if (e != cudaSuccess) {
    std::printf("copy failed: %s\n", cudaGetErrorString(e));
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
