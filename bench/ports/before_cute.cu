// bench/ports/before_cute.cu — "before" of the CUTLASS / CuTe idiom: the sgemm workload's problem
// (ports.hpp, cute_gemm; C = A B fp32, At k x m and B k x n row-major, a 128 x 128 C tile per CTA of
// 256 threads, K-tile sgemm_shape::bk = 16, 4 stages) with the data movement of CUTLASS's sm80 multistage mainloops
// (cutlass/gemm/collective/sm80_mma_multistage.hpp) written in CuTe:
//   * the global tiles are local_tile()s of CuTe tensors over At and B, the ring two smem tensors of
//     (16, 128, S); a TiledCopy of Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float> (256 threads
//     as 8 x 32, 4 floats each: two 16-byte cp.async.cg per thread per operand per K-tile) partitions
//     both, and cute::copy issues a K-tile's copies;
//   * the prologue issues S-1 K-tiles, each closed by cp_async_fence(); each step waits with
//     cp_async_wait<S - 2>(), runs one __syncthreads, refills the stage consumed one step earlier with
//     K-tile kt + S - 1 (and fences, also when there is none left, so the group count stays right),
//     then computes on stage kt % S.
// The compute is the sgemm workload's (compute.cuh sgemm_mma, sgemm_store), so the port (after.cuh
// pb_port_cute: this kernel line by line, its copies and waits on porter) gives the same bits.
// Needs m % 128 == 0, n % 128 == 0, k % 8 == 0 (no predication: CuTe's cp.async atoms have no
// zero fill; checked on the host) and sm_80 (cp.async; the rows need compute capability 8.0: CuTe
// compiles the atom to a trap below sm_80).
//
// Compiled only when the build has CUTLASS's headers (PORTER_CUTLASS_DIR, bench/CMakeLists.txt, with
// --expt-relaxed-constexpr and C++17); without them this file registers a note saying why the
// pair's before is missing, and the pair runs porter's rows only.
#include <stdexcept>

#include "../baselines/manual_common.hpp"
#include "../kernels/compute.cuh"
#include "../kernels/shapes.hpp"
#include "ports.hpp"

#if defined(PB_HAVE_CUTLASS)
#include <cute/tensor.hpp>

namespace pb::ports {
namespace {

/// The kernel's copy traits, at namespace scope as CUTLASS's kernel traits are: the smem ring's
/// layout (bk x 128 row-major per stage, bk = 16) and the TiledCopy of 16-byte cp.async atoms.
template <int S>
struct cute_traits {
  using bk = cute::Int<sgemm_shape::bk>;
  using bm = cute::Int<sgemm_shape::bm>;
  using bn = cute::Int<sgemm_shape::bn>;
  using SmemLayoutA = cute::Layout<cute::Shape<bk, bm, cute::Int<S>>, cute::Stride<bm, cute::_1, cute::Int<sgemm_shape::bk * sgemm_shape::bm>>>;
  using SmemLayoutB = cute::Layout<cute::Shape<bk, bn, cute::Int<S>>, cute::Stride<bn, cute::_1, cute::Int<sgemm_shape::bk * sgemm_shape::bn>>>;
  using GmemTiledCopy = decltype(cute::make_tiled_copy(cute::Copy_Atom<cute::SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>, float>{},
                                                       cute::Layout<cute::Shape<cute::_8, cute::_32>, cute::Stride<cute::_32, cute::_1>>{},
                                                       cute::Layout<cute::Shape<cute::_1, cute::_4>>{}));
  static constexpr std::size_t smem_bytes = sizeof(float) * (cute::cosize_v<SmemLayoutA> + cute::cosize_v<SmemLayoutB>);
};

template <int S>
__global__ void __launch_bounds__(sgemm_shape::threads)
    pb_port_before_cute(const float* __restrict__ at, const float* __restrict__ b, float* __restrict__ c, int m, int n, int k) {
  using namespace cute;
  using T = cute_traits<S>;
  static_assert(S >= 2, "the multistage loop keeps S - 1 K-tiles in flight");
  extern __shared__ __align__(128) unsigned char smem[];
  float* sa = reinterpret_cast<float*>(smem);
  float* sb = sa + cosize_v<typename T::SmemLayoutA>;
  Tensor sA = make_tensor(make_smem_ptr(sa), typename T::SmemLayoutA{});  // (BK, BM, PIPE)
  Tensor sB = make_tensor(make_smem_ptr(sb), typename T::SmemLayoutB{});  // (BK, BN, PIPE)

  const int tiles_n = n / sgemm_shape::bn;
  const int tm = int(blockIdx.x) / tiles_n, tn = int(blockIdx.x) % tiles_n;
  Tensor mA = make_tensor(make_gmem_ptr(at), make_shape(k, m), make_stride(m, _1{}));  // At, k x m
  Tensor mB = make_tensor(make_gmem_ptr(b), make_shape(k, n), make_stride(n, _1{}));   // B, k x n
  Tensor gA = local_tile(mA, make_shape(typename T::bk{}, typename T::bm{}), make_coord(_, tm));  // (BK, BM, k_tiles)
  Tensor gB = local_tile(mB, make_shape(typename T::bk{}, typename T::bn{}), make_coord(_, tn));  // (BK, BN, k_tiles)

  typename T::GmemTiledCopy gmem_copy;
  auto thr = gmem_copy.get_slice(threadIdx.x);
  Tensor tAgA = thr.partition_S(gA);  // (CPY, CPY_K, CPY_M, k_tiles)
  Tensor tAsA = thr.partition_D(sA);  // (CPY, CPY_K, CPY_M, PIPE)
  Tensor tBgB = thr.partition_S(gB);
  Tensor tBsB = thr.partition_D(sB);

  const int k_tiles = k / sgemm_shape::bk;
  int k_read = 0;
  // Prologue: K-tiles 0 .. S-2 into stages 0 .. S-2, one cp.async group each.
  for (int s = 0; s < S - 1; ++s) {
    if (k_read < k_tiles) {
      copy(gmem_copy, tAgA(_, _, _, k_read), tAsA(_, _, _, s));
      copy(gmem_copy, tBgB(_, _, _, k_read), tBsB(_, _, _, s));
    }
    cp_async_fence();
    ++k_read;
  }

  const sgemm_thread th;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<S - 2>();  // K-tile kt has landed (this thread's copies) ...
    __syncthreads();         // ... and everyone's; every thread is done with stage (kt - 1) % S
    const int write = (kt + S - 1) % S;
    if (k_read < k_tiles) {
      copy(gmem_copy, tAgA(_, _, _, k_read), tAsA(_, _, _, write));
      copy(gmem_copy, tBgB(_, _, _, k_read), tBsB(_, _, _, write));
    }
    cp_async_fence();
    ++k_read;
    const int read = kt % S;
    sgemm_mma(acc, &sA(0, 0, read), &sB(0, 0, read), th);
  }
  sgemm_store(acc, c, tm * sgemm_shape::bm, tn * sgemm_shape::bn, m, n, th);
}

}  // namespace

void register_before_cute(registry& r) {
  using namespace sgemm_shape;
  constexpr int S = cute_gemm::stages;
  auto* k = &pb_port_before_cute<S>;
  constexpr std::size_t smem = cute_traits<S>::smem_bytes;
  r.port("cutlass").variants.push_back(
      {manual_desc("before", "cute SM80_CP_ASYNC", 80, S, threads, sizeof(float) * (bk * bm + bk * bn), smem, 0,
                   reinterpret_cast<const void*>(k), "pb_port_before_cute"),
       [k](const port_problem& p, int) -> launcher {
         if (p.rows % bm || p.cols % bn || p.depth % bk)
           throw std::invalid_argument("the CuTe mainloop needs m % 128 == 0, n % 128 == 0 and k % 8 == 0");
         allow_smem(reinterpret_cast<const void*>(k), smem);
         const int grid = (p.rows / bm) * (p.cols / bn);  // one C tile per CTA
         return [=](cudaStream_t s) {
           k<<<grid, threads, smem, s>>>(p.a, p.b, p.out, p.rows, p.cols, p.depth);
           check_launch("pb_port_before_cute");
         };
       },
       {}});
  r.port("cutlass").note = "before: a CuTe sm80 mainloop, compiled with CUTLASS from " PB_HAVE_CUTLASS;
}

}  // namespace pb::ports

#else

namespace pb::ports {

void register_before_cute(registry& r) {
  r.port("cutlass").note = "the CuTe before is not in this build: configure with -DPORTER_CUTLASS_DIR=<CUTLASS include/ folder> "
                           "(bench/README.md, \"ports\"); porter's rows run and are checked against each other";
}

}  // namespace pb::ports

#endif
