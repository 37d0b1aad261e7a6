// bench/ports/wmma_access.cuh — the wmma fragment loads and stores of porter-bench's wmma kernels,
// chosen at compile time: porter's (porter/wmma.hpp: the shared state space) or nvcuda::wmma's own
// (a generic address for the operand loads under nvcc 13). The bf16 port's `porter-nvcuda-loads`
// row and tests/lowering/wmma_kernels.cu compare the two through this one switch.
#pragma once
#include <mma.h>

#include <porter/wmma.hpp>

namespace pb::ports {

/// Porter = true: porter::load_matrix_sync / store_matrix_sync; false: nvcuda::wmma's. Same
/// arguments, same preconditions (porter/wmma.hpp), the same fragments.
template <bool Porter>
struct wmma_access {
  /// An operand fragment (matrix_a, matrix_b) at `p`, leading dimension `ldm` elements.
  template <class F, class T>
  __device__ __forceinline__ static void load(F& f, const T* p, unsigned ldm) {
    if constexpr (Porter) porter::load_matrix_sync(f, p, ldm);
    else nvcuda::wmma::load_matrix_sync(f, p, ldm);
  }
  /// A float accumulator fragment at `p`, in layout `l`.
  template <class F>
  __device__ __forceinline__ static void load(F& f, const float* p, unsigned ldm, nvcuda::wmma::layout_t l) {
    if constexpr (Porter) porter::load_matrix_sync(f, p, ldm, l);
    else nvcuda::wmma::load_matrix_sync(f, p, ldm, l);
  }
  /// A float accumulator fragment stored to `p`, in layout `l`.
  template <class F>
  __device__ __forceinline__ static void store(float* p, const F& f, unsigned ldm, nvcuda::wmma::layout_t l) {
    if constexpr (Porter) porter::store_matrix_sync(p, f, ldm, l);
    else nvcuda::wmma::store_matrix_sync(p, f, ldm, l);
  }
};

}  // namespace pb::ports
