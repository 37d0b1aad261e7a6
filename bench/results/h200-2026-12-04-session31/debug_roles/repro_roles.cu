// repro_roles.cu — session 31's reproducer for pb_bf16gemm_roles<tma, 4, registers<40, 232>>
// computing wrong C on the H200 (NOTES.md beside it). Not built by CMake. Runs each variant `reps`
// times on fresh NaN-poisoned C and compares every element bit for bit with the reference variant's
// first run (same compute, same order: bit-identical when correct); prints the differing elements'
// C tiles, warp tiles and largest difference. Build on the GPU machine from the repository root,
// after building porter_core (cmake -S . -B /tmp/bc -G Ninja -DPORTER_CUDA_ARCHITECTURES=90 &&
// cmake --build /tmp/bc --target porter_core):
//   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90a -DPORTER_TRAP_MESSAGES=0 -Iinclude \
//     -Ibackends/registry/nvidia -Ibackends/tma -Ibackends/cp_async -Ibackends/staged \
//     -Ibackends/staged/nvidia -Ibackends/fragments/nvidia -Ibackends/grid/nvidia -Ibackends/isa/ptx \
//     -Ibench -Ibench/src -Ibench/kernels repro_roles.cu /tmp/bc/libporter_core.a -lcuda -o repro
//   ./repro 8
// Runs 4-9 used other variant lists in main() of this same file (late_roles' Mode: 1 consumer-side
// fence.proxy.async before the release, 2 stage checksums by warps 4 and 5, 3 producer-side fence
// after the acquire, 4 a 64-cycle spin; Rot rotates the warp-tile assignment; Tail adds a producer
// tail). The list below is the final run's, against porter's release with the fence.
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <thread>
#include <unistd.h>
#include <string>
#include <vector>
#include <cstring>
#include "bf16gemm.cuh"
using namespace pb;
using namespace bf16gemm_shape;
using porter::path::tma; using porter::path::cp_async;
template <int P, int C> using R = bf16gemm_roles_shape::roles_of<P, C>;
using Rnone = porter::roles<porter::warpgroups<1>, porter::warpgroups<2>>;

__global__ void fill(__nv_bfloat16* p, long long n, unsigned seed) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = __float2bfloat16((h & 0xffff) / 32768.f - 1.f);
  }
}
__device__ unsigned g_tiles[64 * 32];   // differing elements per C tile (128 x 256)
__device__ unsigned g_warp[8];          // per warp tile of pb_bf16gemm (2 x 4 of 64 x 64)
__device__ unsigned g_maxdiff;          // max |c - r| as float bits
__global__ void diff(const float* c, const float* r, long long n, int size, unsigned long long* cnt, int* first) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x)
    if (__float_as_uint(c[i]) != __float_as_uint(r[i])) {
      unsigned long long k = atomicAdd(cnt, 1ull);
      int row = int(i / size), col = int(i % size);
      if (k < 8) { first[2 * k] = row; first[2 * k + 1] = col; }
      if (size == 8192) atomicAdd(&g_tiles[(row / 128) * 32 + col / 256], 1u);
      atomicAdd(&g_warp[((row % 128) / 64) * 4 + (col % 256) / 64], 1u);
      atomicMax(&g_maxdiff, __float_as_uint(fabsf(c[i] - r[i])));
    }
}
/// The roles kernel with the consumer release after the last MMA (late) instead of before it.
__device__ unsigned* g_rec = nullptr;   // Mode 2: per CTA and step: warp 4 at wait, warp 5 at wait, warp 4 at release
__device__ int g_maxsteps = 0;
__device__ __forceinline__ unsigned a_rows_sum(const unsigned char* a_stage) {
  const int lane = threadIdx.x & 31;
  unsigned s = 0;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const uint4* row = reinterpret_cast<const uint4*>(a_stage + (lane + 32 * h) * 128);
#pragma unroll
    for (int c = 0; c < 8; ++c) { uint4 v = row[c]; s += v.x * 3u + v.y * 5u + v.z * 7u + v.w * 11u + (v.x ^ v.w); }
  }
  // per-row sums are swizzle-invariant only as a multiset of chunks: fold with a commutative op
#pragma unroll
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  return s;
}
template <class Path, int Stages, class Roles, bool Tail = false, int Rot = 0, int Mode = 0>
__global__ void __launch_bounds__(Roles::threads, 1)
    late_roles(const __grid_constant__ porter::tiled_source<bf16gemm_shape::a_box> a,
               const __grid_constant__ porter::tiled_source<bf16gemm_shape::b_box> b, float* __restrict__ c, int m, int n, int k,
               porter::tile_schedule sched) {
  extern __shared__ __align__(1024) unsigned char pb_roles_smem[];
  porter::role_pipeline<Path, Roles, Stages, a_box, b_box> pipe(pb_roles_smem);
  const int tiles_m = (m + bm - 1) / bm, tiles_n = (n + bn - 1) / bn, ktiles = (k + bk - 1) / bk;
  const int count = int(sched.count());
  if (pipe.is_producer()) {
    pipe.enter_role();
    for (int tl = 0; tl < count; ++tl) {
      int m0, n0;
      bf16gemm_grouped_origin(sched.tile(tl), tiles_m, tiles_n, m0, n0);
      for (int kt = 0; kt < ktiles; ++kt) {
        auto slot = pipe.producer_acquire();
        if (Mode == 3) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        porter::async_copy(porter::buffer<0>(slot), a, porter::coord<2>{m0, kt * bk});
        porter::async_copy(porter::buffer<1>(slot), b, porter::coord<2>{n0, kt * bk});
        pipe.producer_commit(slot);
      }
    }
    if (Tail)  // producer tail: wait until the consumers released every stage of the last pass
      for (int s = 0; s < Stages; ++s) { auto slot = pipe.producer_acquire(); (void)slot; }
    return;
  }
  pipe.enter_role();
  const int cw = (int(threadIdx.x) - int(Roles::producer_threads)) / 32;
  const bf16gemm_warp w((cw + Rot) % 8);
  int step = 0;
  for (int tl = 0; tl < count; ++tl) {
    float acc[mt][nt][4];
#pragma unroll
    for (int i = 0; i < mt; ++i)
#pragma unroll
      for (int j = 0; j < nt; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
    for (int kt = 0; kt < ktiles; ++kt) {
      auto ready = pipe.consumer_wait();
      const auto ta = ready.template tile<0>();
      const auto tb = ready.template tile<1>();
      const unsigned char* a_bytes = reinterpret_cast<const unsigned char*>(ta.data());
      if (Mode == 2 && cw < 2) {
        const unsigned v = a_rows_sum(a_bytes);
        if ((threadIdx.x & 31) == 0 && step < g_maxsteps) g_rec[(size_t(blockIdx.x) * g_maxsteps + step) * 3 + cw] = v;
      }
      bf16gemm_frags f[2];
      bf16gemm_load(f[0], ta, tb, w, 0);
#pragma unroll
      for (int kk = 0; kk < ksteps; ++kk) {
        if (kk + 1 < ksteps) bf16gemm_load(f[(kk + 1) & 1], ta, tb, w, kk + 1);
        else if (!Tail) {
          if (Mode == 2 && cw == 0) {
            const unsigned v = a_rows_sum(a_bytes);
            if ((threadIdx.x & 31) == 0 && step < g_maxsteps) g_rec[(size_t(blockIdx.x) * g_maxsteps + step) * 3 + 2] = v;
          }
          if (Mode == 1) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
          if (Mode == 4) { const long long t0 = clock64(); while (clock64() - t0 < 64) { } }
          pipe.consumer_release(ready);
        }
        bf16gemm_mma(acc, f[kk & 1]);
      }
      if (Tail) pipe.consumer_release(ready);
      ++step;
    }
    int m0, n0;
    bf16gemm_grouped_origin(sched.tile(tl), tiles_m, tiles_n, m0, n0);
    bf16gemm_store(acc, c, m0, n0, m, n, w);
  }
}
static float* g_ref = nullptr;
static float* g_refs[8] = {};
template <class Path, int S, class Roles, bool Late = false, bool Tail = false, int Rot = 0, int Mode = 0>
int run(int size, int reps, int kk_ = 0, std::size_t smem_override = 0, int refslot = 0) {
  const int ksz = kk_ ? kk_ : size;
  g_ref = g_refs[refslot];
  using Pipe = porter::role_pipeline<Path, Roles, S, a_box, b_box>;
  auto* k = Late ? &late_roles<Path, S, Roles, Tail, Rot, Mode> : &pb_bf16gemm_roles<Path, S, Roles>;
  unsigned* rec = nullptr; int maxsteps = 0;
  if (Mode == 2) {
    maxsteps = int(((long long)(size / bm) * (size / bn) + 131) / 132) * ((kk_ ? kk_ : size) / bk);
    cudaMalloc(&rec, size_t(132) * maxsteps * 3 * 4); cudaMemset(rec, 0xff, size_t(132) * maxsteps * 3 * 4);
    cudaMemcpyToSymbol(g_rec, &rec, sizeof rec); cudaMemcpyToSymbol(g_maxsteps, &maxsteps, sizeof maxsteps);
  }
  long long e = (long long)size * size, eab = (long long)size * ksz;
  __nv_bfloat16 *a, *b; float* c; unsigned long long* cnt; int* first;
  cudaMalloc(&a, eab * 2); cudaMalloc(&b, eab * 2); cudaMalloc(&c, e * 4); cudaMalloc(&cnt, 8); cudaMalloc(&first, 64);
  fill<<<1024, 256>>>(a, eab, 1); fill<<<1024, 256>>>(b, eab, 2);
  cudaDeviceSynchronize();
  const std::int64_t ea[2] = {size, ksz};
  auto sa = porter::make_tiled_source<a_box>(a, ea);
  auto sb = porter::make_tiled_source<b_box>(b, ea);
  const std::size_t smem = smem_override ? smem_override : Pipe::shared_bytes;
  const long long tiles = (long long)(size / bm) * (size / bn);
  const porter::tile_schedule sc = porter::persistent_schedule(tiles, 132);
  const porter::launch_options o = porter::launch_options{}.uses_role_pipeline();
  int bad_runs = 0;
  float tot_ms = 0; int timed = 0;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int rep = 0; rep < reps; ++rep) {
    cudaMemset(c, 0xff, e * 4);
    auto t0 = std::chrono::steady_clock::now();
    cudaEventRecord(e0);
    porter::launch<Path>(o, k, dim3(sc.grid_ctas()), dim3(Roles::threads), smem, 0, sa, sb, c, size, size, ksz, sc);
    cudaError_t st;
    while ((st = cudaStreamQuery(0)) == cudaErrorNotReady) {
      if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(8)) { std::printf("HANG rep %d\n", rep); std::fflush(stdout); _exit(3); }
    }
    if (st != cudaSuccess) { std::printf("ERROR %s\n", cudaGetErrorString(st)); std::fflush(stdout); _exit(4); }
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    if (rep > 0) { float ms = 0; cudaEventElapsedTime(&ms, e0, e1); tot_ms += ms; ++timed; }
    if (Mode == 2) {
      std::vector<unsigned> h(size_t(132) * maxsteps * 3);
      cudaMemcpy(h.data(), rec, h.size() * 4, cudaMemcpyDeviceToHost);
      long long w4w5 = 0, w4change = 0, n = 0;
      for (size_t i = 0; i < size_t(132) * maxsteps; ++i) {
        if (h[3 * i] == 0xffffffffu) continue;
        ++n; if (h[3 * i] != h[3 * i + 1]) ++w4w5; if (h[3 * i] != h[3 * i + 2]) ++w4change;
      }
      std::printf("  rep %d: %lld steps recorded; warp 4 vs warp 5 at the wait differ %lld; warp 4 wait vs its release differ %lld\n", rep, n, w4w5, w4change);
      cudaMemset(rec, 0xff, h.size() * 4);
    }
    if (!g_ref) { cudaMalloc(&g_ref, e * 4); g_refs[refslot] = g_ref; cudaMemcpy(g_ref, c, e * 4, cudaMemcpyDeviceToDevice); std::printf("  reference taken from this kernel's rep 0\n"); continue; }
    cudaMemset(cnt, 0, 8); cudaMemset(first, 0xff, 64);
    { static unsigned z[64 * 32] = {}; cudaMemcpyToSymbol(g_tiles, z, sizeof z); cudaMemcpyToSymbol(g_warp, z, 32); cudaMemcpyToSymbol(g_maxdiff, z, 4); }
    diff<<<1024, 256>>>(c, g_ref, e, size, cnt, first);
    unsigned long long h = 0; int f[16]; cudaMemcpy(&h, cnt, 8, cudaMemcpyDeviceToHost); cudaMemcpy(f, first, 64, cudaMemcpyDeviceToHost);
    if (h) {
      ++bad_runs;
      std::printf("  rep %d: %llu elements differ; first:", rep, h);
      for (int i = 0; i < 8 && i < (int)h; ++i) std::printf(" (%d,%d)", f[2 * i], f[2 * i + 1]);
      unsigned t[64 * 32], wv[8], md; cudaMemcpyFromSymbol(t, g_tiles, sizeof t); cudaMemcpyFromSymbol(wv, g_warp, 32); cudaMemcpyFromSymbol(&md, g_maxdiff, 4);
      float mdf; std::memcpy(&mdf, &md, 4);
      int nt_ = 0; for (int i = 0; i < 64 * 32; ++i) if (t[i]) ++nt_;
      std::printf("\n    %d tiles; max |diff| %.4g; per warp tile:", nt_, mdf);
      for (int i = 0; i < 8; ++i) std::printf(" %u", wv[i]);
      std::printf("; tiles:");
      for (int i = 0, shown = 0; i < 64 * 32 && shown < 6; ++i) if (t[i]) { std::printf(" t%d(%u)", i, t[i]); ++shown; }
      std::printf("\n");
    }
  }
  std::printf("  => %d of %d runs differ from the reference; mean %.3f ms per run (%.1f TFLOP/s)\n", bad_runs, reps,
              timed ? tot_ms / timed : 0.f, timed ? 2.0 * size * size * double(ksz) / (tot_ms / timed * 1e-3) / 1e12 : 0.0);
  std::fflush(stdout);
  cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(cnt); cudaFree(first);
  return 0;
}
int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 8;
  const int K = 8192;
  std::printf("== 8192^3: porter-roles tma S=3 40/232 (reference)\n"); run<tma, 3, R<40, 232>>(8192, reps, K, 0, 0);
  std::printf("== porter-roles tma S=4 40/232 (porter's release now fences)\n"); run<tma, 4, R<40, 232>>(8192, reps, K, 0, 0);
  std::printf("== porter-roles tma S=4 56/224\n"); run<tma, 4, R<56, 224>>(8192, reps, K, 0, 0);
  std::printf("== porter-roles tma S=4 40/200\n"); run<tma, 4, R<40, 200>>(8192, reps, K, 0, 0);
  std::printf("== porter-roles tma S=3 40/232 again\n"); run<tma, 3, R<40, 232>>(8192, reps, K, 0, 0);
  return 0;
}
