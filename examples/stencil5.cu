// examples/stencil5.cu — one algorithm source, three data paths.
//
// A 5-point Jacobi step on an H x W fp32 grid (zero outside the grid): each output tile of 16 x 64
// is read with its halo (18 x 72, starting one row up and four columns left, so the box row stays
// 16-byte aligned) through a porter pipeline; a porter::tile_schedule says which tiles each CTA
// runs (here one tile per CTA, as porter::plan_launch chooses for a streaming kernel). The kernel is written once and run
// with path::tma, path::cp_async, path::staged and path::automatic (chosen on the host for the launch:
// porter::launch gets the kernel template as a porter::kernel_family); every result must be
// bit-identical to the CPU reference computed in the same float order.
//
// Note what the kernel does NOT contain: no __CUDA_ARCH__, no inline PTX, no vendor #if.
#include <porter/porter.hpp>

#include <cstdio>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

namespace {

constexpr int tile_h = 16, tile_w = 64;
using halo_box = porter::box<float, tile_h + 2, tile_w + 8>;

template <class Path>
__global__ void jacobi5(const __grid_constant__ porter::tiled_source<halo_box> grid_in, float* out, int h, int w,
                        porter::tile_schedule sched) {
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, 3, halo_box> pipe(smem);
  const int tiles_x = (w + tile_w - 1) / tile_w;
  auto origin = [&](long long t) { return porter::coord<2>{int(t / tiles_x) * tile_h, int(t % tiles_x) * tile_w}; };
  porter::for_each_tile(
      pipe, grid_in, sched, [&](long long t) { auto o = origin(t); return porter::coord<2>{o[0] - 1, o[1] - 4}; },
      [&](porter::tile_view<halo_box> t, long long i) {
        const auto o = origin(i);
        for (int k = threadIdx.x; k < tile_h * tile_w; k += blockDim.x) {
          const int r = k / tile_w, c = k % tile_w;
          const int gr = o[0] + r, gc = o[1] + c;
          if (gr < h && gc < w)
            out[std::size_t(gr) * w + gc] = 0.25f * ((t(r, c + 4) + t(r + 2, c + 4)) + (t(r + 1, c + 3) + t(r + 1, c + 5)));
        }
      });
}

template <class Path>
bool run(const char* label, const float* d_in, float* d_out, int h, int w, const std::vector<float>& ref) {
  auto src = porter::make_tiled_source<halo_box>(d_in, {h, w}, halo_box{});
  const std::size_t smem = porter::stage_ring<3, halo_box>::bytes;  // the pipeline's shared_bytes, the same on every path
  cudaMemset(d_out, 0xff, sizeof(float) * std::size_t(h) * w);  // poison (NaN)
  try {
    // One call for every path: the family holds the kernel's instantiations, and the launch runs
    // the forced one, or the one `automatic` chooses for this device and source.
    const long long tiles = static_cast<long long>((w + tile_w - 1) / tile_w) * ((h + tile_h - 1) / tile_h);
    const porter::tile_schedule sched = porter::blocked_schedule(tiles, 1);  // one tile per CTA
    const porter::path_choice c = porter::launch<Path>(porter::kernel_family{[](auto p) { return &jacobi5<decltype(p)>; }},
                                                       dim3(unsigned(sched.grid_ctas())), dim3(256), smem, nullptr, src, d_out, h,
                                                       w, sched);
    if (std::is_same_v<Path, porter::path::automatic>) std::printf("%-10s ran as %s: %s\n", label, porter::path_id_name(c.path), c.reason.c_str());
  } catch (const porter::error& e) {
    std::printf("%-10s refused: %s\n", label, e.what());
    return true;
  }
  if (cudaDeviceSynchronize() != cudaSuccess) { std::printf("%-10s FAILED to run\n", label); return false; }
  std::vector<float> got(ref.size());
  cudaMemcpy(got.data(), d_out, sizeof(float) * got.size(), cudaMemcpyDeviceToHost);
  const bool same = std::memcmp(got.data(), ref.data(), sizeof(float) * got.size()) == 0;
  std::printf("%-10s %s\n", label, same ? "bit-identical to the CPU reference" : "MISMATCH");
  return same;
}

}  // namespace

int main() {
  const int h = 1000, w = 1500;  // not multiples of the tile: edges are exercised
  std::string why;
  if (!porter::query_device(-1, &why)) { std::printf("no GPU: %s\n", why.c_str()); return 0; }
  std::vector<float> in(std::size_t(h) * w), ref(in.size());
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (auto& v : in) v = u(rng);
  auto at = [&](int r, int c) { return (r < 0 || r >= h || c < 0 || c >= w) ? 0.f : in[std::size_t(r) * w + c]; };
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) ref[std::size_t(r) * w + c] = 0.25f * ((at(r - 1, c) + at(r + 1, c)) + (at(r, c - 1) + at(r, c + 1)));
  float *d_in = nullptr, *d_out = nullptr;
  cudaMalloc(&d_in, sizeof(float) * in.size());
  cudaMalloc(&d_out, sizeof(float) * in.size());
  cudaMemcpy(d_in, in.data(), sizeof(float) * in.size(), cudaMemcpyHostToDevice);
  std::puts(porter::explain(porter::make_tiled_source<halo_box>(d_in, {h, w}, halo_box{})).c_str());
  bool ok = run<porter::path::tma>("tma", d_in, d_out, h, w, ref);
  ok &= run<porter::path::cp_async>("cp_async", d_in, d_out, h, w, ref);
  ok &= run<porter::path::staged>("staged", d_in, d_out, h, w, ref);
  ok &= run<porter::path::automatic>("automatic", d_in, d_out, h, w, ref);
  cudaFree(d_in);
  cudaFree(d_out);
  return ok ? 0 : 1;
}
