// bench/baselines/manual_cuda_pipeline.cu — smallgemm written the way NVIDIA's cuda-samples
// globalToShmemAsyncCopy writes its multistage matrix multiply: libcu++'s cuda::pipeline over a
// cuda::pipeline_shared_state in shared memory, cuda::memcpy_async of 16-byte chunks
// (cuda::aligned_size_t<16>), producer_acquire / producer_commit / consumer_wait / consumer_release.
//
// Tiling as in the sample and in smallgemm_shape: a 16 x 16 output tile per CTA, one C element per
// thread, K-step 16, static shared memory As[S][16][16] and Bs[S][16][16]. As in the sample's
// LargeChunk kernels, the 64 threads with t % 16 < 4 copy one 16-byte chunk of A and one of B per step.
// Two deliberate differences from the sample, both so that the comparison measures only how the
// bytes arrive: (1) every one of the 256 threads is producer and consumer of one block-scoped
// pipeline (cuda::make_pipeline(block, &state)); the sample's SharedState kernel instead adds a 9th,
// producer-only warp (16 x 18 threads), which would change the CTA shape; (2) the grid is persistent
// and steps run across the CTA's output tiles, like every other porter-bench kernel. The arithmetic
// is compute.cuh's smallgemm_mma (explicit fmaf in a fixed order), so C is bit-identical to porter's.
// cuda::memcpy_async has no zero fill: the host requires m, n and k to be multiples of 16 (the
// sample's precondition too). Lowering on sm_80+: cp.async.cg 16 B per chunk, completed per stage
// through cp.async.mbarrier.arrive on the stage's "produced" barrier (CCCL <cuda/pipeline>).
// Sources: CUDA C++ Programming Guide, "Asynchronous Data Copies" (cuda::pipeline, multi-stage);
// cuda-samples Samples/3_CUDA_Features/globalToShmemAsyncCopy.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <porter/cp_async/path.hpp>

#include <cstdint>
#include <stdexcept>

#include "../kernels/compute.cuh"
#include "../kernels/shapes.hpp"
#include "../src/variants.hpp"
#include "manual_common.hpp"

namespace pb {
namespace {

/// smallgemm with a block-scoped S-stage cuda::pipeline. Keeps S steps in flight: the first
/// min(S, steps) are issued up front, then each consumed step is followed by the next issue (every
/// thread acquires and commits every step, also those that copy nothing, as the pipeline requires).
/// Preconditions: m, n, k % 16 == 0; A, B 16-byte aligned (checked on the host).
template <int S>
__global__ void __launch_bounds__(smallgemm_shape::threads)
    pb_cuda_pipeline_smallgemm(const float* __restrict__ a, const float* __restrict__ bmat, float* __restrict__ c, int m,
                               int n, int k) {
  using namespace smallgemm_shape;
  __shared__ alignas(alignof(float4)) float As[S][tile][bk];
  __shared__ alignas(alignof(float4)) float Bs[S][bk][tile];
  // pipeline_shared_state has a (defaulted) constructor that a __shared__ variable never runs;
  // make_pipeline initialises every member (thread 0, then a block sync), as the CUDA guide's
  // examples rely on, so the front end's warning about it is silenced for this one declaration.
#pragma nv_diagnostic push
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, S> shared_state;
#pragma nv_diagnostic pop
  auto block = cooperative_groups::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &shared_state);
  const auto shape4 = cuda::aligned_size_t<alignof(float4)>(sizeof(float4));

  const int tiles_n = n / tile, ktiles = k / bk;
  const long long tiles = static_cast<long long>(m / tile) * tiles_n;
  const int steps = tiles_of_this_cta(tiles) * ktiles;
  const int row = int(threadIdx.x) / tile, col4 = (int(threadIdx.x) % tile) * 4;
  // Step cursors as in porter's pb_smallgemm (steps are issued and consumed in order).
  int p_kt = 0, p_t = int(blockIdx.x), p_tm = 0, p_tn = 0, c_kt = 0, c_t = int(blockIdx.x);
  if (tiles_n > 0) p_tm = p_t / tiles_n, p_tn = p_t - p_tm * tiles_n;
  auto issue = [&](int j) {
    pipe.producer_acquire();
    if (col4 < tile) {
      const int st = j % S;
      cuda::memcpy_async(&As[st][row][col4], a + static_cast<long long>(p_tm * tile + row) * k + p_kt * bk + col4, shape4, pipe);
      cuda::memcpy_async(&Bs[st][row][col4], bmat + static_cast<long long>(p_kt * bk + row) * n + p_tn * tile + col4, shape4, pipe);
    }
    pipe.producer_commit();
    if (++p_kt == ktiles) {
      p_kt = 0;
      p_t += int(gridDim.x);
      p_tm = p_t / tiles_n;
      p_tn = p_t - p_tm * tiles_n;
    }
  };
  int issued = 0;
  for (; issued < S && issued < steps; ++issued) issue(issued);
  float acc = 0.f;
  for (int i = 0; i < steps; ++i) {
    pipe.consumer_wait();
    const int st = i % S;
    if (c_kt == 0) acc = 0.f;
    acc = smallgemm_mma(acc, &As[st][0][0], &Bs[st][0][0]);
    if (c_kt == ktiles - 1) {
      const int tm = c_t / tiles_n, tn = c_t - tm * tiles_n;
      smallgemm_store(acc, c, tm * tile, tn * tile, m, n);
    }
    pipe.consumer_release();
    if (issued < steps) issue(issued++);
    if (++c_kt == ktiles) {
      c_kt = 0;
      c_t += int(gridDim.x);
    }
  }
}

template <int S>
void add_cuda_pipeline(registry& r) {
  using namespace smallgemm_shape;
  auto* k = &pb_cuda_pipeline_smallgemm<S>;
  const std::size_t sb = std::size_t(2) * tile * bk * sizeof(float);
  // The ring is static shared memory (as in the sample): no dynamic shared memory at launch.
  r.smallgemm.push_back({manual_desc("manual-cuda-pipeline", porter::path_name<porter::path::cp_async>,
                                     porter::path::cp_async::min_compute_capability, S, threads, sb, 0, 0,
                                     reinterpret_cast<const void*>(k), "pb_cuda_pipeline_smallgemm"),
                         [k](const smallgemm_problem& p, int grid) -> launcher {
                           if (p.m % tile || p.n % tile || p.k % bk)
                             throw std::invalid_argument("the cuda::pipeline smallgemm needs m, n and k % 16 == 0 (cuda::memcpy_async has no zero fill)");
                           if (reinterpret_cast<std::uintptr_t>(p.a) % 16 || reinterpret_cast<std::uintptr_t>(p.b) % 16)
                             throw std::invalid_argument("the cuda::pipeline smallgemm needs A and B 16-byte aligned");
                           return [=](cudaStream_t s) {
                             k<<<grid, threads, 0, s>>>(p.a, p.b, p.c, p.m, p.n, p.k);
                             check_launch("pb_cuda_pipeline_smallgemm");
                           };
                         }});
}

}  // namespace

void register_cuda_pipeline_kernels(registry& r) {
  add_cuda_pipeline<1>(r);
  add_cuda_pipeline<2>(r);
  add_cuda_pipeline<3>(r);
  add_cuda_pipeline<4>(r);
  add_cuda_pipeline<5>(r);
  add_cuda_pipeline<6>(r);
  add_cuda_pipeline<7>(r);
  add_cuda_pipeline<8>(r);
}

}  // namespace pb
