// tests/fail/readme_examples_compile.cu — positive control: the README's code, as written there,
// compiles (nvcc, sm_90). Keep the two in step: each block below names the README section it
// copies. Also checks that the mdspan form of make_tiled_source builds in a .cu translation unit.
#include <porter/porter.hpp>
#include <porter/wmma.hpp>

#include <cuda/std/mdspan>

#include <cstdio>

using halo = porter::box<float, 18, 72>;
__device__ int row0(long long t) { return int(t / 8) * 16; }
__device__ int col0(long long t) { return int(t % 8) * 64; }
__device__ porter::coord<2> coord_of(long long t) { return porter::coord<2>{int(t / 64) * 32, int(t % 64) * 32}; }

// README "A kernel written with porter": swizzled tiles stored back from their stage.
using tile = porter::swizzled<porter::box<float, 32, 32>, porter::swizzle::b128>;  // 128-byte rows, 128 B swizzle
template <class Path>
__global__ void copy_back(const __grid_constant__ porter::tiled_source<tile> in,
                          const __grid_constant__ porter::tiled_destination<tile> out, porter::tile_schedule sched) {
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, 3, tile> pipe(smem);         // the ring aligns every buffer to the 1 KiB swizzle atom
  porter::store_queue<Path> q;                        // tma: bulk tensor stores; others: thread stores
  porter::for_each_tile(pipe, in, sched, [&](long long t) { return coord_of(t); },
      [&](porter::tile_view<tile> v, long long t) {   // v(r, c) reads through the swizzle
        porter::async_store(q, out, v, coord_of(t));  // only elements inside `out` are written
        q.commit();
        q.wait_read();                                // the stage may be refilled now
      });
}  // no q.wait_write() before exit: the stores have read their tiles, their writes land by the grid's end
template __global__ void copy_back<porter::path::tma>(const __grid_constant__ porter::tiled_source<tile>,
                                                      const __grid_constant__ porter::tiled_destination<tile>, porter::tile_schedule);
template __global__ void copy_back<porter::path::staged>(const __grid_constant__ porter::tiled_source<tile>,
                                                         const __grid_constant__ porter::tiled_destination<tile>, porter::tile_schedule);
void copy_back_host(float* d_out, long long h, long long w) {
  auto out = porter::make_tiled_destination<tile>(d_out, {h, w});
  (void)out;
}

// README "A kernel written with porter": for_each_tile over a schedule; the body takes the
// coordinate of the box it received as a third parameter (or only (v, t)).
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
  porter::for_each_tile(pipe, in, sched,
      [&](long long t) { return porter::coord<2>{row0(t) - 1, col0(t) - 4}; },
      [&](porter::tile_view<halo> v, long long t) { out[t] += v(0, 0); });
}

using a_box = porter::box<float, 16, 16>;
using b_box = porter::box<float, 16, 16>;
__device__ float use(porter::tile_view<a_box> a, porter::tile_view<b_box> b) { return a(0, 0) * b(0, 0); }

// README "custom schedules": the token API, inside a template (and a generic lambda), where
// `ready.template tile<0>()` is the form that compiles.
template <class Path>
__global__ void tokens(const __grid_constant__ porter::tiled_source<a_box> srcA, const __grid_constant__ porter::tiled_source<b_box> srcB,
                       float* out, int ktiles) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, a_box, b_box> pipe(smem);
  const int m0 = 16 * int(blockIdx.x), n0 = 16 * int(blockIdx.y);
  auto step = [&](auto& p, int k0) {
    auto slot = p.producer_acquire();                       // waits for a free stage
    porter::async_copy(porter::buffer<0>(slot), srcA, {m0, k0});
    porter::async_copy(porter::buffer<1>(slot), srcB, {k0, n0});
    p.producer_commit(slot);
    auto ready = p.consumer_wait();                          // waits for the oldest stage
    out[threadIdx.x] += use(ready.template tile<0>(), ready.template tile<1>());
    p.consumer_release(ready);
  };
  for (int k = 0; k < ktiles; ++k) step(pipe, 16 * k);
}

// README "run_pipeline": several sources per step, S-1 steps in flight.
template <class Path>
__global__ void gemm_steps(const __grid_constant__ porter::tiled_source<a_box> a, const __grid_constant__ porter::tiled_source<b_box> b,
                           float* out, int ktiles) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 3, a_box, b_box> pipe(smem);
  const int m0 = 16 * int(blockIdx.x), n0 = 16 * int(blockIdx.y);
  float acc = 0.f;
  porter::run_pipeline(
      pipe, ktiles,
      [&](auto& slot, int k) {
        porter::async_copy(porter::buffer<0>(slot), a, {m0, 16 * k});
        porter::async_copy(porter::buffer<1>(slot), b, {16 * k, n0});
      },
      [&](const auto& ready, int) { acc += use(ready.template tile<0>(), ready.template tile<1>()); });
  out[threadIdx.x] = acc;
}

// README "L2 eviction hints": the same steps with each operand's copy hinted.
template <class Path>
__global__ void gemm_hinted(const __grid_constant__ porter::tiled_source<a_box> a, const __grid_constant__ porter::tiled_source<b_box> b,
                            float* out, int ktiles) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 3, a_box, b_box> pipe(smem);
  const int m0 = 16 * int(blockIdx.x), n0 = 16 * int(blockIdx.y);
  float acc = 0.f;
  porter::run_pipeline(
      pipe, ktiles,
      [&](auto& slot, int k) {
        const int k0 = 16 * k;
        porter::async_copy(porter::buffer<0>(slot), a, porter::coord<2>{m0, k0}, porter::evict_last);   // A: re-read by the next wave
        porter::async_copy(porter::buffer<1>(slot), b, porter::coord<2>{k0, n0}, porter::evict_first);  // B: read once per wave
      },
      [&](const auto& ready, int) { acc += use(ready.template tile<0>(), ready.template tile<1>()); });
  out[threadIdx.x] = acc;
}
template __global__ void gemm_hinted<porter::path::tma>(const __grid_constant__ porter::tiled_source<a_box>,
                                                        const __grid_constant__ porter::tiled_source<b_box>, float*, int);
template __global__ void gemm_hinted<porter::path::cp_async>(const __grid_constant__ porter::tiled_source<a_box>,
                                                             const __grid_constant__ porter::tiled_source<b_box>, float*, int);

template __global__ void jacobi5<porter::path::tma>(const __grid_constant__ porter::tiled_source<halo>, float*, int, int, porter::tile_schedule);
template __global__ void jacobi5<porter::path::staged>(const __grid_constant__ porter::tiled_source<halo>, float*, int, int, porter::tile_schedule);
template __global__ void tokens<porter::path::cp_async>(const __grid_constant__ porter::tiled_source<a_box>,
                                                        const __grid_constant__ porter::tiled_source<b_box>, float*, int);
template __global__ void gemm_steps<porter::path::tma>(const __grid_constant__ porter::tiled_source<a_box>,
                                                       const __grid_constant__ porter::tiled_source<b_box>, float*, int);

// README "Concepts: tiled source": the mdspan form in a .cu translation unit.
void host_side(float* d_in, int h, int w) {
  cuda::std::mdspan<float, cuda::std::dextents<int, 2>> grid(d_in, h, w);
  auto src = porter::make_tiled_source<halo>(grid);
  auto same = porter::make_tiled_source<halo>(d_in, {h, w}, {w, 1});
  std::puts(porter::explain(src).c_str());
  std::puts(porter::explain(same).c_str());
}

// README "Concepts: fragments": a landed 128 B-swizzled bf16 tile, the 16x16 A operand of
// mma.m16n8k16 per warp, and the tile's wgmma descriptor.
using A = porter::swizzled<porter::box<__nv_bfloat16, 64, 64>, porter::swizzle::b128>;
template <class Path>
__global__ void fragments(const __grid_constant__ porter::tiled_source<A> src, unsigned* out, unsigned long long* desc, int k) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 1, A> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(slot, src, porter::coord<2>{0, 0});
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait();
  const int warp = int(threadIdx.x / 32);
  porter::fragment<4> a = porter::load_fragments<16, 16>(ready.tile(), 16 * warp, k);
  porter::fragment<4> b = porter::load_fragments<16, 16>(ready.tile(), 16 * warp, k, porter::along_rows);
  for (int m = 0; m < 4; ++m) out[threadIdx.x * 4 + m] = a.reg[m] ^ b.reg[m];
  desc[threadIdx.x] = porter::wgmma_descriptor(ready.tile());
  pipe.consumer_release(ready);
}
template __global__ void fragments<porter::path::tma>(const __grid_constant__ porter::tiled_source<A>, unsigned*, unsigned long long*, int);

// README "Concepts: fragments": an nvcuda::wmma operand fragment loaded from a landed tile with
// porter::load_matrix_sync (a 128 x 144 half box: the pitch 144 of a skewed layout). Half, not
// bf16, so that it compiles for sm_75 too (no_relaxed_constexpr builds this file for it).
using skewed = porter::box<__half, 128, 144>;
template <class Path>
__global__ void wmma_fragments(const __grid_constant__ porter::tiled_source<skewed> src, float* out) {
  extern __shared__ __align__(128) unsigned char smem[];
  porter::pipeline<Path, 1, skewed> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(slot, src, porter::coord<2>{0, 0});
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait();
  const int warp = int(threadIdx.x / 32);
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> a;
  porter::load_matrix_sync(a, ready.template tile<0>().data() + 16 * warp * 144, 144);
  out[threadIdx.x] = __half2float(a.x[0]);
  pipe.consumer_release(ready);
}
template __global__ void wmma_fragments<porter::path::staged>(const __grid_constant__ porter::tiled_source<skewed>, float*);

// README "Concepts: fragments": a wgmma consumer's descriptor for each K-step of a tile that
// arrived with other buffers, in a template kernel, where `tile<0>` needs `.template` as README
// writes it; the wait is for async-proxy readers.
using B = porter::swizzled<porter::box<__nv_bfloat16, 64, 64>, porter::swizzle::b128>;
template <class Path>
__global__ void wgmma_steps(const __grid_constant__ porter::tiled_source<A> a, const __grid_constant__ porter::tiled_source<B> b,
                            unsigned long long* desc) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, A, B> pipe(smem);
  auto slot = pipe.producer_acquire();
  porter::async_copy(porter::buffer<0>(slot), a, porter::coord<2>{0, 0});
  porter::async_copy(porter::buffer<1>(slot), b, porter::coord<2>{0, 0});
  pipe.producer_commit(slot);
  auto ready = pipe.consumer_wait(porter::async_proxy_reads);
  const int row0 = 16 * int(threadIdx.x / 128);
  for (int kk = 0; kk < 4; ++kk)
    desc[threadIdx.x * 4 + kk] = porter::wgmma_descriptor(ready.template tile<0>(), row0, 16 * kk) ^
                                 porter::wgmma_descriptor(ready.template tile<1>(), 0, 16 * kk);
  pipe.consumer_release(ready);
}
template __global__ void wgmma_steps<porter::path::tma>(const __grid_constant__ porter::tiled_source<A>,
                                                        const __grid_constant__ porter::tiled_source<B>, unsigned long long*);
template __global__ void wgmma_steps<porter::path::cp_async>(const __grid_constant__ porter::tiled_source<A>,
                                                             const __grid_constant__ porter::tiled_source<B>, unsigned long long*);
