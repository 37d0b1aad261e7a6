// bench/ports/before_asm_cp_async.cu — "before" of the inline-asm cp.async idiom: y = a x + b
// (ports::axpb) with a hand-written multistage pipeline of `cp.async.cg.shared.global` (16 B,
// zero fill by src-size past n), `cp.async.commit_group` and `cp.async.wait_group S-2`, the way
// CUTLASS' sm80 mainloops and many hand-tuned kernels write it: prologue of S-1 groups, then per
// step one wait, one __syncthreads, the refill of the stage consumed one step earlier, the compute.
// Persistent grid (CTA b takes tiles b, b + gridDim.x, ...). Needs sm_80 (cp.async): on older
// targets the kernel is a trap stub and the row is skipped (min_cc 80). Its port: after.cuh
// pb_port_axpb. Needs n % 4 == 0 (a 16-byte chunk is all inside or all outside; checked on the host).
#include <cstdint>
#include <stdexcept>

#include "../baselines/manual_common.hpp"
#include "ports_compute.cuh"

namespace pb::ports {
namespace {

template <int S>
__global__ void __launch_bounds__(axpb::threads)
    pb_port_before_asm_cp_async(const float* __restrict__ x, float* __restrict__ y, long long n, float a, float b) {
  static_assert(S >= 2, "the multistage loop keeps S - 1 groups in flight");
  using namespace axpb;
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  extern __shared__ __align__(128) unsigned char smem[];
  float* ring = reinterpret_cast<float*>(smem);
  const long long tiles = (n + tile - 1) / tile;
  const int steps = tiles_of_this_cta(tiles);
  auto base_of = [&](int j) { return (static_cast<long long>(blockIdx.x) + static_cast<long long>(j) * gridDim.x) * tile; };
  auto issue = [&](int j) {  // step j into stage j % S: each thread 4 chunks of 16 B
    const long long base = base_of(j);
    float* dst = ring + (j % S) * tile;
#pragma unroll
    for (int k = 0; k < tile / 4 / threads; ++k) {
      const int v = int(threadIdx.x) + k * threads;
      const long long e = base + 4LL * v;
      const int bytes = e < n ? 16 : 0;  // src-size 0: the chunk reads as zeros
      const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst + 4 * v));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(x + (bytes ? e : 0)), "r"(bytes) : "memory");
    }
  };
  for (int j = 0; j < S - 1; ++j) {
    if (j < steps) issue(j);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  for (int i = 0; i < steps; ++i) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(S - 2) : "memory");  // step i has landed (this thread's chunks)
    __syncthreads();                                                     // everyone's, and step i-1 is consumed
    if (i + S - 1 < steps) issue(i + S - 1);                             // into stage (i - 1) % S
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    stream_consume<tile, threads>(ring + (i % S) * tile, y, base_of(i), n, a, b);
  }
#else
  __trap();
#endif
}

}  // namespace

void register_before_asm_cp_async(registry& r) {
  using namespace axpb;
  auto* k = &pb_port_before_asm_cp_async<stages>;
  const std::size_t smem = std::size_t(stages) * tile * sizeof(float);
  r.port("asm-cp-async")
      .variants.push_back({manual_desc("before", "inline asm cp.async", 80, stages, threads, tile * sizeof(float), smem, 0,
                                       reinterpret_cast<const void*>(k), "pb_port_before_asm_cp_async"),
                           [k, smem](const port_problem& p, int grid) -> launcher {
                             if (p.n % 4) throw std::invalid_argument("the inline-asm cp.async kernel needs n % 4 == 0");
                             allow_smem(reinterpret_cast<const void*>(k), smem);
                             return [=](cudaStream_t s) {
                               k<<<grid, threads, smem, s>>>(p.a, p.out, p.n, a, b);
                               check_launch("pb_port_before_asm_cp_async");
                             };
                           }});
}

}  // namespace pb::ports
