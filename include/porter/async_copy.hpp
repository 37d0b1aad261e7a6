// porter/async_copy.hpp — issue a copy from global memory into an acquired stage.
//
// Destination first, like memcpy and cuda::memcpy_async. Three forms:
//   async_copy(slot, src, at)                 box at `at` of src into the stage's buffer 0
//   async_copy(buffer<I>(slot), src, at)      ... into buffer I (several sources per stage)
//   async_copy(buffer<I>(slot), ptr, bytes)   a contiguous byte range into buffer I
// Each form takes an optional last argument, an L2 eviction hint (porter::evict_first,
// evict_last, evict_normal; porter/cache_hint.hpp): on tma the copy's instructions carry it,
// elsewhere it is nothing. It never changes the bytes that land.
// All threads of the CTA call it with the same arguments, between producer_acquire and
// producer_commit. The copy takes the pipeline's path: its lowering's protocol issues it
// (lowering_for<Path>::protocol::copy_box / copy_bytes) and completes it.
#pragma once
#include <cstddef>
#include <type_traits>
#include <utility>

#include "porter/box.hpp"
#include "porter/cache_hint.hpp"
#include "porter/detail/trap.hpp"
#include "porter/pipeline.hpp"
#include "porter/source.hpp"

namespace porter {

/// Tag for async_copy: every CTA of the thread-block cluster copies this box, with the same source
/// and coordinates, into a ring built with porter::cluster_multicast (porter/pipeline.hpp): on the
/// tma path one CTA reads it and it lands in every CTA of the cluster. Elsewhere an ordinary copy.
struct multicast_t {};
inline constexpr multicast_t multicast{};

namespace detail {
/// True when lowering L can prefetch a box into L2 (prefetch_box: tma).
template <class L, class Box, class = void>
struct has_prefetch_box : std::false_type {};
template <class L, class Box>
struct has_prefetch_box<L, Box,
                        std::void_t<decltype(L::template prefetch_box<Box>(std::declval<const tiled_source<Box>&>(),
                                                                           std::declval<const coord<Box::rank>&>(), 0u))>>
    : std::true_type {};
/// True when protocol P copies a box by multicast within a cluster (copy_box_multicast: tma).
template <class P, int I, class Box, class = void>
struct has_copy_box_multicast : std::false_type {};
template <class P, int I, class Box>
struct has_copy_box_multicast<P, I, Box,
                              std::void_t<decltype(std::declval<P&>().template copy_box_multicast<I, Box>(
                                  0u, std::declval<typename Box::element_type*>(), std::declval<const tiled_source<Box>&>(),
                                  std::declval<const coord<Box::rank>&>()))>> : std::true_type {};
}  // namespace detail

#if PORTER_GPU_COMPILER
/// Copy the box of `src` whose first element is at `at` (elements, outermost first; may be negative
/// or run past the tensor: those elements read as zero) into buffer I of an acquired stage.
/// The destination holds Box densely, row-major, 128-byte aligned. Collective.
/// Errors: on path tma a source that does not allow tma is refused by porter::launch on the host.
/// A launch that bypasses it traps with porter's message in PORTER_DEBUG=1 builds; release builds
/// do not test it in device code, and a 2D-5D box then fails the launch with
/// cudaErrorIllegalInstruction (the all-zero tensor map; porter/tma/copy.hpp).
template <class Pipe, int I, class Box>
PORTER_DEVICE PORTER_FORCEINLINE void async_copy(stage_buffer<Pipe, I> dst, const tiled_source<Box>& src, const coord<Box::rank>& at) {
  async_copy(dst, src, at, l2_hint_t<cache_hint::none>{});
}

/// As async_copy(dst, src, at), the lines the copy reads from global memory taking L2 eviction
/// priority H (porter::evict_first / evict_last / evict_normal). The same bytes land, with the same
/// completion. Lowering: tma (sm_90) cp.async.bulk.tensor / cp.async.bulk ... .L2::cache_hint
/// with a createpolicy.fractional policy of fraction 1.0; cp_async (its hinted cp.async faulted on
/// the H200 in some kernel shapes: porter/cp_async/copy.hpp), staged, HIP and tma's thread-load
/// fallback (boxes at an innermost coordinate that is not 16-byte aligned): no hint. Source: PTX
/// ISA 8.x, "createpolicy", 9.7.9.25.4-5.
template <class Pipe, int I, class Box, cache_hint H>
PORTER_DEVICE PORTER_FORCEINLINE void async_copy(stage_buffer<Pipe, I> dst, const tiled_source<Box>& src, const coord<Box::rank>& at,
                                                 l2_hint_t<H>) {
  static_assert(std::is_same_v<typename stage_buffer<Pipe, I>::box_type, Box>,
                "porter::async_copy: the source's box type must be the same as the stage buffer's box type.");
  producer_slot<Pipe>& slot = dst.slot();
  slot.pipeline().protocol().template copy_box<I, Box, H>(slot.stage(), dst.data(), src, at);
}

/// As async_copy(dst, src, at), for a box that every CTA of the cluster copies with the same `src`
/// and `at` (porter::multicast; see porter::cluster_multicast for the ring and its preconditions).
/// Lowering: tma, in a cluster-multicast ring launched in clusters of more than one CTA: thread 0
/// of every CTA expects the box's bytes, and one CTA (rotating step by step) issues
/// cp.async.bulk.tensor ... .multicast::cluster to all of them (1D boxes, and boxes whose innermost
/// coordinate is not 16-byte aligned, are copied by every CTA itself). Other paths, other rings, a
/// launch without clusters: async_copy(dst, src, at). Collective over the CTA.
template <class Pipe, int I, class Box>
PORTER_DEVICE PORTER_FORCEINLINE void async_copy(stage_buffer<Pipe, I> dst, const tiled_source<Box>& src, const coord<Box::rank>& at,
                                                 multicast_t) {
  async_copy(dst, src, at, multicast, l2_hint_t<cache_hint::none>{});
}

/// As async_copy(dst, src, at, multicast), with L2 eviction hint H on the issuing CTA's copy (see
/// the hinted async_copy above).
template <class Pipe, int I, class Box, cache_hint H>
PORTER_DEVICE PORTER_FORCEINLINE void async_copy(stage_buffer<Pipe, I> dst, const tiled_source<Box>& src, const coord<Box::rank>& at,
                                                 multicast_t, l2_hint_t<H>) {
  static_assert(std::is_same_v<typename stage_buffer<Pipe, I>::box_type, Box>,
                "porter::async_copy: the source's box type must be the same as the stage buffer's box type.");
  producer_slot<Pipe>& slot = dst.slot();
  auto& proto = slot.pipeline().protocol();
  if constexpr (detail::has_copy_box_multicast<std::remove_reference_t<decltype(proto)>, I, Box>::value)
    proto.template copy_box_multicast<I, Box, H>(slot.stage(), dst.data(), src, at);
  else
    proto.template copy_box<I, Box, H>(slot.stage(), dst.data(), src, at);
}

/// As above, into buffer 0 of the stage.
template <class Pipe, class Box>
PORTER_DEVICE PORTER_FORCEINLINE void async_copy(producer_slot<Pipe>& slot, const tiled_source<Box>& src, const coord<Box::rank>& at) {
  async_copy(buffer<0>(slot), src, at);
}
/// As above, with L2 eviction hint H (see the hinted async_copy above).
template <class Pipe, class Box, cache_hint H>
PORTER_DEVICE PORTER_FORCEINLINE void async_copy(producer_slot<Pipe>& slot, const tiled_source<Box>& src, const coord<Box::rank>& at,
                                                 l2_hint_t<H> hint) {
  async_copy(buffer<0>(slot), src, at, hint);
}

/// Copy `bytes` contiguous bytes from global `src` (any alignment) to the start of buffer I.
/// Precondition: bytes <= the buffer's box bytes (checked in debug builds). Exactly `bytes` bytes
/// are written. Lowering: tma uses cp.async.bulk for the part that is 16-byte aligned on both sides;
/// cp_async uses chunks as wide as the source alignment allows (>= 4 B); the rest moves with loads.
template <class Pipe, int I>
PORTER_DEVICE PORTER_FORCEINLINE void async_copy(stage_buffer<Pipe, I> dst, const void* src, std::size_t bytes) {
  async_copy(dst, src, bytes, l2_hint_t<cache_hint::none>{});
}
/// As async_copy(dst, src, bytes), with L2 eviction hint H on the cp.async.bulk copies (tma);
/// cp_async, staged, HIP and the plain-load parts: no hint (see the hinted box copy above).
template <class Pipe, int I, cache_hint H>
PORTER_DEVICE PORTER_FORCEINLINE void async_copy(stage_buffer<Pipe, I> dst, const void* src, std::size_t bytes, l2_hint_t<H>) {
#if PORTER_DEBUG
  if (bytes > stage_buffer<Pipe, I>::box_type::bytes)
    detail::trap_stage("async_copy: byte count exceeds the stage buffer", dst.slot().stage(), dst.slot().phase());
#endif
  producer_slot<Pipe>& slot = dst.slot();
  slot.pipeline().protocol().template copy_bytes<I, H>(slot.stage(), dst.data(), src, bytes);
}
/// Bring the box of `src` at `at` (elements, outermost first; as async_copy's) into L2 ahead of a
/// later async_copy of it through `pipe`, without landing it anywhere and without taking a stage:
/// for example the first K-tiles of a persistent GEMM's next output tile, or a tile another CTA
/// will read. A hint: no completion, nothing to wait for, no effect on any copy's bytes; elements
/// outside the tensor are not fetched. Collective over the CTA (every thread calls it with the same
/// arguments; one thread issues), and callable at any point of the pipeline's life.
/// Lowering: tma (sm_90): cp.async.bulk.prefetch.tensor.{2..5}d.L2.global.tile through the
/// source's tensor map (a box whose innermost coordinate is not 16-byte aligned: nothing), 1D
/// boxes cp.async.bulk.prefetch.L2 of their 16-byte-aligned part inside the tensor. cp_async,
/// staged and HIP: nothing (no box prefetch on those targets; prefetching line by line would cost
/// every thread instructions for a hint). Precondition on tma: the source allows tma (porter::launch
/// checks it) and, for rank >= 2, is a __grid_constant__ kernel parameter.
/// Source: PTX ISA 8.x 9.7.9.25.5.3, 9.7.9.25.4.3; CUTLASS's SM90_TMA_LOAD::PREFETCH.
template <class Pipe, class Box>
PORTER_DEVICE PORTER_FORCEINLINE void prefetch(Pipe& pipe, const tiled_source<Box>& src, const coord<Box::rank>& at) {
  (void)pipe;
  using L = typename Pipe::lowering;
  if constexpr (detail::has_prefetch_box<L, Box>::value) L::template prefetch_box<Box>(src, at, detail::thread_rank());
}

#endif  // PORTER_GPU_COMPILER

}  // namespace porter
