// tests/device/kernels.cuh — the kernels of the device tests, each written once for every path.
//
// Every kernel reads its per-CTA work as int2 {first destination slot, trips}: CTA b runs `trips`
// steps through one porter pipeline and its consumer writes the landed stage, as raw bytes, to
// destination slot first + step. The CPU checks every slot byte for byte. A slot holds each stage
// buffer whole, with its padding to 128 bytes (stage_ring::buffer_bytes): with `prefill` the
// consumer stores the padding too, which must still hold the fill pattern (a copy wrote nothing
// past its box); without, it stores the box only and the padding must stay poisoned.
//
// Two things make a copy that leaves bytes unwritten visible:
//   * before the pipeline is built, the whole stage area is scribbled (0xEE), so no stage starts
//     with bytes left over from an earlier kernel (which ran the same case on another path);
//   * with `prefill`, the producer fills each acquired stage with a position-dependent pattern
//     before issuing the copy (a generic-proxy write, so it fences with fence.proxy.async and a
//     CTA barrier before a TMA copy may overwrite it). Byte-range copies must leave the pattern
//     intact past their end; box copies must overwrite all of it.
// Tiled sources are __grid_constant__ parameters and go by reference down to async_copy (TMA reads
// the tensor map from parameter space).
#pragma once
#include <porter/porter.hpp>

#include <cstddef>
#include <cstdint>

namespace porter_test {

/// Destination-slot bytes of the byte-range tests' stage buffer (and the largest count copied).
inline constexpr int bytes_box_size = 2048;
using bytes_box = porter::box<unsigned char, bytes_box_size>;

namespace dev {

__device__ __forceinline__ unsigned thread_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ unsigned cta_threads() { return blockDim.x * blockDim.y * blockDim.z; }

__device__ __forceinline__ unsigned char pattern(std::size_t j) {  // = stage_pattern() on the host
  return static_cast<unsigned char>(0xC3u ^ (unsigned(j) * 29u));
}

/// Order this thread's shared-memory stores before later async-proxy (TMA) accesses:
/// fence.proxy.async.shared::cta on sm_90 (porter's wrapper; a no-op on older targets).
__device__ __forceinline__ void fence_to_async_proxy() {
#if !PORTER_HIP
  porter::ptx::fence_proxy_async_shared_cta();
#endif
}

/// Write 0xEE over the stage area of a Pipe built over `smem` (before the pipeline exists).
template <class Pipe>
__device__ void scribble_stages(unsigned char* smem) {
  using ring = typename Pipe::ring;
  // The pipeline's aligned base (as porter computes it: the pointer plus padding, so it stays a shared pointer).
  const std::size_t pad = (ring::alignment - (reinterpret_cast<std::uintptr_t>(smem) & (ring::alignment - 1))) & (ring::alignment - 1);
  std::uint32_t* p = reinterpret_cast<std::uint32_t*>(smem + pad + ring::header_bytes);
  constexpr std::size_t words = std::size_t(Pipe::stages) * ring::stage_bytes / 4;
  for (std::size_t j = thread_rank(); j < words; j += cta_threads()) p[j] = 0xEEEEEEEEu;
  fence_to_async_proxy();  // TMA may write these bytes next
  __syncthreads();
}

/// Fill N bytes at shared `d` with pattern(j). Collective over `n` threads (thread `t` of them;
/// default: the CTA); no barrier (see publish_fill).
template <std::size_t N>
__device__ void fill_pattern(unsigned char* d, unsigned t = thread_rank(), unsigned n = cta_threads()) {
  if constexpr (N % 4 == 0) {
    std::uint32_t* w = reinterpret_cast<std::uint32_t*>(d);
    for (std::size_t j = t; j < N / 4; j += n)
      w[j] = std::uint32_t(pattern(4 * j)) | std::uint32_t(pattern(4 * j + 1)) << 8 | std::uint32_t(pattern(4 * j + 2)) << 16 |
             std::uint32_t(pattern(4 * j + 3)) << 24;
  } else {
    for (std::size_t j = t; j < N; j += n) d[j] = pattern(j);
  }
}
/// Make the fill visible to every thread and to the async proxy before a copy overwrites it.
__device__ __forceinline__ void publish_fill() {
  fence_to_async_proxy();
  __syncthreads();
}

/// Copy N bytes of a landed stage to global `dst`, 16 or 4 bytes at a time where N allows.
/// Collective over `n` threads (thread `t` of them; default: the CTA).
template <std::size_t N>
__device__ void store_bytes(unsigned char* dst, const unsigned char* src, unsigned t = thread_rank(), unsigned n = cta_threads()) {
  if constexpr (N % 16 == 0) {
    const uint4* s = reinterpret_cast<const uint4*>(src);
    uint4* d = reinterpret_cast<uint4*>(dst);
    for (std::size_t j = t; j < N / 16; j += n) d[j] = s[j];
  } else if constexpr (N % 4 == 0) {
    const std::uint32_t* s = reinterpret_cast<const std::uint32_t*>(src);
    std::uint32_t* d = reinterpret_cast<std::uint32_t*>(dst);
    for (std::size_t j = t; j < N / 4; j += n) d[j] = s[j];
  } else {
    for (std::size_t j = t; j < N; j += n) dst[j] = src[j];
  }
}

/// Store a landed box to global `dst` in dense box order: its raw bytes when it is unswizzled,
/// element by element through the view (tile_view reads through the swizzle) when it is swizzled.
template <class Box>
__device__ void store_view(unsigned char* dst, porter::tile_view<Box> tile) {
  using T = typename Box::element_type;
  if constexpr (Box::swizzle_mode == porter::swizzle::none) {
    store_bytes<Box::bytes>(dst, reinterpret_cast<const unsigned char*>(tile.data()));
  } else {
    T* d = reinterpret_cast<T*>(dst);
    for (std::size_t e = thread_rank(); e < Box::elements; e += cta_threads()) d[e] = tile.element(e);
  }
}

}  // namespace dev

/// Boxes of a tiled source through the low-level protocol (acquire/copy/commit, wait/release),
/// the producer keeping up to `ahead` (1..S) steps in flight; stages prefilled when `prefill`.
/// (One call site of async_copy: the kernel stays small.)
/// The pipeline is built `Shift` bytes past the dynamic shared memory base (the ring must align
/// itself, to its swizzle atom too, whatever the base). CtaThreads > 0: built with
/// porter::cta_threads<CtaThreads> (the CTA size a compile-time constant; launched with exactly that).
/// H: the L2 hint every copy carries (porter/cache_hint.hpp; none: the unhinted async_copy).
template <class Path, int S, class Box, int Shift = 0, unsigned CtaThreads = 0, porter::cache_hint H = porter::cache_hint::none>
__global__ void box_kernel(const __grid_constant__ porter::tiled_source<Box> src, const porter::coord<Box::rank>* coords,
                           const int2* work, unsigned char* out, int ahead, int prefill) {
  extern __shared__ unsigned char smem_base[];
  unsigned char* smem = smem_base + Shift;
  using Pipe = porter::pipeline<Path, S, Box>;
  constexpr std::size_t slot_bytes = Pipe::ring::buffer_bytes[0];  // the box, padded to 128 bytes
  dev::scribble_stages<Pipe>(smem);
  auto make_pipe = [&] {
    if constexpr (CtaThreads > 0) return Pipe(smem, porter::cta_threads<CtaThreads>);
    else return Pipe(smem);
  };
  Pipe pipe = make_pipe();
  const int first = work[blockIdx.x].x, trips = work[blockIdx.x].y;
  int issued = 0;
  for (int i = 0; i < trips; ++i) {
    while (issued < trips && issued - i < ahead) {
      auto slot = pipe.producer_acquire();
      if (prefill) {
        dev::fill_pattern<slot_bytes>(reinterpret_cast<unsigned char*>(porter::buffer<0>(slot).data()));
        dev::publish_fill();
      }
      if constexpr (H == porter::cache_hint::none) porter::async_copy(slot, src, coords[first + issued]);
      else porter::async_copy(slot, src, coords[first + issued], porter::l2_hint_t<H>{});
      pipe.producer_commit(slot);
      ++issued;
    }
    auto ready = pipe.consumer_wait();
    unsigned char* o = out + std::size_t(first + i) * slot_bytes;
    if (prefill) dev::store_bytes<slot_bytes>(o, ready.bytes());
    else dev::store_bytes<Box::bytes>(o, ready.bytes());
    pipe.consumer_release(ready);
  }
}

/// Boxes of a tiled source through a porter::role_pipeline: the producer warps of `Roles` issue
/// every step's copy (prefilling the stage first when `prefill`: the producer threads write the
/// pattern, fence it to the async proxy and meet at their own barrier before the copy, and commit
/// with porter::stage_written, which publishes their stores to the consumers), the
/// consumer warps store each landed stage to its destination slot, as box_kernel does. The CTA has
/// Roles::threads threads; `ahead` is unused (the producers run as far ahead as the ring allows).
template <class Path, class Roles, int S, class Box, porter::cache_hint H = porter::cache_hint::none>
__global__ void role_box_kernel(const __grid_constant__ porter::tiled_source<Box> src, const porter::coord<Box::rank>* coords,
                                const int2* work, unsigned char* out, int /*ahead*/, int prefill) {
  extern __shared__ unsigned char smem[];
  using Pipe = porter::role_pipeline<Path, Roles, S, Box>;
  constexpr std::size_t slot_bytes = Pipe::ring::buffer_bytes[0];
  dev::scribble_stages<Pipe>(smem);
  Pipe pipe(smem);
  const int first = work[blockIdx.x].x, trips = work[blockIdx.x].y;
  const unsigned t = dev::thread_rank();
  pipe.enter_role();
  if (pipe.is_producer()) {
    for (int i = 0; i < trips; ++i) {
      auto slot = pipe.producer_acquire();
      if (prefill) {
        dev::fill_pattern<slot_bytes>(reinterpret_cast<unsigned char*>(porter::buffer<0>(slot).data()), t, Roles::producer_threads);
        dev::fence_to_async_proxy();
        pipe.sync_role();
      }
      if constexpr (H == porter::cache_hint::none) porter::async_copy(slot, src, coords[first + i]);
      else porter::async_copy(slot, src, coords[first + i], porter::l2_hint_t<H>{});
      if (prefill) pipe.producer_commit(slot, porter::stage_written);  // the pattern is the producers' own stores
      else pipe.producer_commit(slot);
    }
  } else {
    const unsigned c = t - Roles::producer_threads;
    for (int i = 0; i < trips; ++i) {
      auto ready = pipe.consumer_wait();
      unsigned char* o = out + std::size_t(first + i) * slot_bytes;
      if (prefill) dev::store_bytes<slot_bytes>(o, ready.bytes(), c, Roles::consumer_threads);
      else dev::store_bytes<Box::bytes>(o, ready.bytes(), c, Roles::consumer_threads);
      pipe.consumer_release(ready);
    }
  }
}

/// Boxes of a tiled source through the high-level porter::for_each_tile (its own prologue, steady
/// state and drain). Destination slot k holds the box (its padding stays poisoned).
template <class Path, int S, class Box>
__global__ void for_each_tile_kernel(const __grid_constant__ porter::tiled_source<Box> src,
                                     const porter::coord<Box::rank>* coords, const int2* work, unsigned char* out) {
  extern __shared__ unsigned char smem[];
  using Pipe = porter::pipeline<Path, S, Box>;
  dev::scribble_stages<Pipe>(smem);
  Pipe pipe(smem);
  const int first = work[blockIdx.x].x, trips = work[blockIdx.x].y;
  constexpr std::size_t slot_bytes = Pipe::ring::buffer_bytes[0];
  porter::for_each_tile(
      pipe, src, trips, [&](int i) { return coords[first + i]; },
      [&](porter::tile_view<Box> tile, int i) { dev::store_view(out + std::size_t(first + i) * slot_bytes, tile); });
}

/// Boxes through porter::for_each_tile over a porter::tile_schedule: tile t (a global tile index)
/// is the box at coords[t] and lands in destination slot t, whichever CTA runs it (blocked with k
/// tiles per CTA, or persistent). Slot t holds the box (its padding stays poisoned).
template <class Path, int S, class Box>
__global__ void schedule_kernel(const __grid_constant__ porter::tiled_source<Box> src, const porter::coord<Box::rank>* coords,
                                porter::tile_schedule sched, unsigned char* out) {
  extern __shared__ unsigned char smem[];
  using Pipe = porter::pipeline<Path, S, Box>;
  dev::scribble_stages<Pipe>(smem);
  Pipe pipe(smem);
  constexpr std::size_t slot_bytes = Pipe::ring::buffer_bytes[0];
  porter::for_each_tile(
      pipe, src, sched, [&](long long t) { return coords[t]; },
      [&](porter::tile_view<Box> tile, long long t) { dev::store_view(out + std::size_t(t) * slot_bytes, tile); });
}

/// True when two coordinates are equal in every dimension.
template <int R>
__device__ __forceinline__ bool same_coord(const porter::coord<R>& a, const porter::coord<R>& b) {
  bool same = true;
#pragma unroll
  for (int d = 0; d < R; ++d) same = same && a[d] == b[d];
  return same;
}

/// for_each_tile (count form) with a body that takes the coordinate of the box it received:
/// body(tile, i, at) must get at == coords[first + i] for every step i. The body stores the tile
/// only when it does, so a wrong coordinate leaves the slot poisoned and the byte check fails.
/// Written with a generic lambda (auto parameters), the form a user's generic code takes.
template <class Path, int S, class Box>
__global__ void for_each_tile_coord_kernel(const __grid_constant__ porter::tiled_source<Box> src,
                                           const porter::coord<Box::rank>* coords, const int2* work, unsigned char* out) {
  extern __shared__ unsigned char smem[];
  using Pipe = porter::pipeline<Path, S, Box>;
  dev::scribble_stages<Pipe>(smem);
  Pipe pipe(smem);
  const int first = work[blockIdx.x].x, trips = work[blockIdx.x].y;
  constexpr std::size_t slot_bytes = Pipe::ring::buffer_bytes[0];
  porter::for_each_tile(
      pipe, src, trips, [&](int i) { return coords[first + i]; },
      [&](auto tile, auto i, const auto& at) {
        if (same_coord<Box::rank>(at, coords[first + i]))
          dev::store_bytes<Box::bytes>(out + std::size_t(first + i) * slot_bytes, reinterpret_cast<const unsigned char*>(tile.data()));
      });
}

/// for_each_tile over a tile_schedule with a body that takes the coordinate: body(tile, t, at)
/// must get at == coords[t] for every tile t of every CTA (blocked or persistent). As above, a
/// wrong coordinate leaves slot t poisoned.
template <class Path, int S, class Box>
__global__ void schedule_coord_kernel(const __grid_constant__ porter::tiled_source<Box> src,
                                      const porter::coord<Box::rank>* coords, porter::tile_schedule sched, unsigned char* out) {
  extern __shared__ unsigned char smem[];
  using Pipe = porter::pipeline<Path, S, Box>;
  dev::scribble_stages<Pipe>(smem);
  Pipe pipe(smem);
  constexpr std::size_t slot_bytes = Pipe::ring::buffer_bytes[0];
  porter::for_each_tile(
      pipe, src, sched, [&](long long t) { return coords[t]; },
      [&](porter::tile_view<Box> tile, long long t, porter::coord<Box::rank> at) {
        if (same_coord<Box::rank>(at, coords[t]))
          dev::store_bytes<Box::bytes>(out + std::size_t(t) * slot_bytes, reinterpret_cast<const unsigned char*>(tile.data()));
      });
}

/// Byte ranges: step i copies counts[first+i] bytes from base + offsets[first+i] into buffer 0.
/// With `prefill` the consumer stores the whole buffer (the copy must not touch the pattern past
/// its end); without, only the copied bytes (the rest of the slot must stay poisoned).
template <class Path, int S, porter::cache_hint H = porter::cache_hint::none>
__global__ void bytes_copy_kernel(const unsigned char* base, const int* offsets, const int* counts, const int2* work,
                             unsigned char* out, int ahead, int prefill) {
  extern __shared__ unsigned char smem[];
  using Pipe = porter::pipeline<Path, S, bytes_box>;
  dev::scribble_stages<Pipe>(smem);
  Pipe pipe(smem);
  const int first = work[blockIdx.x].x, trips = work[blockIdx.x].y;
  int issued = 0;
  for (int i = 0; i < trips; ++i) {
    while (issued < trips && issued - i < ahead) {
      auto slot = pipe.producer_acquire();
      if (prefill) {
        dev::fill_pattern<bytes_box::bytes>(porter::buffer<0>(slot).data());
        dev::publish_fill();
      }
      if constexpr (H == porter::cache_hint::none)
        porter::async_copy(porter::buffer<0>(slot), base + offsets[first + issued], std::size_t(counts[first + issued]));
      else
        porter::async_copy(porter::buffer<0>(slot), base + offsets[first + issued], std::size_t(counts[first + issued]),
                           porter::l2_hint_t<H>{});
      pipe.producer_commit(slot);
      ++issued;
    }
    auto ready = pipe.consumer_wait();
    unsigned char* o = out + std::size_t(first + i) * bytes_box::bytes;
    if (prefill) {
      dev::store_bytes<bytes_box::bytes>(o, ready.bytes());
    } else {
      const int n = counts[first + i];
      for (int j = int(dev::thread_rank()); j < n; j += int(dev::cta_threads())) o[j] = ready.bytes()[j];
    }
    pipe.consumer_release(ready);
  }
}

/// Two sources per stage (as a GEMM reads A and B). Slot k holds buffer 0 (A's box, padded), then
/// buffer 1 (B's box, padded). Under path::automatic the two copies of one stage may take different lowerings (e.g.
/// TMA for A, cp.async for B when B's pitch rules TMA out).
template <class Path, int S, class A, class B>
__global__ void pair_kernel(const __grid_constant__ porter::tiled_source<A> a, const __grid_constant__ porter::tiled_source<B> b,
                            const porter::coord<A::rank>* ca, const porter::coord<B::rank>* cb, const int2* work,
                            unsigned char* out, int ahead, int prefill) {
  extern __shared__ unsigned char smem[];
  using Pipe = porter::pipeline<Path, S, A, B>;
  dev::scribble_stages<Pipe>(smem);
  Pipe pipe(smem);
  const int first = work[blockIdx.x].x, trips = work[blockIdx.x].y;
  constexpr std::size_t a_bytes = Pipe::ring::buffer_bytes[0], b_bytes = Pipe::ring::buffer_bytes[1];
  constexpr std::size_t slot_bytes = a_bytes + b_bytes;
  int issued = 0;
  for (int i = 0; i < trips; ++i) {
    while (issued < trips && issued - i < ahead) {
      auto slot = pipe.producer_acquire();
      if (prefill) {
        dev::fill_pattern<a_bytes>(reinterpret_cast<unsigned char*>(porter::buffer<0>(slot).data()));
        dev::fill_pattern<b_bytes>(reinterpret_cast<unsigned char*>(porter::buffer<1>(slot).data()));
        dev::publish_fill();
      }
      porter::async_copy(porter::buffer<0>(slot), a, ca[first + issued]);
      porter::async_copy(porter::buffer<1>(slot), b, cb[first + issued]);
      pipe.producer_commit(slot);
      ++issued;
    }
    auto ready = pipe.consumer_wait();
    unsigned char* o = out + std::size_t(first + i) * slot_bytes;
    if (prefill) {
      dev::store_bytes<a_bytes>(o, ready.template bytes<0>());
      dev::store_bytes<b_bytes>(o + a_bytes, ready.template bytes<1>());
    } else {
      dev::store_bytes<A::bytes>(o, ready.template bytes<0>());
      dev::store_bytes<B::bytes>(o + a_bytes, ready.template bytes<1>());
    }
    pipe.consumer_release(ready);
  }
}

/// Two rings of different depths and boxes in one shared_layout, with a scratch tile after them
/// (as a GEMM keeps an A ring, a B ring and an epilogue tile). Step i loads A's box into ring A
/// (SA stages) and B's box into ring B (SB stages); the consumer stores both to slot i like
/// pair_kernel, then uses the landed A stage and the scratch tile as scratch (it scribbles over
/// them) and releases A with porter::stage_written, so the next fill of that stage must land whole
/// over generic writes (on tma: the fence.proxy.async that stage_written issues).
template <class Path, int SA, int SB, class A, class B>
__global__ void two_rings_kernel(const __grid_constant__ porter::tiled_source<A> a, const __grid_constant__ porter::tiled_source<B> b,
                                 const porter::coord<A::rank>* ca, const porter::coord<B::rank>* cb, const int2* work,
                                 unsigned char* out, int ahead, int) {
  extern __shared__ unsigned char smem[];
  using PA = porter::pipeline<Path, SA, A>;
  using PB = porter::pipeline<Path, SB, B>;
  using L = porter::shared_layout<PA, PB, porter::scratch<A>>;
  dev::scribble_stages<PA>(L::template part<0>(smem));
  dev::scribble_stages<PB>(L::template part<1>(smem));
  PA pa(L::template part<0>(smem));
  PB pb(L::template part<1>(smem));
  unsigned char* scratch = L::template part<2>(smem);
  const int first = work[blockIdx.x].x, trips = work[blockIdx.x].y;
  constexpr std::size_t a_bytes = PA::ring::buffer_bytes[0], b_bytes = PB::ring::buffer_bytes[0];
  const int depth = ahead < SA ? (ahead < SB ? ahead : SB) : (SA < SB ? SA : SB);  // steps in flight: both rings have room
  int issued = 0;
  for (int i = 0; i < trips; ++i) {
    while (issued < trips && issued - i < depth) {
      auto sa = pa.producer_acquire();
      porter::async_copy(sa, a, ca[first + issued]);
      pa.producer_commit(sa);
      auto sb = pb.producer_acquire();
      porter::async_copy(sb, b, cb[first + issued]);
      pb.producer_commit(sb);
      ++issued;
    }
    auto ra = pa.consumer_wait();
    auto rb = pb.consumer_wait();
    unsigned char* o = out + std::size_t(first + i) * (a_bytes + b_bytes);
    dev::store_bytes<A::bytes>(o, ra.bytes());
    dev::store_bytes<B::bytes>(o + a_bytes, rb.bytes());
    __syncthreads();  // every thread has read the stages before any thread scribbles over them
    unsigned char* landed = const_cast<unsigned char*>(ra.bytes());
    for (std::size_t j = dev::thread_rank(); j < A::bytes; j += dev::cta_threads()) {
      landed[j] = static_cast<unsigned char>(0x5A ^ j);
      scratch[j] = static_cast<unsigned char>(j);
    }
    pa.consumer_release(ra, porter::stage_written);
    pb.consumer_release(rb);
  }
}

}  // namespace porter_test
