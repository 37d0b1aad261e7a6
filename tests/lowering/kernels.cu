// tests/lowering/kernels.cu — tiny copy kernels (1D/2D/3D box, byte range) per path, compiled to PTX per target and inspected by lowering_test.
//
// Each kernel streams `steps` boxes through a 2-stage pipeline and writes every landed element to
// `out`, so no copy is dead code. Kernel names say the copy form (lower_box1d, lower_box2d,
// lower_box3d, lower_bytes); the path tag is the template argument, visible in the mangled name
// (N6porter4path3tmaE, ...). Built with nvcc -ptx, once per target, by tests/lowering/CMakeLists.txt.
#include <porter/porter.hpp>

#include <cstddef>

namespace lowering {

using box1 = porter::box<float, 256>;
using box2 = porter::box<float, 32, 64>;
using box3 = porter::box<float, 4, 16, 32>;
using bytes_box = porter::box<unsigned char, 4096>;

/// Copy every element of a landed tile to out[i * Box::elements + k].
template <class Box>
__device__ void drain(const porter::tile_view<Box>& t, typename Box::element_type* out, int i) {
  for (unsigned k = threadIdx.x; k < Box::elements; k += blockDim.x) out[std::size_t(i) * Box::elements + k] = t.data()[k];
}

template <class Path>
__global__ void lower_box1d(const __grid_constant__ porter::tiled_source<box1> src, float* out, int steps) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, box1> pipe(smem);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<1>{i * box1::dim(0)}; },
      [&](const porter::tile_view<box1>& t, int i) { drain(t, out, i); });
}

template <class Path>
__global__ void lower_box2d(const __grid_constant__ porter::tiled_source<box2> src, float* out, int steps) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, box2> pipe(smem);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<2>{i * box2::dim(0), 0}; },
      [&](const porter::tile_view<box2>& t, int i) { drain(t, out, i); });
}

template <class Path>
__global__ void lower_box3d(const __grid_constant__ porter::tiled_source<box3> src, float* out, int steps) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, box3> pipe(smem);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<3>{i * box3::dim(0), 0, 0}; },
      [&](const porter::tile_view<box3>& t, int i) { drain(t, out, i); });
}

template <class Path>
__global__ void lower_bytes(const unsigned char* src, unsigned bytes_per_step, unsigned char* out, int steps) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, bytes_box> pipe(smem);
  porter::run_pipeline(
      pipe, steps,
      [&](auto& slot, int i) { porter::async_copy(porter::buffer<0>(slot), src + std::size_t(i) * bytes_per_step, bytes_per_step); },
      [&](const auto& ready, int i) {
        const unsigned char* b = ready.template bytes<0>();
        for (unsigned k = threadIdx.x; k < bytes_per_step; k += blockDim.x) out[std::size_t(i) * bytes_per_step + k] = b[k];
      });
}

#define LOWERING_INSTANTIATE(P)                                                                             \
  template __global__ void lower_box1d<P>(const __grid_constant__ porter::tiled_source<box1>, float*, int); \
  template __global__ void lower_box2d<P>(const __grid_constant__ porter::tiled_source<box2>, float*, int); \
  template __global__ void lower_box3d<P>(const __grid_constant__ porter::tiled_source<box3>, float*, int); \
  template __global__ void lower_bytes<P>(const unsigned char*, unsigned, unsigned char*, int);

LOWERING_INSTANTIATE(porter::path::tma)
LOWERING_INSTANTIATE(porter::path::cp_async)
LOWERING_INSTANTIATE(porter::path::staged)
#undef LOWERING_INSTANTIATE

}  // namespace lowering
