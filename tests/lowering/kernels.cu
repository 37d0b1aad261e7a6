// tests/lowering/kernels.cu — tiny copy kernels (1D/2D/3D box, byte range, stores, fragment loads) per path, compiled to PTX per target and inspected by lowering_test.
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

/// lower_box2d over an array declared __align__(128): the ring's alignment pad folds to zero at
/// compile time (the pipeline docstring's recommendation). Its own array name: one extern shared
/// name has one alignment per translation unit.
template <class Path>
__global__ void lower_aligned2d(const __grid_constant__ porter::tiled_source<box2> src, float* out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_aligned[];
  porter::pipeline<Path, 2, box2> pipe(smem_aligned);
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

// ---- swizzled copies, stores and reductions ------------------------------------------------------

using swz = porter::swizzled<porter::box<float, 16, 32>, porter::swizzle::b128>;  // 128-byte rows, 128 B swizzle
using acc = porter::box<float, 16, 32>;

/// A swizzled box through the pipeline, stored back through a tiled destination.
template <class Path>
__global__ void lower_swz2d(const __grid_constant__ porter::tiled_source<swz> src, const __grid_constant__ porter::tiled_destination<swz> dst,
                            int steps) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, swz> pipe(smem);
  porter::store_queue<Path> q;
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<2>{i * swz::dim(0), 0}; },
      [&](const porter::tile_view<swz>& t, int i) {
        porter::async_store(q, dst, t, porter::coord<2>{i * swz::dim(0), 0});
        q.commit();
        q.wait_read_before_release();
      });
  q.wait_write();
}

/// A tile computed in shared memory, reduced (add) into a destination at a run-time column (so the
/// unaligned-column fallback is live code), and stored as a byte range.
template <class Path>
__global__ void lower_reduce2d(const __grid_constant__ porter::tiled_destination<acc> dst, float* raw, int steps, int col) {
  __shared__ __align__(128) float tile[acc::elements];
  porter::store_queue<Path> q;
  for (int i = 0; i < steps; ++i) {
    for (unsigned k = threadIdx.x; k < acc::elements; k += blockDim.x) tile[k] = float(i + int(k));
    porter::async_reduce<porter::reduce_op::add>(q, dst, porter::tile_view<acc>(tile), porter::coord<2>{i * acc::dim(0), col});
    porter::async_store(q, raw + std::size_t(i) * acc::elements, tile, sizeof(tile));
    q.commit();
    q.template wait_read<0>();
  }
  q.template wait_write<0>();
}

// ---- fragment loads (shared memory -> registers) --------------------------------------------------

using frag = porter::swizzled<porter::box<unsigned short, 32, 64>, porter::swizzle::b128>;  // 64 b16 per row

/// A swizzled b16 box through the pipeline, then fragments of it loaded into registers (x4, x4
/// .trans, x2, x1 .trans) at a run-time (row0, col0), and its wgmma descriptor; every register is
/// stored, so no load is dead code.
template <class Path>
__global__ void lower_frag2d(const __grid_constant__ porter::tiled_source<frag> src, unsigned* out, int steps, int row0, int col0) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, frag> pipe(smem);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<2>{i * frag::dim(0), 0}; },
      [&](const porter::tile_view<frag>& t, int i) {
        const porter::fragment<4> a = porter::load_fragments<16, 16>(t, row0, col0);
        const porter::fragment<4> b = porter::load_fragments<16, 16, true>(t, row0, col0);
        const porter::fragment<2> c = porter::load_fragments<8, 16>(t, row0, col0);
        const porter::fragment<1> d = porter::load_fragments<8, 8, true>(t, row0, col0);
        const unsigned long long desc = porter::wgmma_descriptor(t, row0 & ~7, col0);
        unsigned* o = out + (std::size_t(i) * blockDim.x + threadIdx.x) * 13;
        for (int m = 0; m < 4; ++m) o[m] = a.reg[m], o[4 + m] = b.reg[m];
        o[8] = c.reg[0], o[9] = c.reg[1], o[10] = d.reg[0];
        o[11] = unsigned(desc), o[12] = unsigned(desc >> 32);
      });
}

// ---- producer / consumer roles ------------------------------------------------------------------

using roles_1_4 = porter::roles<porter::warps<1>, porter::warps<4>>;

/// A role pipeline (one producer warp, four consumer warps, 3 stages): the producers copy box2 at a
/// run-time column (so the tma path's thread-load fallback, with its producers-only barrier, is live
/// code); the consumers drain each landed tile.
template <class Path>
__global__ void lower_roles2d(const __grid_constant__ porter::tiled_source<box2> src, float* out, int steps, int col) {
  extern __shared__ unsigned char smem[];
  porter::role_pipeline<Path, roles_1_4, 3, box2> pipe(smem);
  pipe.enter_role();
  if (pipe.is_producer()) {
    for (int i = 0; i < steps; ++i) {
      auto slot = pipe.producer_acquire();
      porter::async_copy(slot, src, porter::coord<2>{i * box2::dim(0), col});
      pipe.producer_commit(slot);
    }
  } else {
    const unsigned c = threadIdx.x - roles_1_4::producer_threads;
    for (int i = 0; i < steps; ++i) {
      auto ready = pipe.consumer_wait();
      const float* t = ready.tile().data();
      for (unsigned k = c; k < box2::elements; k += roles_1_4::consumer_threads) out[std::size_t(i) * box2::elements + k] = t[k];
      pipe.consumer_release(ready);
    }
  }
}

/// A source inside a grid-constant struct parameter (field 1): on tma the tensor map is read
/// through the parameter's address, so __isGridConstant holds and the trap behind it folds away.
struct held {
  int steps;
  porter::tiled_source<box2> src;
};
template <class Path>
__global__ void lower_held2d(const __grid_constant__ held p, float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<Path, 2, box2> pipe(smem);
  porter::for_each_tile(
      pipe, p.src, p.steps, [](int i) { return porter::coord<2>{i * box2::dim(0), 0}; },
      [&](const porter::tile_view<box2>& t, int i) { drain(t, out, i); });
}

/// sgemm's 8 x 128 fp32 box (256 chunks of 16 B) through a pipeline built with
/// porter::cta_threads<256>: the copies know each of the 256 threads has exactly one chunk of the
/// box. The output is __restrict__, as in the bench kernels, so the staged loads may use the
/// read-only path.
using fixed_box = porter::box<float, 8, 128>;
template <class Path>
__global__ void __launch_bounds__(256) lower_fixed2d(const __grid_constant__ porter::tiled_source<fixed_box> src,
                                                     float* __restrict__ out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_fixed[];
  porter::pipeline<Path, 2, fixed_box> pipe(smem_fixed, porter::cta_threads<256>);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<2>{i * fixed_box::dim(0), 0}; },
      [&](const porter::tile_view<fixed_box>& t, int i) { drain(t, out, i); });
}
/// The same kernel with the CTA size read at run time (the default constructor).
template <class Path>
__global__ void __launch_bounds__(256) lower_runtime2d(const __grid_constant__ porter::tiled_source<fixed_box> src,
                                                       float* __restrict__ out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_runtime[];
  porter::pipeline<Path, 2, fixed_box> pipe(smem_runtime);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<2>{i * fixed_box::dim(0), 0}; },
      [&](const porter::tile_view<fixed_box>& t, int i) { drain(t, out, i); });
}

/// The bench sgemm's box since session 39, 16 x 128 fp32 (512 chunks of 16 B: two per thread),
/// through a pipeline built with porter::cta_threads<256>. Instantiated for cp_async only (the
/// lowering test checks that its interior chunks are issued without a loop).
using twochunk_box = porter::box<float, 16, 128>;
template <class Path>
__global__ void __launch_bounds__(256) lower_twochunk2d(const __grid_constant__ porter::tiled_source<twochunk_box> src,
                                                        float* __restrict__ out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_twochunk[];
  porter::pipeline<Path, 2, twochunk_box> pipe(smem_twochunk, porter::cta_threads<256>);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<2>{i * twochunk_box::dim(0), 0}; },
      [&](const porter::tile_view<twochunk_box>& t, int i) { drain(t, out, i); });
}

/// A cluster-multicast ring (porter::cluster_multicast): buffer 0 multicast, buffer 1 each CTA's.
template <class Path>
__global__ void lower_multicast2d(const __grid_constant__ porter::tiled_source<fixed_box> shared_src,
                                  const __grid_constant__ porter::tiled_source<fixed_box> own_src, float* __restrict__ out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_mc[];
  porter::pipeline<Path, 2, fixed_box, fixed_box> pipe(smem_mc, porter::cluster_multicast);
  porter::run_pipeline(
      pipe, steps,
      [&](auto& slot, int i) {
        porter::async_copy(porter::buffer<0>(slot), shared_src, porter::coord<2>{i * fixed_box::dim(0), 0}, porter::multicast);
        porter::async_copy(porter::buffer<1>(slot), own_src, porter::coord<2>{i * fixed_box::dim(0), int(blockIdx.x) * 128});
      },
      [&](auto& ready, int i) {
        drain(ready.template tile<0>(), out, 2 * i);
        drain(ready.template tile<1>(), out, 2 * i + 1);
      });
  porter::cluster_sync();
}

/// A cluster-multicast role pipeline (porter::role_pipeline(smem, porter::cluster_multicast), one
/// producer warp, four consumer warps, 3 stages): buffer 0 multicast, buffer 1 each CTA's; every
/// thread ends with porter::cluster_sync().
template <class Path>
__global__ void lower_rolesmc2d(const __grid_constant__ porter::tiled_source<fixed_box> shared_src,
                                const __grid_constant__ porter::tiled_source<fixed_box> own_src, float* __restrict__ out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_rmc[];
  porter::role_pipeline<Path, roles_1_4, 3, fixed_box, fixed_box> pipe(smem_rmc, porter::cluster_multicast);
  pipe.enter_role();
  if (pipe.is_producer()) {
    for (int i = 0; i < steps; ++i) {
      auto slot = pipe.producer_acquire();
      porter::async_copy(porter::buffer<0>(slot), shared_src, porter::coord<2>{i * fixed_box::dim(0), 0}, porter::multicast);
      porter::async_copy(porter::buffer<1>(slot), own_src, porter::coord<2>{i * fixed_box::dim(0), int(blockIdx.x) * 128});
      pipe.producer_commit(slot);
    }
  } else {
    const unsigned c = threadIdx.x - roles_1_4::producer_threads;
    for (int i = 0; i < steps; ++i) {
      auto ready = pipe.consumer_wait();
      const float* t = ready.template tile<0>().data();
      for (unsigned k = c; k < fixed_box::elements; k += roles_1_4::consumer_threads) out[std::size_t(i) * fixed_box::elements + k] = t[k];
      pipe.consumer_release(ready);
    }
  }
  porter::cluster_sync();
}

/// L2 prefetches (porter::prefetch): each step prefetches the next step's 2D box and a 1D box, then
/// copies its own.
template <class Path>
__global__ void lower_prefetch2d(const __grid_constant__ porter::tiled_source<fixed_box> src,
                                 const __grid_constant__ porter::tiled_source<box1> line, float* __restrict__ out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_pf[];
  porter::pipeline<Path, 2, fixed_box> pipe(smem_pf);
  porter::for_each_tile(
      pipe, src, steps,
      [&](int i) {
        porter::prefetch(pipe, src, porter::coord<2>{(i + 1) * fixed_box::dim(0), 0});
        porter::prefetch(pipe, line, porter::coord<1>{i * box1::dim(0)});
        return porter::coord<2>{i * fixed_box::dim(0), 0};
      },
      [&](const porter::tile_view<fixed_box>& t, int i) { drain(t, out, i); });
}

/// L2 eviction hints (porter/cache_hint.hpp): a 2D box with evict_first, a 1D box with evict_last,
/// a byte range with evict_normal into three buffers of one stage.
template <class Path>
__global__ void lower_hint2d(const __grid_constant__ porter::tiled_source<box2> src, const __grid_constant__ porter::tiled_source<box1> line,
                             const unsigned char* raw, float* __restrict__ out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_hint[];
  porter::pipeline<Path, 2, box2, box1, bytes_box> pipe(smem_hint);
  porter::run_pipeline(
      pipe, steps,
      [&](auto& slot, int i) {
        porter::async_copy(porter::buffer<0>(slot), src, porter::coord<2>{i * box2::dim(0), 0}, porter::evict_first);
        porter::async_copy(porter::buffer<1>(slot), line, porter::coord<1>{i * box1::dim(0)}, porter::evict_last);
        porter::async_copy(porter::buffer<2>(slot), raw + std::size_t(i) * 4096, 4096, porter::evict_normal);
      },
      [&](auto& ready, int i) {
        drain(ready.template tile<0>(), out, 3 * i);
        drain(ready.template tile<1>(), out, 3 * i + 1);
        out[std::size_t(3 * i + 2) * 4096 + threadIdx.x] = float(ready.template bytes<2>()[threadIdx.x]);
      });
}

/// Hints on a cluster-multicast ring (evict_last on the multicast box) and on a role pipeline.
template <class Path>
__global__ void lower_hintmc2d(const __grid_constant__ porter::tiled_source<fixed_box> shared_src, float* __restrict__ out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_hmc[];
  porter::pipeline<Path, 2, fixed_box> pipe(smem_hmc, porter::cluster_multicast);
  porter::run_pipeline(
      pipe, steps,
      [&](auto& slot, int i) {
        porter::async_copy(porter::buffer<0>(slot), shared_src, porter::coord<2>{i * fixed_box::dim(0), 0}, porter::multicast,
                           porter::evict_last);
      },
      [&](auto& ready, int i) { drain(ready.template tile<0>(), out, i); });
  porter::cluster_sync();
}
template <class Path>
__global__ void lower_hintroles2d(const __grid_constant__ porter::tiled_source<box2> src, float* out, int steps) {
  extern __shared__ unsigned char smem[];
  porter::role_pipeline<Path, roles_1_4, 3, box2> pipe(smem);
  pipe.enter_role();
  if (pipe.is_producer()) {
    for (int i = 0; i < steps; ++i) {
      auto slot = pipe.producer_acquire();
      porter::async_copy(slot, src, porter::coord<2>{i * box2::dim(0), 0}, porter::evict_first);
      pipe.producer_commit(slot);
    }
  } else {
    for (int i = 0; i < steps; ++i) {
      auto ready = pipe.consumer_wait();
      drain(ready.tile(), out, i);
      pipe.consumer_release(ready);
    }
  }
}

/// A 16 KiB box (porter-bench's bf16 GEMM A box: 128 x 64 b16, 128 B-swizzled) in a pipeline of a
/// run-time CTA size: the cp_async interior walk of a box of 1,024 chunks or more steps by
/// constants (lowering_test.cpp, LoweringCpAsync).
using wide = porter::swizzled<porter::box<unsigned short, 128, 64>, porter::swizzle::b128>;
template <class Path>
__global__ void lower_wide2d(const __grid_constant__ porter::tiled_source<wide> src, unsigned short* out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_wide[];
  porter::pipeline<Path, 2, wide> pipe(smem_wide);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<2>{i * wide::dim(0), 0}; },
      [&](const porter::tile_view<wide>& t, int i) {
        for (unsigned k = threadIdx.x; k < wide::elements; k += blockDim.x) out[std::size_t(i) * wide::elements + k] = t.element(k);
      });
}

/// A dense 16 KiB-plus box whose rows do not divide a CTA-wide step: the wmma port's skewed 128 x 144
/// b16 box (18 chunks of 16 B a row; bench/ports/public_bf16gemm.cuh) in a pipeline of a run-time CTA
/// size. Its cp_async interior walk wraps the column instead of splitting each chunk's index
/// (lowering_test.cpp, LoweringCpAsync). cp_async only.
using skew_box = porter::box<unsigned short, 128, 144>;
template <class Path>
__global__ void lower_skew2d(const __grid_constant__ porter::tiled_source<skew_box> src, unsigned short* out, int steps) {
  extern __shared__ __align__(128) unsigned char smem_skew[];
  porter::pipeline<Path, 1, skew_box> pipe(smem_skew);
  porter::for_each_tile(
      pipe, src, steps, [](int i) { return porter::coord<2>{0, i * 128}; },
      [&](const porter::tile_view<skew_box>& t, int i) {
        for (unsigned k = threadIdx.x; k < skew_box::elements; k += blockDim.x) out[std::size_t(i) * skew_box::elements + k] = t.element(k);
      });
}

/// The cluster and dependent-launch helpers (porter/cluster.hpp).
template <class Path>
__global__ void lower_grid(unsigned* out) {
  porter::wait_prior_grid();
  out[blockIdx.x] = porter::cluster_rank() | porter::cluster_size() << 16;
  porter::cluster_sync();
  porter::launch_dependents();
}

#define LOWERING_INSTANTIATE(P)                                                                             \
  template __global__ void lower_box1d<P>(const __grid_constant__ porter::tiled_source<box1>, float*, int); \
  template __global__ void lower_box2d<P>(const __grid_constant__ porter::tiled_source<box2>, float*, int); \
  template __global__ void lower_aligned2d<P>(const __grid_constant__ porter::tiled_source<box2>, float*, int); \
  template __global__ void lower_box3d<P>(const __grid_constant__ porter::tiled_source<box3>, float*, int); \
  template __global__ void lower_bytes<P>(const unsigned char*, unsigned, unsigned char*, int);                  \
  template __global__ void lower_swz2d<P>(const __grid_constant__ porter::tiled_source<swz>,                   \
                                          const __grid_constant__ porter::tiled_destination<swz>, int);         \
  template __global__ void lower_reduce2d<P>(const __grid_constant__ porter::tiled_destination<acc>, float*, int, int); \
  template __global__ void lower_frag2d<P>(const __grid_constant__ porter::tiled_source<frag>, unsigned*, int, int, int); \
  template __global__ void lower_roles2d<P>(const __grid_constant__ porter::tiled_source<box2>, float*, int, int); \
  template __global__ void lower_held2d<P>(const __grid_constant__ held, float*);                                   \
  template __global__ void lower_grid<P>(unsigned*);                                                            \
  template __global__ void lower_fixed2d<P>(const __grid_constant__ porter::tiled_source<fixed_box>, float*, int); \
  template __global__ void lower_runtime2d<P>(const __grid_constant__ porter::tiled_source<fixed_box>, float*, int); \
  template __global__ void lower_multicast2d<P>(const __grid_constant__ porter::tiled_source<fixed_box>,           \
                                                const __grid_constant__ porter::tiled_source<fixed_box>, float*, int); \
  template __global__ void lower_rolesmc2d<P>(const __grid_constant__ porter::tiled_source<fixed_box>,             \
                                              const __grid_constant__ porter::tiled_source<fixed_box>, float*, int); \
  template __global__ void lower_prefetch2d<P>(const __grid_constant__ porter::tiled_source<fixed_box>,            \
                                               const __grid_constant__ porter::tiled_source<box1>, float*, int); \
  template __global__ void lower_hint2d<P>(const __grid_constant__ porter::tiled_source<box2>,                   \
                                           const __grid_constant__ porter::tiled_source<box1>, const unsigned char*, float*, int); \
  template __global__ void lower_hintmc2d<P>(const __grid_constant__ porter::tiled_source<fixed_box>, float*, int); \
  template __global__ void lower_hintroles2d<P>(const __grid_constant__ porter::tiled_source<box2>, float*, int); \
  template __global__ void lower_wide2d<P>(const __grid_constant__ porter::tiled_source<wide>, unsigned short*, int);

LOWERING_INSTANTIATE(porter::path::tma)
LOWERING_INSTANTIATE(porter::path::cp_async)
template __global__ void lower_twochunk2d<porter::path::cp_async>(const __grid_constant__ porter::tiled_source<twochunk_box>, float*, int);
template __global__ void lower_skew2d<porter::path::cp_async>(const __grid_constant__ porter::tiled_source<skew_box>, unsigned short*, int);
LOWERING_INSTANTIATE(porter::path::staged)
#undef LOWERING_INSTANTIATE

}  // namespace lowering
