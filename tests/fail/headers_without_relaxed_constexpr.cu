// tests/fail/headers_without_relaxed_constexpr.cu — positive control: the headers compile without
// nvcc's --expt-relaxed-constexpr, which neither porter::porter nor porter's own targets pass and a
// consumer's nvcc line need not have. Without the flag, device code may call only constexpr functions that are __host__
// __device__ (PORTER_HOST_DEVICE); a __host__ one is an error from a __device__ caller and a
// warning naming the flag from a __host__ __device__ one (tests/fail/CMakeLists.txt fails on both).
// This file holds what the other sources of that check (tests/lowering/kernels.cu and this
// folder's positive controls) do not: the README's first kernel as written there, and
// porter::shared_layout.
#include <porter/porter.hpp>

#include <cstdio>

// README "A kernel written with porter", as written there (its row0/col0 are the user's).
using halo = porter::box<float, 18, 72>;
__device__ int row0(long long t) { return int(t / 8) * 16; }
__device__ int col0(long long t) { return int(t % 8) * 64; }

template <class Path>
__global__ void jacobi5(const __grid_constant__ porter::tiled_source<halo> in, float* out, int h, int w,
                        porter::tile_schedule sched) {
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, 3, halo> pipe(smem);
  porter::for_each_tile(pipe, in, sched,
      [&](long long t) { return porter::coord<2>{row0(t) - 1, col0(t) - 4}; },
      [&](porter::tile_view<halo> v, long long t, porter::coord<2> at) {
        out[t] = v(1, 4) + float(at[0] + at[1] + h + w);
      });
}

void jacobi5_host(const float* d_in, float* d_out, int h, int w, long long tiles, dim3 block, cudaStream_t stream) {
  auto src = porter::make_tiled_source<halo>(d_in, {h, w}, halo{});
  std::puts(porter::explain(src).c_str());
  auto sched = porter::blocked_schedule(tiles, 1);
  porter::path_choice c = porter::launch<porter::path::automatic>(
      porter::kernel_family{[](auto p) { return &jacobi5<decltype(p)>; }},
      dim3(sched.grid_ctas()), block, porter::stage_ring<3, halo>::bytes, stream, src, d_out, h, w, sched);
  (void)c;
}

// Two rings and a scratch tile in one porter::shared_layout (part<I> places them).
using a_box = porter::box<float, 16, 32>;
using b_box = porter::swizzled<porter::box<unsigned short, 16, 64>, porter::swizzle::b128>;
template <class Path>
__global__ void two_rings(const __grid_constant__ porter::tiled_source<a_box> a, const __grid_constant__ porter::tiled_source<b_box> b,
                          float* out) {
  extern __shared__ unsigned char smem[];
  using PA = porter::pipeline<Path, 3, a_box>;
  using PB = porter::pipeline<Path, 2, b_box>;
  using L = porter::shared_layout<PA, PB, porter::scratch<a_box>>;
  PA pa(L::template part<0>(smem));
  PB pb(L::template part<1>(smem));
  float* scratch = reinterpret_cast<float*>(L::template part<2>(smem));
  auto sa = pa.producer_acquire();
  porter::async_copy(sa, a, porter::coord<2>{0, 0});
  pa.producer_commit(sa);
  auto sb = pb.producer_acquire();
  porter::async_copy(sb, b, porter::coord<2>{0, 0});
  pb.producer_commit(sb);
  auto ra = pa.consumer_wait();
  auto rb = pb.consumer_wait();
  scratch[threadIdx.x] = ra.tile()(0, 1) + float(rb.tile()(1, 0));
  out[threadIdx.x] = scratch[threadIdx.x ^ 1];
  pa.consumer_release(ra);
  pb.consumer_release(rb);
}
template __global__ void two_rings<porter::path::tma>(const __grid_constant__ porter::tiled_source<a_box>,
                                                      const __grid_constant__ porter::tiled_source<b_box>, float*);
template __global__ void two_rings<porter::path::cp_async>(const __grid_constant__ porter::tiled_source<a_box>,
                                                           const __grid_constant__ porter::tiled_source<b_box>, float*);
template __global__ void two_rings<porter::path::staged>(const __grid_constant__ porter::tiled_source<a_box>,
                                                         const __grid_constant__ porter::tiled_source<b_box>, float*);
