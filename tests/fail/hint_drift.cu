// tests/fail/hint_drift.cu — must not compile: a lowering whose copy_box takes no L2 hint (the
// signature before porter/cache_hint.hpp), so a hinted async_copy could not reach it.
#include "backends/conformance.hpp"
#include "porter/staged/lowering.hpp"

struct drifted : porter::backend::staged_copy {
  using path = porter::path::staged;
  template <class Box>  // drifted: the reference is template <class Box, cache_hint H = cache_hint::none>
  static __device__ void copy_box(typename Box::element_type* dst, const porter::tiled_source<Box>& src,
                                  const porter::coord<Box::rank>& at, const porter::detail::copy_context& ctx) {
    porter::backend::staged_copy::copy_box<Box>(dst, src, at, ctx);
  }
  template <class Ring> using protocol = porter::backend::staged_protocol<Ring>;
};
static_assert(porter::backend::check_conformance<drifted>(), "the drifted backend is caught");
