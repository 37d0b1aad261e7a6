// porter/store.hpp — asynchronous stores and reductions from shared memory to global memory.
//
// The other direction of async_copy: a CTA writes a tile it holds in shared memory (a landed stage
// it computed on, or scratch of its own) to a tiled destination at coordinates, or a byte range to
// a global address. Collective, like the pipeline: every thread of the CTA makes every call, in the
// same order, with the same arguments.
//
//   porter::store_queue<Path> q;                 // per thread; no shared memory
//   ... every thread writes its part of `tile` (shared memory) ...
//   porter::async_store(q, dst, tile, at);       // the box at `at` of dst <- tile (only elements inside dst)
//   porter::async_reduce<porter::reduce_op::add>(q, acc, tile, at);   // acc(at + i) += tile(i)
//   q.commit();                                   // close the group of stores issued so far
//   q.wait_read();                                // the tiles of every group may be overwritten
//   // or, for a landed stage about to be released: q.wait_read_before_release(); pipe.consumer_release(ready);
//   q.wait_write();                               // ... and their global writes are performed
//
// Each store starts by making every thread's earlier writes to the tile visible to the agent that
// reads it (tma: fence.proxy.async.shared::cta in every thread, then a CTA barrier; others: a CTA
// barrier). Groups complete in order; wait_read<N> / wait_write<N> wait for all but the newest N.
// Before a thread writes a tile again that a store reads, wait_read must have returned for that
// store's group. After wait_write every write of those groups is visible to the threads of this
// CTA; other CTAs see them after the usual release (__threadfence() and a flag), the host after the
// kernel ends.
// Before the CTA exits, every store must have read its shared source (wait_read, or
// wait_read_before_release for a pipeline stage, after the last commit): the CTA's shared memory
// is freed at exit. Its global writes need no wait: they are performed when the grid completes,
// for the host, later kernels and a programmatic dependent launch after griddepcontrol.wait alike
// (PTX ISA 9.7.9.25.6: .read waits only for the source reads; CUTLASS's sm90 epilogue ends with
// the .read wait alone, Triton's store_wait defaults to read_only). wait_write is for a reader
// inside the grid: this CTA, or another after a release. (Ending with wait_write anyway cost
// nothing measurable on the H200: copy2d, one 16 KiB tile per CTA, tma, within 0.1%; session 26.)
//
// Lowerings (each lowering's store file documents its instructions):
//   tma       cp.async.bulk.tensor / cp.reduce.async.bulk.tensor from thread 0, bulk async-groups
//             (backends/tma/porter/tma/store.hpp); thread stores where TMA cannot (unaligned inner
//             coordinate, unaligned head and tail of byte ranges)
//   cp_async, staged   vectorized thread stores and atomics (backends/staged/porter/staged/store.hpp)
// Every path writes the same bytes: exactly the elements of the box inside the tensor, read through
// the box's swizzle.
//
// Source: PTX ISA 8.x 9.7.9.25.4-6 (bulk stores, reductions, bulk async-groups), 9.7.13.4 (proxy
// fences); CUDA C++ Programming Guide, "Asynchronous Data Copies using TMA".
#pragma once
#include <cstddef>
#include <type_traits>

#include "porter/box.hpp"
#include "porter/config.hpp"
#include "porter/destination.hpp"
#include "porter/detail/trap.hpp"
#include "porter/lowerings.hpp"
#include "porter/path.hpp"

namespace porter {

/// Per-thread handle of a CTA's stores through concrete path `Path`: issues them (async_store,
/// async_reduce) and completes them (commit, wait_read, wait_write). Holds no shared memory and no
/// barrier; construct one in every thread (collectively) and make every call collectively.
template <class Path>
class store_queue {
  static_assert(is_path<Path>::value && !std::is_same_v<Path, path::automatic>,
                "porter::store_queue: the template argument must be a concrete path tag (porter::path::tma, cp_async or "
                "staged); path::automatic is chosen on the host for each launch.");

 public:
  using path_type = Path;
  /// The lowering that implements Path in this build (from the vendor registry).
  using lowering = lowering_for<Path>;

#if PORTER_GPU_COMPILER
  PORTER_DEVICE store_queue() : ctx_{nullptr, detail::thread_rank(), detail::cta_size()} {}

  /// Store the box held at `tile` to `dst` at `at` (see async_store).
  template <class Box>
  PORTER_DEVICE PORTER_FORCEINLINE void store(const tiled_destination<Box>& dst, tile_view<Box> tile, const coord<Box::rank>& at) {
    check_tile<Box>(tile.data());
    lowering::template store_box<Box>(dst, tile.data(), at, ctx_);
  }
  /// Store `bytes` bytes from shared `src` to global `dst` (see async_store).
  PORTER_DEVICE PORTER_FORCEINLINE void store_bytes(void* dst, const void* src, std::size_t bytes) {
    lowering::store_bytes(dst, src, bytes, ctx_);
  }
  /// Reduce the box held at `tile` into `dst` at `at` with `Op` (see async_reduce).
  template <reduce_op Op, class Box>
  PORTER_DEVICE PORTER_FORCEINLINE void reduce(const tiled_destination<Box>& dst, tile_view<Box> tile, const coord<Box::rank>& at) {
    static_assert(reducible(element_kind_of<typename Box::element_type>, Op),
                  "porter::async_reduce: no hardware reduction for this element type and operator: add is defined for float, "
                  "std::int32_t, std::uint32_t and unsigned long long elements; min and max for std::int32_t and std::uint32_t.");
    check_tile<Box>(tile.data());
    if constexpr (reducible(element_kind_of<typename Box::element_type>, Op))  // one error, the sentence above
      lowering::template reduce_box<Op, Box>(dst, tile.data(), at, ctx_);
  }
  /// Close the group of stores and reductions issued since the last commit. Collective.
  PORTER_DEVICE PORTER_FORCEINLINE void commit() { lowering::store_commit(ctx_); }
  /// Every group but the newest N has read its shared sources: they may be overwritten. Collective.
  template <int N = 0>
  PORTER_DEVICE PORTER_FORCEINLINE void wait_read() {
    static_assert(N >= 0 && N <= 7, "porter::store_queue::wait_read<N>: N is 0..7 groups left pending.");
    lowering::template store_wait_read<N>(ctx_);
  }
  /// Before consumer_release of a pipeline stage that the stores of every group but the newest N
  /// read from: cheaper than wait_read (tma: only thread 0 waits, no CTA barrier; other paths:
  /// nothing), and enough because the pipeline refills a released stage only after its own CTA
  /// barrier (tma: the refill is issued by thread 0 after this wait). Not enough before the
  /// threads themselves write into the stage or tile again: use wait_read for that. Collective.
  template <int N = 0>
  PORTER_DEVICE PORTER_FORCEINLINE void wait_read_before_release() {
    static_assert(N >= 0 && N <= 7, "porter::store_queue::wait_read_before_release<N>: N is 0..7 groups left pending.");
    lowering::template store_wait_read_before_release<N>(ctx_);
  }
  /// Every group but the newest N has performed its global writes (visible to this CTA). Collective.
  /// Not needed before the CTA exits (the file comment): wait_read is enough there.
  template <int N = 0>
  PORTER_DEVICE PORTER_FORCEINLINE void wait_write() {
    static_assert(N >= 0 && N <= 7, "porter::store_queue::wait_write<N>: N is 0..7 groups left pending.");
    lowering::template store_wait_write<N>(ctx_);
  }

 private:
  template <class Box>
  static PORTER_DEVICE PORTER_FORCEINLINE void check_tile(const void* p) {
#if PORTER_DEBUG
    if ((reinterpret_cast<std::uintptr_t>(p) & (swizzle_atom_bytes(Box::swizzle_mode) - 1)) != 0)
      detail::trap("async_store: the shared tile is not aligned to its box's swizzle atom (128 B unswizzled, 256/512/1024 B swizzled)");
#else
    (void)p;
#endif
  }

  detail::copy_context ctx_;
#endif  // PORTER_GPU_COMPILER
};

#if PORTER_GPU_COMPILER
/// Store the box held in shared memory at `tile` (Box's layout, its swizzle included; aligned to
/// swizzle_atom_bytes(Box::swizzle_mode), 128 B unswizzled — a stage buffer of a pipeline is) to
/// the box of `dst` whose first element is at `at` (elements, outermost first; may be negative or
/// past the end). Only elements inside the tensor are written. Collective; completes with
/// q.commit() and q.wait_read() / q.wait_write().
/// Errors: on path tma with a destination that does not allow tma, the kernel traps with a message
/// (porter::launch refuses such a launch on the host first).
template <class Path, class Box>
PORTER_DEVICE PORTER_FORCEINLINE void async_store(store_queue<Path>& q, const tiled_destination<Box>& dst, tile_view<Box> tile,
                                                  const coord<Box::rank>& at) {
  q.store(dst, tile, at);
}

/// Store `bytes` contiguous bytes from shared `src` to global `dst` (any alignment; tma moves the
/// part 16-byte aligned on both sides with cp.async.bulk). Exactly [dst, dst + bytes) is written.
/// Collective.
template <class Path>
PORTER_DEVICE PORTER_FORCEINLINE void async_store(store_queue<Path>& q, void* dst, const void* src, std::size_t bytes) {
  q.store_bytes(dst, src, bytes);
}

/// dst(at + i) = Op(dst(at + i), tile(i)) for every element i of the box inside the tensor.
/// Element types and operators: porter::reducible (a static_assert sentence otherwise); exactness
/// rules: porter/destination.hpp. Collective; completes like async_store.
template <reduce_op Op, class Path, class Box>
PORTER_DEVICE PORTER_FORCEINLINE void async_reduce(store_queue<Path>& q, const tiled_destination<Box>& dst, tile_view<Box> tile,
                                                   const coord<Box::rank>& at) {
  q.template reduce<Op>(dst, tile, at);
}
#endif  // PORTER_GPU_COMPILER

}  // namespace porter
