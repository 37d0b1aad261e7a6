// tests/device/probe_tma_store.cu — which edge conditions a TMA tensor STORE tolerates on this GPU.
//
// Not a test: a probe that tells porter's tma store lowering (backends/tma/porter/tma/store.hpp)
// which boxes it may give to cp.async.bulk.tensor. Each case runs in its own process (a fault
// leaves the CUDA context unusable):
//   porter_probe_tma_store CASE      CASE 0..5, see `cases` below
// It stores one 16 x 32 box of 2-byte elements (fresh random data) with the raw instruction from
// thread 0, then checks that exactly the elements inside the tensor were written (the rest of the
// allocation keeps its random fill). Prints one line: "case N (<what>): ok | wrong bytes | <CUDA error>".
#include <porter/porter.hpp>

#include "porter/ptx/bulk_store.hpp"
#include "porter/ptx/mbarrier.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

using tile = porter::box<std::uint16_t, 16, 32>;

__global__ void store_one(const __grid_constant__ porter::tiled_destination<tile> dst, const std::uint16_t* data, int r, int c) {
  __shared__ __align__(128) std::uint16_t t[tile::elements];
  for (unsigned i = threadIdx.x; i < tile::elements; i += blockDim.x) t[i] = data[i];
  porter::ptx::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    porter::ptx::tensor_store_s2g_2d(dst.tensor_map, t, c, r);  // innermost first
    porter::ptx::bulk_commit_group();
    porter::ptx::bulk_wait_group<0>();
  }
  __syncthreads();
}

struct probe_case {
  const char* what;
  int rows, cols;  // the tensor, elements (row pitch: cols rounded up to 8 elements = 16 B)
  int r, c;        // the box origin
};
const probe_case cases[] = {
    {"box inside a 64 x 64 tensor", 64, 64, 16, 32},
    {"negative row: box at (-4, 0) of 64 x 64", 64, 64, -4, 0},
    {"negative column: box at (0, -8) of 64 x 64", 64, 64, 0, -8},
    {"past the end: box at (56, 48) of 64 x 64", 64, 64, 56, 48},
    {"tensor smaller than the box: 17 x 1 at (0, 0)", 17, 1, 0, 0},
    {"tensor narrower than the box: 64 x 8 at (0, 0)", 64, 8, 0, 0},
};

}  // namespace

int main(int argc, char** argv) {
  const int n = int(sizeof(cases) / sizeof(cases[0]));
  const int k = argc > 1 ? std::atoi(argv[1]) : -1;
  if (k < 0 || k >= n) {
    std::fprintf(stderr, "usage: %s CASE (0..%d)\n", argv[0], n - 1);
    return 2;
  }
  const probe_case& pc = cases[k];
  const int pitch = (pc.cols + 7) / 8 * 8;
  const std::size_t elems = std::size_t(pc.rows) * std::size_t(pitch) + 4096;
  std::mt19937_64 rng(0xC0FFEE + std::uint64_t(k));
  std::vector<std::uint16_t> img(elems), data(tile::elements);
  for (auto& x : img) x = std::uint16_t(rng() | 1);
  for (auto& x : data) x = std::uint16_t(rng());
  std::uint16_t *d_img = nullptr, *d_data = nullptr;
  if (cudaMalloc(&d_img, elems * 2) != cudaSuccess || cudaMalloc(&d_data, data.size() * 2) != cudaSuccess) return 3;
  cudaMemcpy(d_img, img.data(), elems * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(d_data, data.data(), data.size() * 2, cudaMemcpyHostToDevice);
  const std::int64_t ext[2] = {pc.rows, pc.cols}, str[1] = {pitch};
  const auto dst = porter::make_tiled_destination<tile>(d_img, ext, str);
  if (!dst.supports(porter::path_id::tma)) {
    std::printf("case %d (%s): porter does not allow tma for this tensor\n%s", k, pc.what, porter::explain(dst).c_str());
    return 4;
  }
  store_one<<<1, 128>>>(dst, d_data, pc.r, pc.c);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("case %d (%s): %s (%s)\n", k, pc.what, cudaGetErrorName(e), cudaGetErrorString(e));
    return 1;
  }
  std::vector<std::uint16_t> got(elems), want = img;
  cudaMemcpy(got.data(), d_img, elems * 2, cudaMemcpyDeviceToHost);
  for (int i = 0; i < tile::dim(0); ++i)
    for (int j = 0; j < tile::dim(1); ++j) {
      const int gr = pc.r + i, gc = pc.c + j;
      if (gr >= 0 && gr < pc.rows && gc >= 0 && gc < pc.cols) want[std::size_t(gr) * pitch + gc] = data[std::size_t(i) * tile::dim(1) + j];
    }
  std::size_t bad = 0;
  for (std::size_t i = 0; i < elems; ++i) bad += got[i] != want[i];
  std::printf("case %d (%s): %s", k, pc.what, bad ? "wrong bytes" : "ok");
  if (bad) std::printf(" (%zu elements differ)", bad);
  std::printf("\n");
  return bad ? 1 : 0;
}
