// porter/wmma.hpp — nvcuda::wmma fragments loaded from and stored to a landed tile with the
// shared state space: porter::load_matrix_sync / porter::store_matrix_sync, drop-in for
// nvcuda::wmma's when the pointer is into shared memory. NVIDIA only (the AMD flavour of the
// layer below is an #error naming rocWMMA); opt-in, not part of porter/porter.hpp (it includes
// <mma.h>).
//
// Why: nvcc 13 passes wmma::load_matrix_sync's operand pointer (matrix_a, matrix_b) to wmma.load as
// a generic address, even when it points into a __shared__ array, and ptxas lowers a generic
// wmma.load to generic LD instructions, which queue in the LSU's local/global path. A kernel whose
// wmma loads read its shared tiles then stalls on that path: cuda-samples' bf16TensorCoreGemm
// spends 29% of its warp-stall samples on "lg throttle" at these loads (ncu SourceCounters, H100,
// session 48). The same instruction with .shared reads the same registers (the fragment layout
// depends on shape, type and layout, not on the state space; PTX ISA 9.7.14.4, "wmma.load"), and it
// goes through the shared-memory path. (nvcc does infer .shared for a float accumulator's load and
// store when it can see the pointer come from a __shared__ array; porter's accumulator forms name it
// whatever the pointer's history.) tests/lowering pins both behaviours.
//
// Usage, inside a kernel, on a tile porter landed (or any shared memory):
//   auto ready = pipe.consumer_wait();
//   nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major> a;
//   porter::load_matrix_sync(a, ready.template tile<0>().data() + row * ldm + col, ldm);
//   ... nvcuda::wmma::mma_sync as before ...
#pragma once
#include <cstdint>
#include <type_traits>

#include "porter/config.hpp"
#include "porter/detail/trap.hpp"
#include "porter/fragments/wmma.hpp"

namespace porter {

namespace detail {
/// PORTER_DEBUG's check of one wmma access below: `p` into shared memory and 32-byte aligned, and
/// `ldm` elements of T a multiple of 16 bytes (8 for 2-byte elements, 4 for float); otherwise it
/// traps with `msg`. Without PORTER_DEBUG it is nothing.
template <class T>
PORTER_DEVICE PORTER_FORCEINLINE void check_wmma_access(const T* p, unsigned ldm, const char* msg) {
#if PORTER_DEBUG
  if (!__isShared(p) || (reinterpret_cast<std::uintptr_t>(p) % 32) != 0 || (ldm * sizeof(T)) % 16 != 0) trap(msg);
#else
  (void)p, (void)ldm, (void)msg;
#endif
}
}  // namespace detail

/// Load a wmma operand fragment (matrix_a or matrix_b) from shared memory: as
/// nvcuda::wmma::load_matrix_sync(f, p, ldm), bit for bit the same registers, with the shared state
/// space (wmma.load.{a,b}.sync.aligned.{row,col}.{shape}.shared.{f16,bf16}; PTX ISA 9.7.14.4).
/// Supported: shapes m16n16k16, m32n8k16, m8n32k16; elements __half (sm_70+) and __nv_bfloat16
/// (sm_80+: <mma.h> defines no bf16 fragment for older targets, so such code does not compile
/// there, as with nvcuda's); layouts row_major, col_major. Other fragments fail to compile with a
/// message.
/// Preconditions: warp-collective (all 32 lanes, converged, the same p and ldm); `p` points into
/// shared memory at the matrix's first element, 32-byte aligned; `ldm` (elements between
/// consecutive rows for row_major, columns for col_major) a multiple of 8 (16 bytes). With
/// PORTER_DEBUG=1 a violation of the last two traps with a message; otherwise it is undefined, as
/// with nvcuda's.
template <class Use, int M, int N, int K, class T, class Layout>
PORTER_DEVICE PORTER_FORCEINLINE void load_matrix_sync(nvcuda::wmma::fragment<Use, M, N, K, T, Layout>& f, const T* p, unsigned ldm) {
  static_assert(!std::is_same_v<Use, nvcuda::wmma::accumulator>,
                "porter::load_matrix_sync: an accumulator fragment needs its memory layout "
                "(nvcuda::wmma::mem_row_major or mem_col_major) as a fourth argument, as nvcuda::wmma's does.");
  static_assert(std::is_same_v<Use, nvcuda::wmma::accumulator> || backend::wmma_access::operand_supported<Use, M, N, K, T, Layout>,
                "porter::load_matrix_sync: supported operand fragments are matrix_a and matrix_b of shape m16n16k16, "
                "m32n8k16 or m8n32k16 with __half or __nv_bfloat16 elements, row_major or col_major.");
  detail::check_wmma_access(p, ldm, "porter::load_matrix_sync: the pointer must be into shared memory and 32-byte aligned, ldm a multiple of 8");
  backend::wmma_access::load(f, backend::wmma_access::shared_address(p), ldm);
}

/// Load a float wmma accumulator fragment from shared memory: as
/// nvcuda::wmma::load_matrix_sync(f, p, ldm, layout), the same registers, with the shared state
/// space (wmma.load.c.sync.aligned.{row,col}.{shape}.shared.f32; PTX ISA 9.7.14.4). Shapes
/// m16n16k16, m32n8k16, m8n32k16 (sm_70+). Preconditions as the operand form's, with `ldm` a
/// multiple of 4 (16 bytes).
template <int M, int N, int K>
PORTER_DEVICE PORTER_FORCEINLINE void load_matrix_sync(nvcuda::wmma::fragment<nvcuda::wmma::accumulator, M, N, K, float>& f,
                                                       const float* p, unsigned ldm, nvcuda::wmma::layout_t layout) {
  static_assert(backend::wmma_access::accumulator_supported<M, N, K>,
                "porter::load_matrix_sync: supported accumulator fragments are float, of shape m16n16k16, m32n8k16 or m8n32k16.");
  detail::check_wmma_access(p, ldm, "porter::load_matrix_sync: the pointer must be into shared memory and 32-byte aligned, ldm a multiple of 4");
  backend::wmma_access::load(f, backend::wmma_access::shared_address(p), ldm, layout == nvcuda::wmma::mem_row_major);
}

/// Store a float wmma accumulator fragment to shared memory: as
/// nvcuda::wmma::store_matrix_sync(p, f, ldm, layout), the same bytes, with the shared state space
/// (wmma.store.d.sync.aligned.{row,col}.{shape}.shared.f32; PTX ISA 9.7.14.4). Shapes and
/// preconditions as the accumulator load's. The stores are ordered before the caller's later reads
/// of that memory by the caller's barrier, as with nvcuda's.
template <int M, int N, int K>
PORTER_DEVICE PORTER_FORCEINLINE void store_matrix_sync(float* p, const nvcuda::wmma::fragment<nvcuda::wmma::accumulator, M, N, K, float>& f,
                                                        unsigned ldm, nvcuda::wmma::layout_t layout) {
  static_assert(backend::wmma_access::accumulator_supported<M, N, K>,
                "porter::store_matrix_sync: supported accumulator fragments are float, of shape m16n16k16, m32n8k16 or m8n32k16.");
  detail::check_wmma_access(p, ldm, "porter::store_matrix_sync: the pointer must be into shared memory and 32-byte aligned, ldm a multiple of 4");
  backend::wmma_access::store(backend::wmma_access::shared_address(p), f, ldm, layout == nvcuda::wmma::mem_row_major);
}

}  // namespace porter
