// bench/src/launch_cost.cu — the per-call host cost of porter::launch, against the raw launches of
// the same kernel: `<<<>>>` and cudaLaunchKernelEx (with and without a cluster attribute).
//
// Host time only: batches of `batch` calls timed with std::chrono::steady_clock, no
// synchronisation inside a batch (batch is below the runtime's launch-queue depth, so a call never
// waits for the GPU), cudaStreamSynchronize between batches (outside the timed region); the
// median over batches of ns per call. The kernel does nothing (its argument decides at run time),
// so the GPU keeps up and the numbers are the launch calls' own.
#include <porter/porter.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench.hpp"

namespace pb {
namespace {

using cost_box = porter::box<float, 8, 32>;

/// A kernel parameter that holds its source as a field (porter::launch visits it).
struct held_params {
  int n;
  porter::tiled_source<cost_box> src;
};

template <class Path>
__global__ void cost_direct(const __grid_constant__ porter::tiled_source<cost_box> src, float* out, int n) {
  if (n < 0) out[threadIdx.x] = float(src.extent[0]);
}
template <class Path>
__global__ void cost_held(const __grid_constant__ held_params p, float* out) {
  if (p.n < 0) out[threadIdx.x] = float(p.src.extent[0]);
}

/// Median ns per call of `call` over `batches` batches of `batch` calls.
double ns_per_call(const std::function<void()>& call, cudaStream_t s, int batches, int batch) {
  for (int i = 0; i < batch; ++i) call();  // warm-up: caches, module load
  cudaStreamSynchronize(s);
  std::vector<double> v;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) call();
    const auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    v.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / batch);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

void run_launch_cost(context& cx) {
  cx.progress("launch host cost");
  using P = porter::path::staged;  // runs everywhere; the checks porter does per call are the same for every path
  float* buf = nullptr;
  if (cudaMalloc(&buf, 64 * 64 * sizeof(float)) != cudaSuccess) {
    cx.rep.notes.push_back("launch host cost: cudaMalloc failed");
    return;
  }
  const auto src = porter::make_tiled_source<cost_box>(buf, {64, 64});
  const held_params held{1, src};
  cudaStream_t s = cx.stream;
  const int batches = cx.opt.quick ? 21 : 51, batch = 256;
  const bool clusters = cx.caps.compute_capability() >= 90;
  struct line {
    std::string label;
    double ns;
  };
  std::vector<line> lines;
  auto measure = [&](const std::string& label, const std::function<void()>& call) {
    lines.push_back({label, ns_per_call(call, s, batches, batch)});
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) lines.back().label += " (launch error: " + std::string(cudaGetErrorString(e)) + ")";
  };
  const dim3 grid(2), block(32);
  auto ex = [&](const void* f, void** args, bool cluster) {
    cudaLaunchAttribute a[1] = {};
    a[0].id = cudaLaunchAttributeClusterDimension;
    a[0].val.clusterDim.x = 2;
    a[0].val.clusterDim.y = 1;
    a[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.stream = s;
    cfg.attrs = a;
    cfg.numAttrs = cluster ? 1 : 0;
    cudaLaunchKernelExC(&cfg, f, args);
  };
  int n = 1;
  float* out = buf;
  measure("raw <<<>>>, source argument", [&] { cost_direct<P><<<grid, block, 0, s>>>(src, out, n); });
  measure("raw cudaLaunchKernelEx, source argument, no attribute", [&] {
    void* args[] = {const_cast<porter::tiled_source<cost_box>*>(&src), &out, &n};
    ex(reinterpret_cast<const void*>(&cost_direct<P>), args, false);
  });
  measure("porter::launch, source argument", [&] { porter::launch<P>(&cost_direct<P>, grid, block, 0, s, src, out, n); });
  measure("raw <<<>>>, source in a struct", [&] { cost_held<P><<<grid, block, 0, s>>>(held, out); });
  measure("porter::launch, source in a struct", [&] { porter::launch<P>(&cost_held<P>, grid, block, 0, s, held, out); });
  const porter::launch_options cluster2 = porter::launch_options{}.cluster(dim3(2));
  if (clusters) {
    measure("raw cudaLaunchKernelEx, source in a struct, cluster 2", [&] {
      void* args[] = {const_cast<held_params*>(&held), &out};
      ex(reinterpret_cast<const void*>(&cost_held<P>), args, true);
    });
    measure("porter::launch, source in a struct, cluster 2 (cudaLaunchKernelEx)",
            [&] { porter::launch<P>(cluster2, &cost_held<P>, grid, block, 0, s, held, out); });
  }
  measure("porter::launch<automatic> (kernel_family), source argument", [&] {
    porter::launch<porter::path::automatic>(porter::kernel_family{[](auto p) { return &cost_direct<decltype(p)>; }}, grid, block, 0, s, src,
                                            out, n);
  });
  cudaStreamSynchronize(s);
  cudaFree(buf);

  std::printf("\nLaunch host cost (median ns per call over %d batches of %d calls, host time only, no sync inside a batch; "
              "grid 2 x 32 threads, kernel does nothing)\n",
              batches, batch);
  for (const auto& l : lines) {
    std::printf("  %-72s %8.0f ns\n", l.label.c_str(), l.ns);
    cx.rep.meta.emplace_back("launch host cost: " + l.label, format_double(l.ns, 0) + " ns/call");
  }
  if (!clusters) cx.rep.notes.push_back("launch host cost: no cluster rows (clusters need compute capability 9.0)");
  std::fflush(stdout);
}

}  // namespace pb
