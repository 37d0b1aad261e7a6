// tests/fail/store_drift.cu — must not compile: a lowering whose store_commit takes no copy context
// (the reference: static void store_commit(const detail::copy_context& ctx)).
#include "backends/conformance.hpp"
#include "porter/staged/lowering.hpp"

struct drifted : porter::backend::staged_copy {
  using path = porter::path::staged;
  template <class Ring> using protocol = porter::backend::staged_protocol<Ring>;
  template <class Box>
  static __device__ void store_box(const porter::tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                   const porter::coord<Box::rank>& at, const porter::detail::copy_context& ctx) {
    porter::backend::staged_store::store_box<Box>(dst, tile, at, ctx);
  }
  template <porter::reduce_op Op, class Box>
  static __device__ void reduce_box(const porter::tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                    const porter::coord<Box::rank>& at, const porter::detail::copy_context& ctx) {
    porter::backend::staged_store::reduce_box<Op, Box>(dst, tile, at, ctx);
  }
  static __device__ void store_bytes(void* dst, const void* src, std::size_t bytes, const porter::detail::copy_context& ctx) {
    porter::backend::staged_store::store_bytes(dst, src, bytes, ctx);
  }
  static __device__ void store_commit() {}
  template <int N> static __device__ void store_wait_read(const porter::detail::copy_context&) { __syncthreads(); }
  template <int N> static __device__ void store_wait_read_before_release(const porter::detail::copy_context&) {}
  template <int N> static __device__ void store_wait_write(const porter::detail::copy_context&) { __syncthreads(); }
};
static_assert(porter::backend::check_conformance<drifted>(), "the drifted backend is caught");
