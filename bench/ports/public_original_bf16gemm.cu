// bench/ports/public_original_bf16gemm.cu — times the bf16 tensor-core port's original in
// porter-bench, when the build has it: NVIDIA cuda-samples' bf16TensorCoreGemm.cu, fetched by
// whoever runs the bench (bench/README.md, "ports") and named by PORTER_PORTS_ORIGINAL_BF16GEMM.
// This file holds none of the sample's code: it includes the fetched file (its main() renamed) and
// launches the sample's compute_bf16gemm_async_copy as the sample's main() does (SMs x 2 CTAs of
// 256 threads, its SHMEM_SZ of dynamic shared memory, alpha 1.1, beta 1.2). The sample's sizes are
// its macros (M_GLOBAL = N_GLOBAL = K_GLOBAL = 8192), so the pair runs at those.
// Without PORTER_PORTS_ORIGINAL_BF16GEMM it compiles to a note saying why the row is missing.
//
// The sample #defines M, N, K, WARP_SIZE and more at file scope: porter-bench's headers are included
// first, and nothing after the sample uses those names.
#include <stdexcept>
#include <string>

#include "../baselines/manual_common.hpp"
#include "ports.hpp"

#if defined(PB_PORTS_ORIGINAL_BF16GEMM_FILE)
#define main pb_bf16_sample_main  // the sample's main() is not porter-bench's
#define kernelNames pb_bf16_sample_kernel_names  // globalToShmemAsyncCopy.cu defines one too (public_original.cu)
#include PB_PORTS_ORIGINAL_BF16GEMM_FILE
#undef kernelNames
#undef main

namespace {
// The sample's launch configuration, from its macros (its main() computes SHMEM_SZ the same way).
constexpr int sample_size = M_GLOBAL;
constexpr int sample_threads = THREADS_PER_BLOCK;
constexpr std::size_t sample_smem =
    MAX(sizeof(__nv_bfloat16) * (BLOCK_COL_TILES * M) * (CHUNK_K * K + SKEW_BF16) * 2,
        M * (BLOCK_ROW_WARPS * WARP_ROW_TILES) * N * (BLOCK_COL_WARPS * WARP_COL_TILES) * sizeof(float));
static_assert(M_GLOBAL == N_GLOBAL && N_GLOBAL == K_GLOBAL && M_GLOBAL == pb::ports::bf16gemm::size,
              "the pair's size (ports.hpp bf16gemm::size) is the sample's M_GLOBAL = N_GLOBAL = K_GLOBAL");
}  // namespace
#endif

namespace pb::ports {

void register_public_bf16gemm_original(registry& r) {
  port_pair& pair = r.port("public-bf16gemm");
#if defined(PB_PORTS_ORIGINAL_BF16GEMM_FILE)
  auto* k = &compute_bf16gemm_async_copy;
  kernel_desc d = manual_desc("original", "cuda::pipeline (thread scope)", 80, 1, sample_threads, sample_smem, sample_smem, 0,
                              reinterpret_cast<const void*>(k), "compute_bf16gemm_async_copy");
  pair.variants.insert(pair.variants.begin(),
                       {d, [k](const port_problem& p, int) -> launcher {
                          if (p.rows != sample_size || p.cols != sample_size || p.depth != sample_size)
                            throw std::invalid_argument("the sample's sizes are compile-time: m = n = k = " + std::to_string(sample_size));
                          int dev = 0, sms = 0;
                          if (cudaGetDevice(&dev) != cudaSuccess ||
                              cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
                            throw std::runtime_error("compute_bf16gemm_async_copy: cannot read the device's SM count");
                          pb::allow_smem(reinterpret_cast<const void*>(k), sample_smem);
                          const auto* a = static_cast<const __nv_bfloat16*>(p.a16);
                          const auto* b = static_cast<const __nv_bfloat16*>(p.b16);
                          return [=](cudaStream_t s) {
                            // compute_bf16gemm_async_copy(A, B, C, D, alpha, beta), as the sample launches it.
                            k<<<sms * 2, sample_threads, sample_smem, s>>>(a, b, p.c, p.out, bf16gemm::alpha, bf16gemm::beta);
                            check_launch("compute_bf16gemm_async_copy");
                          };
                        },
                        {}});
  pair.note += std::string(pair.note.empty() ? "" : "; ") + "original: " + PB_PORTS_ORIGINAL_BF16GEMM_FILE;
#else
  pair.note += std::string(pair.note.empty() ? "" : "; ") + "the original (cuda-samples bf16TensorCoreGemm.cu) is not in this build: configure with "
              "-DPORTER_PORTS_ORIGINAL_BF16GEMM=<path to the fetched file> (bench/README.md, \"ports\")";
#endif
}

}  // namespace pb::ports
