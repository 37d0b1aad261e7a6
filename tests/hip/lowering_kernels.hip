// tests/hip/lowering_kernels.hip — kernels whose gfx90a assembly check_gfx90a_asm.py inspects.
//
// Compiled with hipcc --offload-arch=gfx90a --cuda-device-only -S (no GPU needed). Kernel names are
// extern "C" so the checker finds them by name:
//   walk_box_f32_w16    the staged lowering's AMD flavour, aligned 16-byte case alone: 2D float box, W = 16
//   walk_box_u8_w16     the same for 1-byte elements (partial edge chunks need sub-dword pieces)
//   walk_bytes_w16      a 16-byte aligned byte range, with its < 16-byte tail
//   pipeline_staged     the whole path: pipeline<staged> + for_each_tile + async_copy
//   pipeline_staged_s3  the same with 3 stages (the protocol's one CTA barrier per step)
//   fragments_b128      porter::load_fragments from a 128 B-swizzled b16 tile: x4 down the columns and
//                       x4 along the rows (one ds_read_b32 per matrix each), x4 .trans (two
//                       ds_read_u16 per matrix)
//   roles_staged        porter::role_pipeline on staged (one producer wavefront, two consumer
//                       wavefronts, 3 stages, the producers' sync_role at the end): FULL / EMPTY and
//                       the role barrier as LDS phase counters (ds_add_rtn_u32 arrivals, ds_read +
//                       s_sleep waits) and no workgroup barrier after construction
//   control_staged_u8   NEGATIVE CONTROL: a byte-at-a-time copy loop (what a generic, untuned copy of
//                       a 1-byte box does). The checker must find a byte loop here, or it could not
//                       find one anywhere.
#include <porter/porter.hpp>

#include <type_traits>

#include "backends/conformance.hpp"

namespace hd = porter::backend::amd_detail;
using box2 = porter::box<float, 32, 64>;
using box_u8 = porter::box<unsigned char, 16, 128>;

static_assert(porter::backend::check_conformance<porter::backend::staged>(), "the AMD flavour has the whole operation set");
static_assert(std::is_same_v<porter::lowering_for<porter::path::staged>, porter::backend::staged>,
              "the AMD registry lowers staged with the AMD flavour");

namespace {
/// Keep the LDS tile alive: every thread writes one landed element out.
template <class T>
__device__ void drain(const T* tile, unsigned n, T* out) {
  __syncthreads();
  for (unsigned k = threadIdx.x; k < n; k += blockDim.x) out[k] = tile[k];
}
}  // namespace

extern "C" __global__ void walk_box_f32_w16(const __grid_constant__ porter::tiled_source<box2> src, porter::coord<2> at,
                                            float* out) {
  alignas(128) __shared__ float tile[box2::elements];
  const porter::detail::copy_context ctx{nullptr, threadIdx.x, blockDim.x};
  hd::walk_box<hd::amd_access, box2, 16>(tile, src, at, ctx);
  drain(tile, unsigned(box2::elements), out);
}

extern "C" __global__ void walk_box_u8_w16(const __grid_constant__ porter::tiled_source<box_u8> src, porter::coord<2> at,
                                           unsigned char* out) {
  alignas(128) __shared__ unsigned char tile[box_u8::elements];
  const porter::detail::copy_context ctx{nullptr, threadIdx.x, blockDim.x};
  hd::walk_box<hd::amd_access, box_u8, 16>(tile, src, at, ctx);
  drain(tile, unsigned(box_u8::elements), out);
}

extern "C" __global__ void walk_bytes_w16(const unsigned char* src, unsigned bytes, unsigned char* out) {
  alignas(128) __shared__ unsigned char tile[8192];
  const porter::detail::copy_context ctx{nullptr, threadIdx.x, blockDim.x};
  hd::walk_bytes<hd::amd_access, 16>(tile, src, bytes < 8192u ? bytes : 8192u, ctx);
  drain(tile, 8192u, out);
}

template <class Path, int S>
__device__ void run_pipeline(const porter::tiled_source<box2>& src, float* out, int steps) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, S, box2> pipe(smem);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<2>{i * box2::dim(0), 0}; },
      [&](const porter::tile_view<box2>& t, int i) {
        for (unsigned k = threadIdx.x; k < box2::elements; k += blockDim.x) out[std::size_t(i) * box2::elements + k] = t.data()[k];
      });
}

extern "C" __global__ void pipeline_staged(const __grid_constant__ porter::tiled_source<box2> src, float* out, int steps) {
  run_pipeline<porter::path::staged, 2>(src, out, steps);
}

extern "C" __global__ void pipeline_staged_s3(const __grid_constant__ porter::tiled_source<box2> src, float* out, int steps) {
  run_pipeline<porter::path::staged, 3>(src, out, steps);
}

using role_split = porter::roles<porter::warps<2>, porter::warps<4>>;  // 64 + 128 threads: one + two wavefronts
static_assert(porter::backend::conformance_detail::role_protocol_matches<porter::backend::staged, porter::stage_ring<3, box2>, role_split>(),
              "the AMD flavour's role protocol has the whole operation set");

extern "C" __global__ void __launch_bounds__(role_split::threads) roles_staged(const __grid_constant__ porter::tiled_source<box2> src,
                                                                             float* out, int steps) {
  extern __shared__ unsigned char smem[];
  porter::role_pipeline<porter::path::staged, role_split, 3, box2> pipe(smem);
  if (pipe.is_producer()) {
    pipe.enter_role();
    for (int i = 0; i < steps; ++i) {
      auto slot = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(slot), src, porter::coord<2>{i * box2::dim(0), 0});
      pipe.producer_commit(slot);
    }
    pipe.sync_role();  // the producers' role barrier (its own LDS counter)
    return;
  }
  pipe.enter_role();
  const unsigned r = threadIdx.x - role_split::producer_threads;
  for (int i = 0; i < steps; ++i) {
    auto ready = pipe.consumer_wait();
    const porter::tile_view<box2> t = ready.template tile<0>();
    for (unsigned k = r; k < box2::elements; k += role_split::consumer_threads) out[std::size_t(i) * box2::elements + k] = t.data()[k];
    pipe.consumer_release(ready);
  }
}

extern "C" __global__ void control_staged_u8(const __grid_constant__ porter::tiled_source<box_u8> src, porter::coord<2> at,
                                             unsigned char* out) {
  alignas(128) __shared__ unsigned char tile[box_u8::elements];
  // One byte per thread per step, with the tensor's bounds checked per byte.
  for (unsigned k = threadIdx.x; k < box_u8::elements; k += blockDim.x) {
    const long long r = at[0] + static_cast<long long>(k / box_u8::dim(1)), c = at[1] + static_cast<long long>(k % box_u8::dim(1));
    const bool in = r >= 0 && r < src.extent[0] && c >= 0 && c < src.extent[1];
    tile[k] = in ? src.ptr[r * src.stride[0] + c] : 0;
  }
  drain(tile, unsigned(box_u8::elements), out);
}

using frag_tile = porter::swizzled<porter::box<unsigned short, 32, 64>, porter::swizzle::b128>;

extern "C" __global__ void fragments_b128(const unsigned short* in, unsigned* out, int row0, int col0) {
  alignas(1024) __shared__ unsigned short tile[frag_tile::elements];
  for (unsigned k = threadIdx.x; k < frag_tile::elements; k += blockDim.x) tile[k] = in[k];
  __syncthreads();
  const porter::tile_view<frag_tile> t(tile);
  const porter::fragment<4> a = porter::load_fragments<16, 16>(t, row0, col0);
  const porter::fragment<4> b = porter::load_fragments<16, 16, true>(t, row0, col0);
  // Along the rows at other rows (the same 16 x 16 region would be the same 4 matrices in another
  // register order, and the compiler rightly shares the reads).
  const porter::fragment<4> c = porter::load_fragments<16, 16>(t, row0 + 16, col0, porter::along_rows);
  for (int m = 0; m < 4; ++m)
    out[threadIdx.x * 12 + m] = a.reg[m], out[threadIdx.x * 12 + 4 + m] = b.reg[m], out[threadIdx.x * 12 + 8 + m] = c.reg[m];
}
