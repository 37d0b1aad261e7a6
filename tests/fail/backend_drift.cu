// tests/fail/backend_drift.cu — must not compile: a lowering whose copy_bytes takes `void* src` where the reference takes `const void* src`.
#include "backends/conformance.hpp"
#include "porter/staged/lowering.hpp"

struct drifted {
  using path = porter::path::staged;
  template <class Box, porter::cache_hint H = porter::cache_hint::none>
  static __device__ void copy_box(typename Box::element_type* dst, const porter::tiled_source<Box>& src,
                                  const porter::coord<Box::rank>& at, const porter::detail::copy_context& ctx) {
    porter::backend::staged_copy::copy_box<Box>(dst, src, at, ctx);
  }
  template <porter::cache_hint H = porter::cache_hint::none>
  static __device__ void copy_bytes(void* dst, void* src, std::size_t bytes, const porter::detail::copy_context& ctx) {
    porter::backend::staged_copy::copy_bytes(dst, src, bytes, ctx);
  }
  template <class Ring> using protocol = porter::backend::staged_protocol<Ring>;
};
static_assert(porter::backend::check_conformance<drifted>(), "the drifted backend is caught");
