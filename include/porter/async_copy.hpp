// porter/async_copy.hpp — issue a copy from global memory into an acquired stage.
//
// Destination first, like memcpy and cuda::memcpy_async. Three forms:
//   async_copy(slot, src, at)                 box at `at` of src into the stage's buffer 0
//   async_copy(buffer<I>(slot), src, at)      ... into buffer I (several sources per stage)
//   async_copy(buffer<I>(slot), ptr, bytes)   a contiguous byte range into buffer I
// All threads of the CTA call it with the same arguments, between producer_acquire and
// producer_commit. The path is the pipeline's; under path::automatic each copy takes the best
// lowering the compile target has AND the source allows (tma, else cp_async, else staged).
#pragma once
#include <cstddef>
#include <type_traits>

#include "porter/box.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/trap.hpp"
#include "porter/path.hpp"
#include "porter/pipeline.hpp"
#include "porter/source.hpp"
#include "porter/staged/copy.hpp"
#if PORTER_HIP
#  include "porter/hip/copy.hpp"
#else
#  include "porter/cp_async/copy.hpp"
#  include "porter/tma/copy.hpp"
#endif

namespace porter {

#if PORTER_GPU_COMPILER
namespace detail {

template <class Pipe>
PORTER_DEVICE PORTER_FORCEINLINE copy_context context_of(const producer_slot<Pipe>& slot) {
  const Pipe& p = slot.pipeline();
  return copy_context{Pipe::uses_mbarrier ? p.full(slot.stage()) : nullptr, p.thread(), p.threads()};
}

/// Run `op(backend)` with the backend for this copy: the pipeline's path, or under automatic the
/// best the target has and `allowed(path_id)` permits.
template <class Pipe, class Allowed, class Op>
PORTER_DEVICE PORTER_FORCEINLINE void dispatch(producer_slot<Pipe>& slot, Allowed allowed, Op op) {
  using P = typename Pipe::path_type;
#if PORTER_HIP
  // AMD: every copy takes the staged lowering tuned for AMD (porter/hip/copy.hpp). Only staged and
  // automatic pipelines compile under HIP unless PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH is set;
  // then a tma / cp_async pipeline traps in init() and never gets here.
  (void)slot; (void)allowed;
  op(backend::hip{});
#else
  if constexpr (std::is_same_v<P, path::tma>) {
    (void)slot;
    if (!allowed(path_id::tma)) trap("async_copy on path tma: this source does not allow tma (see porter::explain on the host)");
    op(backend::tma{});
  } else if constexpr (std::is_same_v<P, path::cp_async>) {
    (void)allowed;
    op(backend::cp_async{});
  } else if constexpr (std::is_same_v<P, path::staged>) {
    (void)slot; (void)allowed;
    op(backend::staged{});
  } else {  // automatic
    if constexpr (arch::has_tma) {
      if (allowed(path_id::tma)) { op(backend::tma{}); return; }
    }
    if constexpr (arch::has_cp_async) {
      if (allowed(path_id::cp_async)) { op(backend::cp_async{}); return; }
    }
    op(backend::staged{});
  }
#endif
}
}  // namespace detail

/// Copy the box of `src` whose first element is at `at` (elements, outermost first; may be negative
/// or run past the tensor: those elements read as zero) into buffer I of an acquired stage.
/// The destination holds Box densely, row-major, 128-byte aligned. Collective.
/// Errors: on path tma with a source that does not allow tma, the kernel traps with a message.
template <class Pipe, int I, class Box>
PORTER_DEVICE void async_copy(stage_buffer<Pipe, I> dst, const tiled_source<Box>& src, const coord<Box::rank>& at) {
  static_assert(std::is_same_v<typename stage_buffer<Pipe, I>::box_type, Box>,
                "porter::async_copy: the source's box type must be the same as the stage buffer's box type.");
  producer_slot<Pipe>& slot = dst.slot();
  const detail::copy_context ctx = detail::context_of(slot);
  detail::dispatch(slot, [&](path_id p) { return src.supports(p); },
                   [&](auto backend) { decltype(backend)::template copy_box<Box>(dst.data(), src, at, ctx); });
}

/// As above, into buffer 0 of the stage.
template <class Pipe, class Box>
PORTER_DEVICE void async_copy(producer_slot<Pipe>& slot, const tiled_source<Box>& src, const coord<Box::rank>& at) {
  async_copy(buffer<0>(slot), src, at);
}

/// Copy `bytes` contiguous bytes from global `src` (any alignment) to the start of buffer I.
/// Precondition: bytes <= the buffer's box bytes (checked in debug builds). Exactly `bytes` bytes
/// are written. Lowering: tma uses cp.async.bulk for the part that is 16-byte aligned on both sides;
/// cp_async uses chunks as wide as the source alignment allows (>= 4 B); the rest moves with loads.
template <class Pipe, int I>
PORTER_DEVICE void async_copy(stage_buffer<Pipe, I> dst, const void* src, std::size_t bytes) {
#if PORTER_DEBUG
  if (bytes > stage_buffer<Pipe, I>::box_type::bytes)
    detail::trap_stage("async_copy: byte count exceeds the stage buffer", dst.slot().stage(), dst.slot().phase());
#endif
  producer_slot<Pipe>& slot = dst.slot();
  const detail::copy_context ctx = detail::context_of(slot);
  detail::dispatch(slot, [](path_id) { return true; },
                   [&](auto backend) { decltype(backend)::copy_bytes(dst.data(), src, bytes, ctx); });
}
#endif  // PORTER_GPU_COMPILER

}  // namespace porter
