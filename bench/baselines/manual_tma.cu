// bench/baselines/manual_tma.cu — hand-written TMA pipelines: what porter's tma path must match.
//
// The same tilings as the porter kernels (bench/kernels/shapes.hpp) and the same compute on a
// landed tile (bench/kernels/compute.cuh), with the pipeline a competent user writes by hand on
// Hopper:
//   * one FULL mbarrier per stage, initialised by thread 0 with arrival count 1, then
//     fence.mbarrier_init.release.cluster and a CTA barrier;
//   * thread 0 issues a step: mbarrier.arrive.expect_tx with the stage's bytes (its one arrival),
//     then the copies, which complete those bytes on the same barrier: cp.async.bulk for stream's
//     1D tile, cp.async.bulk.tensor.2d with a CUtensorMap for the stencils, sgemm and smallgemm;
//   * every thread waits for the step with mbarrier.try_wait.parity, parity = (pass over the ring) & 1;
//   * the CUTLASS "multistage" loop of the cp.async baseline (manual_cp_async.cu): a prologue of
//     S-1 steps, then per step wait, one __syncthreads (every thread is done with the stage consumed
//     in the previous step), thread 0 refills that stage, compute. S = 1: issue, wait, compute,
//     __syncthreads. There are no EMPTY barriers: the __syncthreads orders every thread's reads of a
//     stage before thread 0 refills it, which is also why a thread can never wait on a phase that
//     has already been overtaken (its parity would alias).
// Tensor maps are encoded on the host with cuTensorMapEncodeTiled, reached through
// cudaGetDriverEntryPointByVersion (porter-bench never links libcuda): fp32, no interleave, no
// swizzle, L2 promotion 256 B (porter's choice, so both read the same way), OOB fill NONE, i.e.
// elements outside the tensor land as zeros — exactly what porter and the cp.async baseline produce,
// so results are bit-identical. Instructions come from CCCL's cuda::ptx (CUDA 13, CCCL 3.0).
// Sources: PTX ISA 9.7.9.25.4 (cp.async.bulk), 9.7.9.25.5 (cp.async.bulk.tensor), 9.7.13.15
// (mbarrier init / arrive.expect_tx / try_wait.parity, phases), 9.7.13.4 (fence.mbarrier_init);
// CUDA C++ Programming Guide, "Asynchronous Data Copies using the Tensor Memory Accelerator".
// This file builds for targets without TMA too: there every kernel is a trap stub, and min_cc = 90
// keeps porter-bench from launching it.
#include <cuda.h>  // CUtensorMap and its enums (types only: no libcuda link)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <nv/target>

#include <cuda/ptx>
#include <porter/tma/path.hpp>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "../kernels/compute.cuh"
#include "../kernels/shapes.hpp"
#include "../src/variants.hpp"
#include "manual_common.hpp"

namespace pb {
namespace {

// ---- device: the ring and the instructions ----------------------------------------------------------

/// Shared-memory layout of a hand-written TMA ring: `Stages` stage buffers of `StageBytes` bytes,
/// each rounded up to 128 B (the cp.async.bulk.tensor destination alignment without swizzle), then
/// one 8-byte FULL mbarrier per stage. `bytes` is the dynamic shared memory to launch with; it
/// includes 128 B of slack because dynamic shared memory is only guaranteed 16-byte alignment.
template <int Stages, std::size_t StageBytes>
struct tma_ring {
  static constexpr std::size_t stage_bytes = (StageBytes + 127) / 128 * 128;
  static constexpr std::size_t bytes = 128 + Stages * stage_bytes + 8 * Stages;
  unsigned char* base;   ///< stage 0, 128-byte aligned in the shared window
  std::uint64_t* full;   ///< full[s]: the FULL mbarrier of stage s
  /// Lay the ring out over `smem` (the start of the dynamic shared memory, `bytes` long).
  __device__ explicit tma_ring(unsigned char* smem) {
    const unsigned misalign = unsigned(__cvta_generic_to_shared(smem)) & 127u;
    base = smem + ((128u - misalign) & 127u);
    full = reinterpret_cast<std::uint64_t*>(base + Stages * stage_bytes);
  }
  /// First byte of stage s (0 <= s < Stages).
  __device__ unsigned char* stage(int s) const { return base + std::size_t(s) * stage_bytes; }
};

/// Collective: thread 0 initialises the S FULL barriers with arrival count 1
/// (mbarrier.init.shared.b64, PTX 9.7.13.15.9) and makes the initialisation visible to the async
/// proxy that completes transactions on them (fence.mbarrier_init.release.cluster, PTX 9.7.13.4);
/// then a CTA barrier, so nobody waits on an uninitialised barrier.
template <int S>
__device__ __forceinline__ void init_full_barriers(std::uint64_t* full) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (if (threadIdx.x == 0) {
                      for (int s = 0; s < S; ++s) cuda::ptx::mbarrier_init(full + s, 1u);
                      cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
                    } __syncthreads();),
                    (__trap();))
}

/// One thread: arrive on `bar` (its single expected arrival) and raise the phase's expected
/// transaction count by `bytes` (< 2^20), in one instruction:
/// mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 (PTX 9.7.13.15.12, sm_90).
__device__ __forceinline__ void arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    ((void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                                cuda::ptx::space_shared, bar, bytes);),
                    (__trap();))
}

/// Every thread: spin until the phase of `bar` with parity `parity` has completed
/// (mbarrier.try_wait.parity.shared::cta.b64, acquire at CTA scope, PTX 9.7.13.15.16): the bytes
/// of that step are then visible to this thread.
__device__ __forceinline__ void wait_full(std::uint64_t* bar, std::uint32_t parity) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {}), (__trap();))
}

/// One thread: copy `bytes` bytes (a multiple of 16; both addresses 16-byte aligned) from global
/// `src` to shared `dst`, completing them on `bar`:
/// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes (PTX 9.7.9.25.4.1, sm_90).
__device__ __forceinline__ void bulk_g2s(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, src, bytes, bar);),
                    (__trap();))
}

/// One thread: copy the box of the 2D tensor map `tmap` (a __grid_constant__ parameter) whose first
/// element is at column c0, row c1 (elements, innermost first; may be negative or past the end:
/// those elements land as zeros) to shared `dst` (128-byte aligned), completing its bytes on `bar`:
/// cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
/// (PTX 9.7.9.25.5.1, sm_90). c0 x 4 must be a multiple of 16.
__device__ __forceinline__ void tensor_g2s_2d(void* dst, const CUtensorMap* tmap, int c0, int c1, std::uint64_t* bar) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (const std::int32_t coords[2] = {c0, c1};
                     cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, tmap, coords, bar);),
                    (__trap();))
}

/// The multistage loop shared by the kernels. issue(j, s) is called by thread 0 only and must
/// arrive_expect_tx on full[s] and issue step j's copies into stage s; consume(i, s) is called by
/// every thread once step i has landed in stage s. All threads of the CTA run it with the same
/// `steps`; full[] must have been initialised (init_full_barriers<S>).
template <int S, class Issue, class Consume>
__device__ __forceinline__ void tma_pipeline(std::uint64_t* full, int steps, Issue&& issue, Consume&& consume) {
  const bool leader = threadIdx.x == 0;
  if constexpr (S == 1) {
    for (int i = 0; i < steps; ++i) {
      if (leader) issue(i, 0);
      wait_full(full, std::uint32_t(i) & 1u);
      consume(i, 0);
      __syncthreads();  // everyone is done with the stage before thread 0 refills it
    }
  } else {
    for (int j = 0; j < S - 1 && j < steps; ++j)
      if (leader) issue(j, j);
    for (int i = 0; i < steps; ++i) {
      const int s = i % S;
      wait_full(full + s, std::uint32_t(i / S) & 1u);  // step i has landed
      __syncthreads();                                  // and everyone is done with step i-1's stage
      const int next = i + S - 1;
      if (leader && next < steps) issue(next, next % S);  // refill step i-1's stage
      consume(i, s);
    }
  }
}

// ---- kernels ----------------------------------------------------------------------------------------

/// stream: y = a * x + b over n floats, 1D tiles of 3072 floats (12 KiB) with cp.async.bulk.
/// The last tile copies only its n - base elements: (n - base) x 4 bytes is a multiple of 16 because
/// n % 4 == 0 (host precondition), and stream_consume reads a partial tile only below n, so the
/// stage's bytes past the end (stale, never read) need no zero fill and no generic-proxy stores.
template <int S>
__global__ void __launch_bounds__(stream_shape::threads)
    pb_manual_tma_stream(const float* __restrict__ x, float* __restrict__ y, long long n, float a, float b) {
  using namespace stream_shape;
  using ring_t = tma_ring<S, tile * sizeof(float)>;
  extern __shared__ float4 tma_smem[];
  const ring_t ring(reinterpret_cast<unsigned char*>(tma_smem));
  init_full_barriers<S>(ring.full);
  const long long tiles = (n + tile - 1) / tile;
  auto first = [&](int i) { return (static_cast<long long>(blockIdx.x) + static_cast<long long>(i) * gridDim.x) * tile; };
  tma_pipeline<S>(
      ring.full, tiles_of_this_cta(tiles),
      [&](int j, int s) {
        const long long base = first(j);
        const long long elems = n - base < tile ? n - base : tile;
        const std::uint32_t bytes = std::uint32_t(elems) * std::uint32_t(sizeof(float));
        arrive_expect_tx(ring.full + s, bytes);
        bulk_g2s(ring.stage(s), x + base, bytes, ring.full + s);
      },
      [&](int i, int s) { stream_consume<tile, threads>(reinterpret_cast<const float*>(ring.stage(s)), y, first(i), n, a, b); });
}

/// stencil2d, radius R: each 32 x 128 output tile at (r0, c0) reads one box of (32 + 2R) x 136 floats
/// at row r0 - R, column c0 - 4 (the porter kernel's box: rows stay 16-byte aligned), zeros outside.
template <int S, int R>
__global__ void __launch_bounds__(stencil_shape::threads)
    pb_manual_tma_stencil(const __grid_constant__ CUtensorMap in_map, float* __restrict__ out, int h, int w) {
  using namespace stencil_shape;
  constexpr std::uint32_t box_bytes = std::uint32_t(tile_h + 2 * R) * (tile_w + 2 * pad_w) * sizeof(float);
  using ring_t = tma_ring<S, box_bytes>;
  extern __shared__ float4 tma_smem[];
  const ring_t ring(reinterpret_cast<unsigned char*>(tma_smem));
  init_full_barriers<S>(ring.full);
  const int tiles_x = (w + tile_w - 1) / tile_w;
  const long long tiles = static_cast<long long>(tiles_x) * ((h + tile_h - 1) / tile_h);
  auto origin_r = [&](int i) { return ((int(blockIdx.x) + i * int(gridDim.x)) / tiles_x) * tile_h; };
  auto origin_c = [&](int i) { return ((int(blockIdx.x) + i * int(gridDim.x)) % tiles_x) * tile_w; };
  tma_pipeline<S>(
      ring.full, tiles_of_this_cta(tiles),
      [&](int j, int s) {
        arrive_expect_tx(ring.full + s, box_bytes);
        tensor_g2s_2d(ring.stage(s), &in_map, origin_c(j) - pad_w, origin_r(j) - R, ring.full + s);
      },
      [&](int i, int s) {
        stencil_consume<R>(reinterpret_cast<const float*>(ring.stage(s)), out, origin_r(i), origin_c(i), h, w);
      });
}

/// sgemm: C = At^T B with sgemm_shape's tiling (128 x 128 x 16); a stage is the At box (16 x 128
/// floats, 8 KiB) followed by the B box (16 x 128 floats, 8 KiB), both 2D tensor copies on one
/// barrier. The loop is porter's pb_sgemm's, by hand: thread 0 fills all S stages before the first
/// wait; iteration i computes step i, waits for step i + 1, __syncthreads (everyone is done with
/// step i's stage), and thread 0 refills that stage with step i + S. S = 1: tma_pipeline's
/// one-stage loop.
template <int S>
__global__ void __launch_bounds__(sgemm_shape::threads, 2)
    pb_manual_tma_sgemm(const __grid_constant__ CUtensorMap at_map, const __grid_constant__ CUtensorMap b_map,
                        float* __restrict__ c, int m, int n, int k) {
  using namespace sgemm_shape;
  constexpr std::size_t a_bytes = std::size_t(bk) * bm * sizeof(float), b_bytes = std::size_t(bk) * bn * sizeof(float);
  using ring_t = tma_ring<S, a_bytes + b_bytes>;
  extern __shared__ float4 tma_smem[];
  const ring_t ring(reinterpret_cast<unsigned char*>(tma_smem));
  init_full_barriers<S>(ring.full);
  const int tiles_n = (n + bn - 1) / bn, ktiles = (k + bk - 1) / bk;
  const long long tiles = static_cast<long long>((m + bm - 1) / bm) * tiles_n;
  const int steps = tiles_of_this_cta(tiles) * ktiles;
  const sgemm_thread th;
  float acc[8][8];
  sgemm_zero(acc);
  // Cursors, as porter's pb_sgemm keeps them (steps are issued and consumed in order): the K-tile
  // and output tile of the next step to issue (leader) and to consume, with no division per step.
  int p_kt = 0, p_t = int(blockIdx.x), p_tm = 0, p_tn = 0, c_kt = 0, c_t = int(blockIdx.x);
  if (tiles_n > 0) p_tm = p_t / tiles_n, p_tn = p_t - p_tm * tiles_n;
  auto issue = [&](int, int s) {
    arrive_expect_tx(ring.full + s, std::uint32_t(a_bytes + b_bytes));
    tensor_g2s_2d(ring.stage(s), &at_map, p_tm * bm, p_kt * bk, ring.full + s);
    tensor_g2s_2d(ring.stage(s) + a_bytes, &b_map, p_tn * bn, p_kt * bk, ring.full + s);
    if (++p_kt == ktiles) {
      p_kt = 0;
      p_t += int(gridDim.x);
      p_tm = p_t / tiles_n;
      p_tn = p_t - p_tm * tiles_n;
    }
  };
  auto consume = [&](int, int s) {
    const float* st = reinterpret_cast<const float*>(ring.stage(s));
    sgemm_mma(acc, st, st + bk * bm, th);
    if (c_kt == ktiles - 1) {
      const int tm = c_t / tiles_n, tn = c_t - tm * tiles_n;
      sgemm_store(acc, c, tm * bm, tn * bn, m, n, th);
      sgemm_zero(acc);  // the next tile's accumulators (compute.cuh: sgemm_zero)
    }
    if (++c_kt == ktiles) {
      c_kt = 0;
      c_t += int(gridDim.x);
    }
  };
  if constexpr (S == 1) {
    tma_pipeline<1>(ring.full, steps, issue, consume);
  } else {
    const bool leader = threadIdx.x == 0;
    for (int j = 0; j < S && j < steps; ++j)
      if (leader) issue(j, j);
    if (steps > 0) wait_full(ring.full, 0u);  // step 0 has landed
    for (int i = 0; i < steps; ++i) {
      const int s = i % S;
      consume(i, s);
      if (i + 1 < steps) {
        const int s1 = (i + 1) % S;
        wait_full(ring.full + s1, std::uint32_t((i + 1) / S) & 1u);  // step i + 1 has landed
        __syncthreads();                                               // everyone is done with stage s
        if (leader && i + S < steps) issue(i + S, s);
      }
    }
  }
}

/// smallgemm: C = A B (row-major) with the 16 x 16 x 16 tiling; a stage is the A box (rows m0..,
/// columns k0..; 16 x 16 floats, 1 KiB) followed by the B box (rows k0.., columns n0..; 1 KiB).
template <int S>
__global__ void __launch_bounds__(smallgemm_shape::threads)
    pb_manual_tma_smallgemm(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                            float* __restrict__ c, int m, int n, int k) {
  using namespace smallgemm_shape;
  constexpr std::size_t box_bytes = std::size_t(tile) * bk * sizeof(float);
  using ring_t = tma_ring<S, 2 * box_bytes>;
  extern __shared__ float4 tma_smem[];
  const ring_t ring(reinterpret_cast<unsigned char*>(tma_smem));
  init_full_barriers<S>(ring.full);
  const int tiles_n = (n + tile - 1) / tile, ktiles = (k + bk - 1) / bk;
  const long long tiles = static_cast<long long>((m + tile - 1) / tile) * tiles_n;
  float acc = 0.f;
  // Step cursors as in porter's pb_smallgemm (steps are issued and consumed in order).
  int p_kt = 0, p_t = int(blockIdx.x), p_tm = 0, p_tn = 0, c_kt = 0, c_t = int(blockIdx.x);
  if (tiles_n > 0) p_tm = p_t / tiles_n, p_tn = p_t - p_tm * tiles_n;
  tma_pipeline<S>(
      ring.full, tiles_of_this_cta(tiles) * ktiles,
      [&](int, int s) {
        arrive_expect_tx(ring.full + s, std::uint32_t(2 * box_bytes));
        tensor_g2s_2d(ring.stage(s), &a_map, p_kt * bk, p_tm * tile, ring.full + s);
        tensor_g2s_2d(ring.stage(s) + box_bytes, &b_map, p_tn * tile, p_kt * bk, ring.full + s);
        if (++p_kt == ktiles) {
          p_kt = 0;
          p_t += int(gridDim.x);
          p_tm = p_t / tiles_n;
          p_tn = p_t - p_tm * tiles_n;
        }
      },
      [&](int, int s) {
        if (c_kt == 0) acc = 0.f;
        const float* st = reinterpret_cast<const float*>(ring.stage(s));
        acc = smallgemm_mma(acc, st, st + tile * bk);
        if (c_kt == ktiles - 1) {
          const int tm = c_t / tiles_n, tn = c_t - tm * tiles_n;
          smallgemm_store(acc, c, tm * tile, tn * tile, m, n);
        }
        if (++c_kt == ktiles) {
          c_kt = 0;
          c_t += int(gridDim.x);
        }
      });
}

// ---- host: tensor maps and registration ---------------------------------------------------------------

using encode_fn = PFN_cuTensorMapEncodeTiled_v12000;

/// cuTensorMapEncodeTiled (the CUDA 12.0 ABI) from the driver, through the runtime's
/// cudaGetDriverEntryPointByVersion, looked up once. Throws std::runtime_error when the driver has none.
encode_fn tensor_map_encoder() {
  static const encode_fn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || p == nullptr) {
      cudaGetLastError();
      return encode_fn(nullptr);
    }
    return reinterpret_cast<encode_fn>(p);
  }();
  if (!fn) throw std::runtime_error("cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\", 12000) found no driver entry point");
  return fn;
}

/// A 2D tensor map over a row-major fp32 matrix at `base` (16-byte aligned): `rows` x `cols`
/// elements, `pitch` elements from one row to the next (pitch x 4 a multiple of 16), read in boxes
/// of `box_rows` x `box_cols` elements (each 1..256; box_cols x 4 a multiple of 16). Elements of a
/// box outside the matrix land as zeros (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE). Throws
/// std::runtime_error naming every parameter when the driver refuses the encoding.
CUtensorMap encode_2d(const float* base, long long rows, long long cols, long long pitch, int box_rows, int box_cols) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};                 // innermost first
  const cuuint64_t strides[1] = {cuuint64_t(pitch) * cuuint64_t(sizeof(float))};   // bytes, dimension 1
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUresult r = tensor_map_encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims, strides,
                                          box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                          CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::ostringstream m;
    m << "cuTensorMapEncodeTiled returned " << int(r) << " for a " << rows << " x " << cols << " fp32 matrix at "
      << static_cast<const void*>(base) << ", row pitch " << pitch * 4 << " B, box " << box_rows << " x " << box_cols;
    throw std::runtime_error(m.str());
  }
  return map;
}

/// Throw std::invalid_argument("<what> needs <rule>") unless `ok`.
void require(bool ok, const char* what, const char* rule) {
  if (!ok) throw std::invalid_argument(std::string(what) + " needs " + rule);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// Registry description of a hand-written TMA pipeline with ring type Ring.
template <class Ring, int S>
kernel_desc tma_desc(int threads, const void* f, const char* name) {
  return manual_desc("manual", porter::path_name<porter::path::tma>, porter::path::tma::min_compute_capability, S, threads,
                     Ring::stage_bytes, Ring::bytes, Ring::bytes - S * Ring::stage_bytes, f, name);
}

template <int S>
void add_manual_tma(registry& r) {
  {
    using ring_t = tma_ring<S, stream_shape::tile * sizeof(float)>;
    auto* k = &pb_manual_tma_stream<S>;
    r.stream.push_back({tma_desc<ring_t, S>(stream_shape::threads, reinterpret_cast<const void*>(k), "pb_manual_tma_stream"),
                        [k](const stream_problem& p, int grid) -> launcher {
                          require(p.n % 4 == 0, "manual tma stream", "n % 4 == 0 (the last tile a whole number of 16-byte units)");
                          require(aligned16(p.x), "manual tma stream", "x 16-byte aligned");
                          allow_smem(reinterpret_cast<const void*>(k), ring_t::bytes);
                          return [=](cudaStream_t s) {
                            k<<<grid, stream_shape::threads, ring_t::bytes, s>>>(p.x, p.y, p.n, p.a, p.b);
                            check_launch("pb_manual_tma_stream");
                          };
                        }});
  }
  auto stencil = [&](auto radius) {
    constexpr int R = decltype(radius)::value;
    using namespace stencil_shape;
    using ring_t = tma_ring<S, std::size_t(tile_h + 2 * R) * (tile_w + 2 * pad_w) * sizeof(float)>;
    auto* k = &pb_manual_tma_stencil<S, R>;
    r.stencil[R].push_back({tma_desc<ring_t, S>(threads, reinterpret_cast<const void*>(k), "pb_manual_tma_stencil"),
                            [k](const stencil_problem& p, int grid) -> launcher {
                              require(p.w % 4 == 0, "manual tma stencil", "w % 4 == 0 (16-byte row pitch)");
                              require(aligned16(p.in), "manual tma stencil", "in 16-byte aligned");
                              const CUtensorMap in_map = encode_2d(p.in, p.h, p.w, p.w, tile_h + 2 * R, tile_w + 2 * pad_w);
                              allow_smem(reinterpret_cast<const void*>(k), ring_t::bytes);
                              return [=](cudaStream_t s) {
                                k<<<grid, threads, ring_t::bytes, s>>>(in_map, p.out, p.h, p.w);
                                check_launch("pb_manual_tma_stencil");
                              };
                            }});
  };
  stencil(std::integral_constant<int, 1>{});
  stencil(std::integral_constant<int, 2>{});
  {
    using namespace sgemm_shape;
    using ring_t = tma_ring<S, std::size_t(bk) * (bm + bn) * sizeof(float)>;
    auto* k = &pb_manual_tma_sgemm<S>;
    r.sgemm.push_back({tma_desc<ring_t, S>(threads, reinterpret_cast<const void*>(k), "pb_manual_tma_sgemm"),
                       [k](const sgemm_problem& p, int grid) -> launcher {
                         require(p.m % 4 == 0 && p.n % 4 == 0, "manual tma sgemm", "m % 4 == 0 and n % 4 == 0 (16-byte row pitches)");
                         require(aligned16(p.at) && aligned16(p.b), "manual tma sgemm", "At and B 16-byte aligned");
                         const CUtensorMap at_map = encode_2d(p.at, p.k, p.m, p.m, bk, bm);
                         const CUtensorMap b_map = encode_2d(p.b, p.k, p.n, p.n, bk, bn);
                         allow_smem(reinterpret_cast<const void*>(k), ring_t::bytes);
                         return [=](cudaStream_t s) {
                           k<<<grid, threads, ring_t::bytes, s>>>(at_map, b_map, p.c, p.m, p.n, p.k);
                           check_launch("pb_manual_tma_sgemm");
                         };
                       }});
  }
  {
    using namespace smallgemm_shape;
    using ring_t = tma_ring<S, std::size_t(2) * tile * bk * sizeof(float)>;
    auto* k = &pb_manual_tma_smallgemm<S>;
    r.smallgemm.push_back({tma_desc<ring_t, S>(threads, reinterpret_cast<const void*>(k), "pb_manual_tma_smallgemm"),
                           [k](const smallgemm_problem& p, int grid) -> launcher {
                             require(p.k % 4 == 0 && p.n % 4 == 0, "manual tma smallgemm", "k % 4 == 0 and n % 4 == 0 (16-byte row pitches)");
                             require(aligned16(p.a) && aligned16(p.b), "manual tma smallgemm", "A and B 16-byte aligned");
                             const CUtensorMap a_map = encode_2d(p.a, p.m, p.k, p.k, tile, bk);
                             const CUtensorMap b_map = encode_2d(p.b, p.k, p.n, p.n, bk, tile);
                             allow_smem(reinterpret_cast<const void*>(k), ring_t::bytes);
                             return [=](cudaStream_t s) {
                               k<<<grid, threads, ring_t::bytes, s>>>(a_map, b_map, p.c, p.m, p.n, p.k);
                               check_launch("pb_manual_tma_smallgemm");
                             };
                           }});
  }
}

}  // namespace

void register_manual_tma_kernels(registry& r) {
  add_manual_tma<1>(r);
  add_manual_tma<2>(r);
  add_manual_tma<3>(r);
  add_manual_tma<4>(r);
  add_manual_tma<5>(r);
  add_manual_tma<6>(r);
  add_manual_tma<7>(r);
  add_manual_tma<8>(r);
}

}  // namespace pb
