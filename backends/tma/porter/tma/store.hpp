// porter/tma/store.hpp — the tma lowering's shared -> global stores and reductions (Hopper, sm_90+).
//
// 2D-5D boxes wholly inside the tensor: every thread orders its writes to the shared source before
// the async proxy reads it (fence.proxy.async.shared::cta, then a CTA barrier); thread 0 issues
// cp.async.bulk.tensor (store) or cp.reduce.async.bulk.tensor (reduction) with the destination's
// tensor map; an outermost dimension above 256 is split as for loads (the same shared layout).
// What a TMA tensor store tolerates was measured on the H200 (2026-12-01, CUDA 13.0, driver 580,
// tests/device/probe_tma_store.cu, a 16 x 32 box of 2-byte elements): a box inside the tensor, past
// its end in both dimensions, or wider than a 64 x 8 tensor whose rows are 16 B: correct; any negative
// coordinate: cudaErrorIllegalInstruction; a box wider than a 17 x 1 tensor whose rows are 2 B: wrong
// bytes written. So a box takes cp.async.bulk.tensor only when every coordinate is >= 0, its innermost
// coordinate is 16-byte aligned, and it ends inside the tensor's rows or those rows are a multiple of
// 16 B; every other box is stored by the threads (porter/staged/store.hpp), which write exactly the
// elements inside the tensor. 1D boxes and byte ranges:
// cp.async.bulk / cp.reduce.async.bulk for the part that is 16-byte aligned on both sides, thread
// stores (atomics) for the rest and when the two sides disagree modulo 16.
//
// Completion: bulk async-groups of thread 0. store_commit closes the group (cp.async.bulk.commit_group);
// store_wait_read<N> (cp.async.bulk.wait_group.read N, then a CTA barrier): the shared sources of
// every group but the newest N may be overwritten; store_wait_write<N> (cp.async.bulk.wait_group N,
// then a CTA barrier): their global writes are performed and visible to the CTA. The thread-store
// fallbacks are complete when they return; the barriers cover them too.
// Source: PTX ISA 8.x 9.7.9.25.4 (cp.async.bulk, cp.reduce.async.bulk), 9.7.9.25.5
// (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor), 9.7.9.25.6 (bulk async-groups), 9.7.13.4
// (fence.proxy.async); CUDA C++ Programming Guide, "Asynchronous Data Copies using TMA" (stores).
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/destination.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/ptx/bulk_store.hpp"
#include "porter/ptx/mbarrier.hpp"
#include "porter/staged/store.hpp"

namespace porter::backend {

/// The tma stores and reductions. Same operation set as porter::backend::staged_store.
struct tma_store {
#if defined(__CUDACC__)
  /// Store the box at shared `tile` (Box's layout, swizzle included; aligned to its swizzle atom,
  /// 128 B at least) to `dst` at `at`; only elements inside the tensor are written. Precondition:
  /// dst.supports(path_id::tma) and, for rank >= 2, `dst` is a __grid_constant__ kernel parameter
  /// (traps otherwise). Collective; complete after store_commit and store_wait_read / _write.
  template <class Box>
  static PORTER_DEVICE void store_box(const tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                      const coord<Box::rank>& at, const detail::copy_context& ctx) {
    bulk_box<false, reduce_op::add, Box>(dst, tile, at, ctx);
  }

  /// Store `bytes` bytes from shared `src` to global `dst`: cp.async.bulk for the part 16-byte
  /// aligned on both sides, thread stores for the rest. Exactly [dst, dst + bytes) is written. Collective.
  static PORTER_DEVICE void store_bytes(void* dst, const void* src, std::size_t bytes, const detail::copy_context& ctx) {
    to_async_proxy();
    bulk_range<false, reduce_op::add, unsigned char>(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), bytes, ctx);
  }

  /// dst(at + i) = Op(dst(at + i), tile(i)) for every element inside the tensor: cp.reduce.async.bulk.tensor
  /// (the tensor map's data type is the destination's element kind). Collective.
  template <reduce_op Op, class Box>
  static PORTER_DEVICE void reduce_box(const tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                       const coord<Box::rank>& at, const detail::copy_context& ctx) {
    bulk_box<true, Op, Box>(dst, tile, at, ctx);
  }

  /// Close thread 0's bulk async-group.
  static PORTER_DEVICE void store_commit(const detail::copy_context& ctx) {
    if (ctx.thread == 0) ptx::bulk_commit_group();
  }
  /// Every group but the newest N has read its shared source; then a CTA barrier.
  template <int N>
  static PORTER_DEVICE void store_wait_read(const detail::copy_context& ctx) {
    if (ctx.thread == 0) ptx::bulk_wait_group_read<N>();
    __syncthreads();
  }
  /// Before releasing a pipeline stage that a store of every group but the newest N reads: thread 0
  /// waits for those reads (wait_group.read N) and no CTA barrier follows. Enough because the
  /// stage's refill is issued by thread 0 (TMA) after this wait in its program order, or written by
  /// threads only after the pipeline's CTA barrier, which thread 0 reaches after this wait.
  template <int N>
  static PORTER_DEVICE void store_wait_read_before_release(const detail::copy_context& ctx) {
    if (ctx.thread == 0) ptx::bulk_wait_group_read<N>();
  }
  /// Every group but the newest N has written global memory; then a CTA barrier.
  template <int N>
  static PORTER_DEVICE void store_wait_write(const detail::copy_context& ctx) {
    if (ctx.thread == 0) ptx::bulk_wait_group<N>();
    __syncthreads();
  }

 private:
  // The measured rule of the file comment.
  template <class Box>
  static PORTER_DEVICE PORTER_FORCEINLINE bool tma_can_store(const tiled_destination<Box>& dst, const coord<Box::rank>& at) {
    using T = typename Box::element_type;
    constexpr int R = Box::rank;
    bool ok = (std::int64_t(at[R - 1]) * std::int64_t(sizeof(T))) % 16 == 0;
PORTER_UNROLL
    for (int d = 0; d < R; ++d) ok = ok && at[d] >= 0;
    const bool ends_inside_rows = std::int64_t(at[R - 1]) + Box::dim(R - 1) <= dst.extent[R - 1];
    const bool rows_of_16 = (dst.extent[R - 1] * std::int64_t(sizeof(T))) % 16 == 0;
    return ok && (ends_inside_rows || rows_of_16);
  }

  // Each thread's generic writes to the shared source before the async proxy reads it (PTX ISA
  // 9.7.13.4), and every thread's before thread 0 issues: fence, then a CTA barrier.
  static PORTER_DEVICE PORTER_FORCEINLINE void to_async_proxy() {
    ptx::fence_proxy_async_shared_cta();
    __syncthreads();
  }

  template <reduce_op Op, class T>
  static PORTER_HOST_DEVICE constexpr ptx::red_type red_type_of() {
    constexpr element_kind k = element_kind_of<T>;
    return k == element_kind::f32 ? ptx::red_type::f32
           : k == element_kind::s32 ? ptx::red_type::s32
           : k == element_kind::u32 ? ptx::red_type::u32
                                    : ptx::red_type::u64;
  }
  template <reduce_op Op>
  static PORTER_HOST_DEVICE constexpr ptx::red_op red_op_of() {
    return Op == reduce_op::add ? ptx::red_op::add : Op == reduce_op::min ? ptx::red_op::min : ptx::red_op::max;
  }

  template <bool Reduce, reduce_op Op, class Box>
  static PORTER_DEVICE void bulk_box(const tiled_destination<Box>& dst, const typename Box::element_type* tile,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    using T = typename Box::element_type;
    constexpr int R = Box::rank;
    if constexpr (R == 1) {
      // The elements [lo, hi) of the box that lie inside the tensor; the rest are not written.
      constexpr std::int64_t B = Box::dim(0);
      std::int64_t lo = -std::int64_t(at[0]), hi = dst.extent[0] - std::int64_t(at[0]);
      lo = lo < 0 ? 0 : (lo > B ? B : lo);
      hi = hi < lo ? lo : (hi > B ? B : hi);
      to_async_proxy();
      if (hi > lo)
        bulk_range<Reduce, Op, T>(dst.data() + (std::int64_t(at[0]) + lo), tile + lo, std::size_t(hi - lo) * sizeof(T), ctx);
    } else {
      // cp.async.bulk.tensor only for the boxes the file comment says it stores correctly.
      if (!tma_can_store<Box>(dst, at)) {
        __syncthreads();
        if constexpr (Reduce) staged_store::reduce_box_synced<Op, Box>(dst, tile, at, ctx);
        else staged_store::store_box_synced<Box>(dst, tile, at, ctx);
        return;
      }
      to_async_proxy();
      if (ctx.thread != 0) return;
      const void* tmap = dst.tensor_map;
      if (!__isGridConstant(tmap))
        ptx::trap_with("tma path: the tiled_destination must be a __grid_constant__ const kernel parameter, "
                       "passed by reference down to async_store (a copy in local memory has no tensor map)");
      constexpr int inner_scale = sizeof(T) == 16 ? 2 : 1;  // 16-byte elements travel as pairs of 8-byte ones
      int c[max_rank] = {};
#pragma unroll
      for (int d = 0; d < R; ++d) c[d] = at[R - 1 - d];  // innermost first
      c[0] *= inner_scale;
      const unsigned char* s = reinterpret_cast<const unsigned char*>(tile);
      constexpr std::size_t slab = Box::bytes / std::size_t(Box::dim(0));
      const int split = Box::dim(0) <= 256 ? Box::dim(0) : dst.tma_split_rows;
      for (int r = 0; r < Box::dim(0); r += split) {
        c[R - 1] = at[0] + r;
        const void* from = s + std::size_t(r) * slab;
        if constexpr (Reduce) {
          ptx::tensor_reduce_s2g<red_op_of<Op>(), R>(tmap, from, c);
        } else {
          if constexpr (R == 2) ptx::tensor_store_s2g_2d(tmap, from, c[0], c[1]);
          else if constexpr (R == 3) ptx::tensor_store_s2g_3d(tmap, from, c[0], c[1], c[2]);
          else if constexpr (R == 4) ptx::tensor_store_s2g_4d(tmap, from, c[0], c[1], c[2], c[3]);
          else ptx::tensor_store_s2g_5d(tmap, from, c[0], c[1], c[2], c[3], c[4]);
        }
      }
    }
  }

  // Elements of T from shared `s` to global `d`, `bytes` bytes (after the proxy fence and barrier):
  // the bulk instruction for the 16-byte aligned body (thread 0), threads for head and tail.
  template <bool Reduce, reduce_op Op, class T>
  static PORTER_DEVICE void bulk_range(T* d, const T* s, std::size_t bytes, const detail::copy_context& ctx) {
    unsigned char* db = reinterpret_cast<unsigned char*>(d);
    const unsigned char* sb = reinterpret_cast<const unsigned char*>(s);
    const std::uintptr_t da = reinterpret_cast<std::uintptr_t>(db), sa = reinterpret_cast<std::uintptr_t>(sb);
    std::size_t head = (16u - (da & 15u)) & 15u;
    head = head > bytes ? bytes : head;
    const bool agree = ((da ^ sa) & 15u) == 0;
    const std::size_t body = agree ? (bytes - head) & ~std::size_t(15) : 0;
    if (!agree) head = bytes;  // no bulk part: everything by the threads
    const std::size_t tail = bytes - head - body;
    if (body > 0 && ctx.thread == 0) {
      for (std::size_t off = 0; off < body; off += (std::size_t(1) << 30)) {
        const std::size_t n = body - off < (std::size_t(1) << 30) ? body - off : (std::size_t(1) << 30);
        if constexpr (Reduce) ptx::bulk_reduce_s2g<red_op_of<Op>(), red_type_of<Op, T>()>(db + head + off, sb + head + off, std::uint32_t(n));
        else ptx::bulk_store_s2g(db + head + off, sb + head + off, std::uint32_t(n));
      }
    }
    thread_part<Reduce, Op, T>(db, sb, head, ctx);
    thread_part<Reduce, Op, T>(db + head + body, sb + head + body, tail, ctx);
  }

  template <bool Reduce, reduce_op Op, class T>
  static PORTER_DEVICE void thread_part(unsigned char* d, const unsigned char* s, std::size_t bytes, const detail::copy_context& ctx) {
    if (bytes == 0) return;
    if constexpr (Reduce) {
      for (std::size_t i = ctx.thread; i < bytes / sizeof(T); i += ctx.nthreads)
        staged_store::reduce_one<Op>(reinterpret_cast<T*>(d) + i, reinterpret_cast<const T*>(s)[i]);
    } else {
      staged_store::store_bytes_synced(d, s, bytes, ctx);
    }
  }

 public:
#endif  // __CUDACC__
};

}  // namespace porter::backend
