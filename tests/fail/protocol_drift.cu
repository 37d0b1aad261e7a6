// tests/fail/protocol_drift.cu — must not compile: a lowering whose protocol's release takes a third argument.
#include "backends/conformance.hpp"
#include "porter/staged/lowering.hpp"

template <class Ring>
struct drifted_protocol {
  static constexpr int stages = Ring::stages;
  __device__ void init(unsigned char*, unsigned, unsigned) {}
  __device__ void acquire(unsigned, unsigned) {}
  template <int I, class Box, porter::cache_hint H = porter::cache_hint::none>
  __device__ void copy_box(unsigned, typename Box::element_type*, const porter::tiled_source<Box>&, const porter::coord<Box::rank>&) {}
  template <int I, porter::cache_hint H = porter::cache_hint::none>
  __device__ void copy_bytes(unsigned, void*, const void*, std::size_t) {}
  __device__ void commit(unsigned, unsigned) {}
  __device__ void wait(unsigned, unsigned, unsigned) {}
  __device__ void release(unsigned, unsigned, unsigned) {}  // drifted: the reference is release(stage, pass)
};
struct drifted : porter::backend::staged_copy {
  using path = porter::path::staged;
  template <class Ring> using protocol = drifted_protocol<Ring>;
};
static_assert(porter::backend::check_conformance<drifted>(), "the drifted protocol is caught");
