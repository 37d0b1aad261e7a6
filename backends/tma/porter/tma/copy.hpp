// porter/tma/copy.hpp — the tma lowering's copies (Hopper, sm_90+).
//
// 2D-5D boxes: one elected thread (thread 0) raises the stage's expected transaction bytes by the
// box size and issues cp.async.bulk.tensor copies with the source's tensor map; the TMA unit
// zero-fills elements outside the tensor. A box whose innermost coordinate is not 16-byte aligned
// in bytes (TMA faults on those) moves with the staged lowering's thread loads instead. A box whose outermost dimension exceeds TMA's 256 is
// issued as several copies of tma_split_rows rows each (same shared layout).
// 1D boxes and byte ranges: cp.async.bulk for the 16-byte-aligned body (the source and the
// destination must agree modulo 16); unaligned head and tail bytes (< 16 each), and ranges whose
// source and destination disagree modulo 16, move with the staged lowering's thread loads; the
// out-of-bounds part of a 1D box is stored as zero by the threads.
// Every thread-load fallback calls detail::strict_fallback first: with PORTER_STRICT_PATHS=1 it
// traps instead (porter/mechanisms.hpp tells them on the host).
// L2 hints (porter/cache_hint.hpp, template parameter H of every copy): the bulk and bulk-tensor
// copies (multicast too) carry .L2::cache_hint with a createpolicy.fractional policy; cache_hint::none
// issues the unhinted instructions (the same code as without the option). The thread-load
// fallbacks take no hint (the staged lowering's loads).
// Completion is the protocol's (porter/tma/protocol.hpp): transaction bytes on the stage's FULL
// mbarrier, armed by the issuing thread; the thread-load fallbacks end with a fence.proxy.async and
// a CTA barrier, so their stores are ordered before the issuing thread's arrival at commit (in a
// role pipeline: the producer threads copy, with no barrier: each arrives on FULL itself).
// Source: PTX ISA 8.x 9.7.9.25.4 (cp.async.bulk), 9.7.9.25.5 (cp.async.bulk.tensor); CUDA C++
// Programming Guide, "Asynchronous Data Copies using the Tensor Memory Accelerator".
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/cache_hint.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/trap.hpp"
#include "porter/ptx/bulk.hpp"
#include "porter/ptx/cluster.hpp"
#include "porter/ptx/cache_policy.hpp"
#include "porter/ptx/mbarrier.hpp"
#include "porter/source.hpp"
#include "porter/staged/copy.hpp"

namespace porter::backend {

/// The tma copies. Same operation set as porter::backend::staged_copy.
struct tma_copy {
#if defined(__CUDACC__)
  /// Copy the box of `src` at `at` into `dst` (dense box layout, 128-byte aligned shared memory).
  /// Elements outside the tensor read as zero. Precondition: src.supports(path_id::tma), which
  /// porter::launch checks on the host. A launch that bypasses it with a source tma refuses:
  /// PORTER_DEBUG=1 builds trap with porter's message; release builds do not test it in device code
  /// (it cost up to 7% of a GEMM's time, see below): a 2D-5D box copied with the source's all-zero
  /// tensor map makes the launch fail with cudaErrorIllegalInstruction (measured on an H200:
  /// tests/device/test_trap.cu), and a 1D box, which needs no tensor map, is still copied correctly
  /// (bulk copy and thread loads). For rank >= 2, `src` must be a __grid_constant__ kernel
  /// parameter (traps otherwise). Called by every thread of the copying set (the CTA, or a role
  /// pipeline's producers); completes on ctx.barrier. H: the L2 hint of the TMA copies.
  template <class Box, cache_hint H = cache_hint::none>
  static PORTER_DEVICE void copy_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    using T = typename Box::element_type;
    constexpr int R = Box::rank;
    if constexpr (R == 1) {
#if PORTER_DEBUG
      if (!src.supports(path_id::tma)) unsupported_source();
#endif
      // Elements [lo, hi) of the box lie inside the tensor; the rest are zero.
      constexpr std::int64_t B = Box::dim(0);
      std::int64_t lo, hi;
      inside_1d<Box>(src, at, &lo, &hi);
      unsigned char* d = reinterpret_cast<unsigned char*>(dst);
      // One barrier (in a cluster-multicast ring) for the whole box: the zero fill, and copy_bytes'
      // bulk body and thread-stored head and tail (see before_thread_stores).
      const detail::copy_context c = before_thread_stores(ctx);
      if (lo > 0 || hi < B) {
        if (lo > 0) detail::fill_zero(d, std::size_t(lo) * sizeof(T), c);
        if (hi < B) detail::fill_zero(d + hi * sizeof(T), std::size_t(B - hi) * sizeof(T), c);
        after_thread_stores(c);
      }
      if (hi > lo) copy_bytes<H>(d + lo * sizeof(T), src.ptr + (std::int64_t(at[0]) + lo), std::size_t(hi - lo) * sizeof(T), c);
    } else {
      // cp.async.bulk.tensor needs the innermost coordinate at a 16-byte boundary (the hardware
      // raises an illegal-instruction error otherwise); such boxes move with thread loads.
      if (!inner_aligned<Box>(at)) {
        check_source_in_debug(src);
        detail::strict_fallback("strict paths: tma box at an innermost coordinate that is not a multiple of 16 B would move with thread loads", ctx.thread);
        const detail::copy_context c = before_thread_stores(ctx);
        staged_copy::copy_box<Box, cache_hint::none, 1>(dst, src, at, c);
        after_thread_stores(c);
        return;
      }
      check_source_in_debug(src);
      // Release builds do not test src.supports(tma) in device code (see the function comment):
      // every form of the test cost the loop that issues the copies. sgemm 8192^3 on the H200,
      // porter/tma S = 2 (bench/results/h200-2026-12-02-session20/NOTES.md, two runs each):
      //   a predicated trap in thread 0 (ptxas turns `@p trap` into a branch to BPT.TRAP, and the
      //   ring's counters and stage addresses then leave uniform registers)   28.06 ms
      //   the test with porter's message in every thread (a printf call)      28.07 ms
      //   a predicated trap in every thread                                  26.79 ms
      //   no test                                                            26.14 ms (hand-written: 25.57)
      if (ctx.thread != 0) return;
      const void* tmap = tensor_map_of(src);
      ptx::mbarrier_expect_tx(ctx.barrier, std::uint32_t(Box::bytes));
      issue_tensor<Box, tensor_op::copy, H>(dst, tmap, src, at, ctx.barrier, 0);
    }
  }

  /// As copy_box, for a box that every CTA of the thread-block cluster copies from the same source
  /// at the same coordinates, in a ring whose stages sit at the same shared offsets in every CTA (a
  /// cluster-multicast ring: porter/tma/protocol.hpp, role_protocol.hpp). Thread 0 of the copying
  /// set of every CTA raises its own stage's expected transaction bytes by the box; that thread of
  /// the CTA whose cluster rank is `issuer`
  /// alone issues cp.async.bulk.tensor with .multicast::cluster to the CTAs of `cta_mask` (bit i:
  /// rank i; `rank` is this CTA's), so the cluster reads the box from L2 once and it lands in each
  /// of them. A remote CTA's bytes may complete on this CTA's FULL before its own expect_tx: the
  /// transaction count may go below zero within a phase, and the phase cannot complete before this
  /// CTA's thread 0 arrives at commit (PTX ISA 9.7.13.15.1, tx-count range). 1D boxes and boxes
  /// at an innermost coordinate that is not 16-byte aligned are copied by every CTA itself
  /// (copy_box: the same bytes land). Called by every thread of the copying set (the CTA, or a role
  /// pipeline's producers); completes on ctx.barrier. H: the L2 hint of the issuing CTA's copy.
  template <class Box, cache_hint H = cache_hint::none>
  static PORTER_DEVICE void copy_box_multicast(typename Box::element_type* dst, const tiled_source<Box>& src,
                                               const coord<Box::rank>& at, const detail::copy_context& ctx, unsigned rank,
                                               unsigned issuer, std::uint16_t cta_mask) {
    if constexpr (Box::rank == 1) {
      copy_box<Box, H>(dst, src, at, ctx);
    } else {
      if (!inner_aligned<Box>(at)) return copy_box<Box, H>(dst, src, at, ctx);  // its thread-load fallback, in every CTA
      check_source_in_debug(src);
      if (ctx.thread != 0) return;
      const void* tmap = tensor_map_of(src);
      ptx::mbarrier_expect_tx(ctx.barrier, std::uint32_t(Box::bytes));
      if (rank == issuer) issue_tensor<Box, tensor_op::multicast, H>(dst, tmap, src, at, ctx.barrier, cta_mask);
    }
  }

  /// Bring the box of `src` at `at` into L2 without landing it anywhere (thread `thread` == 0
  /// issues; every other thread returns). 2D-5D: cp.async.bulk.prefetch.tensor through the
  /// source's tensor map (elements outside the tensor are not fetched); a box whose innermost
  /// coordinate is not 16-byte aligned prefetches nothing (TMA takes no such coordinate). 1D: the
  /// box's part inside the tensor, rounded inward to 16-byte boundaries, with
  /// cp.async.bulk.prefetch. A hint: no completion, nothing to wait for, no effect on any copy's
  /// bytes. Precondition as copy_box (a source tma allows; for rank >= 2 a __grid_constant__
  /// parameter).
  template <class Box>
  static PORTER_DEVICE void prefetch_box(const tiled_source<Box>& src, const coord<Box::rank>& at, unsigned thread) {
    if (thread != 0) return;
    if constexpr (Box::rank == 1) {
      std::int64_t lo, hi;
      inside_1d<Box>(src, at, &lo, &hi);
      const std::uintptr_t b = reinterpret_cast<std::uintptr_t>(src.ptr + (std::int64_t(at[0]) + lo));
      const std::uintptr_t e = reinterpret_cast<std::uintptr_t>(src.ptr + (std::int64_t(at[0]) + hi));
      const std::uintptr_t b16 = (b + 15u) & ~std::uintptr_t(15), e16 = e & ~std::uintptr_t(15);
      // The transaction-free prefetch still takes a 32-bit size: pieces of at most 512 KiB.
      for (std::uintptr_t p = b16; p < e16; p += (std::uintptr_t(1) << 19)) {
        const std::uintptr_t n = e16 - p < (std::uintptr_t(1) << 19) ? e16 - p : (std::uintptr_t(1) << 19);
        ptx::bulk_prefetch_l2(reinterpret_cast<const void*>(p), std::uint32_t(n));
      }
    } else {
      if (!inner_aligned<Box>(at)) return;
      check_source_in_debug(src);
      issue_tensor<Box, tensor_op::prefetch>(nullptr, tensor_map_of(src), src, at, nullptr, 0);
    }
  }

  /// Order this thread's generic shared-memory writes before later TMA (async-proxy) accesses:
  /// fence.proxy.async.shared::cta (PTX ISA 9.7.13.4). Called by every thread that wrote.
  static PORTER_DEVICE PORTER_FORCEINLINE void after_generic_writes() { ptx::fence_proxy_async_shared_cta(); }

  /// Before a consumer reads a landed stage through the async proxy (wgmma's shared-memory
  /// operands): nothing. TMA writes through the async proxy, and the thread-load fallbacks' writers
  /// each issue fence.proxy.async before the stage completes (after_thread_stores).
  static PORTER_DEVICE PORTER_FORCEINLINE void before_async_proxy_reads() {}

  /// Copy `bytes` bytes from global `src` to shared `dst`: cp.async.bulk for the body when both
  /// addresses agree modulo 16, thread loads for the rest. Exactly [dst, dst + bytes) is written.
  /// Called by every thread of the copying set; completes on ctx.barrier. H: the L2 hint of the
  /// bulk copies.
  template <cache_hint H = cache_hint::none>
  static PORTER_DEVICE void copy_bytes(void* dst, const void* src, std::size_t bytes,
                                       const detail::copy_context& in) {
    // One barrier (in a cluster-multicast ring) for the whole range: thread 0's bulk body and the
    // thread-stored head, tail or fallback (see before_thread_stores).
    const detail::copy_context ctx = before_thread_stores(in);
    const std::uintptr_t s = reinterpret_cast<std::uintptr_t>(src), dd = reinterpret_cast<std::uintptr_t>(dst);
    if (((s ^ dd) & 15u) != 0) {  // cannot be 16-byte aligned on both sides at once
      detail::strict_fallback("strict paths: tma byte range whose source and destination disagree modulo 16 would move with thread loads", ctx.thread);
      staged_copy::copy_bytes_batched<1>(dst, src, bytes, ctx);
      after_thread_stores(ctx);
      return;
    }
    std::size_t head = (16u - (s & 15u)) & 15u;
    head = head > bytes ? bytes : head;
    const std::size_t body = (bytes - head) & ~std::size_t(15);
    const std::size_t tail = bytes - head - body;
    unsigned char* d = static_cast<unsigned char*>(dst);
    const unsigned char* sp = static_cast<const unsigned char*>(src);
    if (body > 0 && ctx.thread == 0) {
      // The transaction count of one phase stays below 2^20 bytes: issue in pieces of 512 KiB at most.
      for (std::size_t off = 0; off < body; off += (std::size_t(1) << 19)) {
        const std::size_t n = body - off < (std::size_t(1) << 19) ? body - off : (std::size_t(1) << 19);
        ptx::mbarrier_expect_tx(ctx.barrier, std::uint32_t(n));
        if constexpr (H == cache_hint::none) ptx::bulk_copy_g2s(d + head + off, sp + head + off, std::uint32_t(n), ctx.barrier);
        else ptx::bulk_copy_g2s_hint(d + head + off, sp + head + off, std::uint32_t(n), ctx.barrier, ptx::l2_policy<H>());
      }
    }
    if (head || tail) detail::strict_fallback("strict paths: tma byte range with an unaligned head or tail would move it with thread loads", ctx.thread);
    if (head) staged_copy::copy_bytes_batched<1>(d, sp, head, ctx);
    if (tail) staged_copy::copy_bytes_batched<1>(d + head + body, sp + head + body, tail, ctx);
    if (head || tail) after_thread_stores(ctx);
  }

 private:
  /// True when the box's innermost coordinate is a multiple of 16 bytes, as cp.async.bulk.tensor
  /// needs (the hardware raises an illegal-instruction error otherwise).
  template <class Box>
  static PORTER_DEVICE PORTER_FORCEINLINE bool inner_aligned(const coord<Box::rank>& at) {
    return (std::int64_t(at[Box::rank - 1]) * std::int64_t(sizeof(typename Box::element_type))) % 16 == 0;
  }
  /// PORTER_DEBUG=1 builds: trap with porter's message when `src` does not allow tma (every thread).
  template <class Box>
  static PORTER_DEVICE PORTER_FORCEINLINE void check_source_in_debug(const tiled_source<Box>& src) {
#if PORTER_DEBUG
    if (!src.supports(path_id::tma)) unsupported_source();
#else
    (void)src;
#endif
  }
  /// The address of `src`'s tensor map; traps unless it is a __grid_constant__ parameter's.
  template <class Box>
  static PORTER_DEVICE PORTER_FORCEINLINE const void* tensor_map_of(const tiled_source<Box>& src) {
    const void* tmap = src.tensor_map;
    if (!__isGridConstant(tmap))
      ptx::trap_with("tma path: the tiled_source must be a __grid_constant__ const kernel parameter, "
                     "passed by reference down to async_copy (a copy in local memory has no tensor map)");
    return tmap;
  }

  /// Elements [*lo, *hi) of the 1D box at `at` lie inside the tensor (0 <= lo <= hi <= the box).
  template <class Box>
  static PORTER_DEVICE PORTER_FORCEINLINE void inside_1d(const tiled_source<Box>& src, const coord<1>& at, std::int64_t* lo,
                                                         std::int64_t* hi) {
    constexpr std::int64_t B = Box::dim(0);
    std::int64_t l = -std::int64_t(at[0]), h = src.extent[0] - std::int64_t(at[0]);
    l = l < 0 ? 0 : (l > B ? B : l);
    h = h < l ? l : (h > B ? B : h);
    *lo = l;
    *hi = h;
  }

  /// What issue_tensor issues per piece of the box: a copy into this CTA, a copy into every CTA of
  /// a cluster mask, or an L2 prefetch (no destination, no barrier).
  enum class tensor_op { copy, multicast, prefetch };

  /// Thread 0's cp.async.bulk.tensor instructions for a 2D-5D box of `src` (tensor map `tmap`) at
  /// `at` (innermost coordinate 16-byte aligned): Op copy into `dst` completing on `bar`,
  /// multicast likewise into every CTA of `cta_mask` (.multicast::cluster), prefetch into L2
  /// (`dst`, `bar` and `cta_mask` unused). A box of more than 256 outer rows is issued in pieces of
  /// the source's tma_split_rows. H (copy and multicast): the L2 hint; none issues the unhinted forms.
  template <class Box, tensor_op Op, cache_hint H = cache_hint::none>
  static PORTER_DEVICE PORTER_FORCEINLINE void issue_tensor(typename Box::element_type* dst, const void* tmap, const tiled_source<Box>& src,
                                                            const coord<Box::rank>& at, std::uint64_t* bar, std::uint16_t cta_mask) {
    using T = typename Box::element_type;
    constexpr int R = Box::rank;
    // 16-byte elements travel as pairs of 8-byte elements (no 16-byte TMA data type).
    constexpr int inner_scale = sizeof(T) == 16 ? 2 : 1;
    int c[max_rank];
#pragma unroll
    for (int d = 0; d < R; ++d) c[d] = at[R - 1 - d];  // innermost first
    c[0] *= inner_scale;
    unsigned char* d = reinterpret_cast<unsigned char*>(dst);
    constexpr std::size_t slab = Box::bytes / std::size_t(Box::dim(0));  // bytes per index of dimension 0
    // A box of at most 256 outer rows is never split: one instruction, no loop, no load of the split.
    const int split = Box::dim(0) <= 256 ? Box::dim(0) : src.tma_split_rows;
    for (int r = 0; r < Box::dim(0); r += split) {
      const int outer = at[0] + r;
      void* to = d + std::size_t(r) * slab;
      if constexpr (Op == tensor_op::multicast && H != cache_hint::none) {
        const std::uint64_t pol = ptx::l2_policy<H>();
        if constexpr (R == 2) ptx::tensor_copy_g2s_multicast_hint_2d(to, tmap, bar, cta_mask, pol, c[0], outer);
        else if constexpr (R == 3) ptx::tensor_copy_g2s_multicast_hint_3d(to, tmap, bar, cta_mask, pol, c[0], c[1], outer);
        else if constexpr (R == 4) ptx::tensor_copy_g2s_multicast_hint_4d(to, tmap, bar, cta_mask, pol, c[0], c[1], c[2], outer);
        else ptx::tensor_copy_g2s_multicast_hint_5d(to, tmap, bar, cta_mask, pol, c[0], c[1], c[2], c[3], outer);
      } else if constexpr (Op == tensor_op::multicast) {
        if constexpr (R == 2) ptx::tensor_copy_g2s_multicast_2d(to, tmap, bar, cta_mask, c[0], outer);
        else if constexpr (R == 3) ptx::tensor_copy_g2s_multicast_3d(to, tmap, bar, cta_mask, c[0], c[1], outer);
        else if constexpr (R == 4) ptx::tensor_copy_g2s_multicast_4d(to, tmap, bar, cta_mask, c[0], c[1], c[2], outer);
        else ptx::tensor_copy_g2s_multicast_5d(to, tmap, bar, cta_mask, c[0], c[1], c[2], c[3], outer);
      } else if constexpr (Op == tensor_op::prefetch) {
        (void)to;
        if constexpr (R == 2) ptx::tensor_prefetch_l2_2d(tmap, c[0], outer);
        else if constexpr (R == 3) ptx::tensor_prefetch_l2_3d(tmap, c[0], c[1], outer);
        else if constexpr (R == 4) ptx::tensor_prefetch_l2_4d(tmap, c[0], c[1], c[2], outer);
        else ptx::tensor_prefetch_l2_5d(tmap, c[0], c[1], c[2], c[3], outer);
      } else if constexpr (H != cache_hint::none) {
        const std::uint64_t pol = ptx::l2_policy<H>();
        if constexpr (R == 2) ptx::tensor_copy_g2s_hint_2d(to, tmap, bar, pol, c[0], outer);
        else if constexpr (R == 3) ptx::tensor_copy_g2s_hint_3d(to, tmap, bar, pol, c[0], c[1], outer);
        else if constexpr (R == 4) ptx::tensor_copy_g2s_hint_4d(to, tmap, bar, pol, c[0], c[1], c[2], outer);
        else ptx::tensor_copy_g2s_hint_5d(to, tmap, bar, pol, c[0], c[1], c[2], c[3], outer);
      } else {
        if constexpr (R == 2) ptx::tensor_copy_g2s_2d(to, tmap, bar, c[0], outer);
        else if constexpr (R == 3) ptx::tensor_copy_g2s_3d(to, tmap, bar, c[0], c[1], outer);
        else if constexpr (R == 4) ptx::tensor_copy_g2s_4d(to, tmap, bar, c[0], c[1], c[2], outer);
        else ptx::tensor_copy_g2s_5d(to, tmap, bar, c[0], c[1], c[2], c[3], outer);
      }
    }
  }

  /// Trap with porter's message: the source does not allow tma (PORTER_DEBUG builds; every thread).
  [[noreturn]] static PORTER_DEVICE void unsupported_source() {
    detail::trap("async_copy on path tma: this source does not allow tma (see porter::explain on the host)");
    __builtin_unreachable();
  }
  // Bytes this path stores with plain st.shared (the thread-load fallbacks):
  //  * may be overwritten by a TMA copy in a later pass over the ring (async proxy): each writing
  //    thread orders its generic stores before later async-proxy accesses (PTX ISA 9.7.13.4,
  //    fence.proxy.async; CUDA C++ Programming Guide, TMA: "proxy fence ... before the bulk copy");
  //  * must be visible to the consumers, whom only the issuing thread's arrival on FULL releases
  //    (arrival count 1): a barrier of the copying set orders every thread's stores before that arrival.
  // Collective: the fallback is taken by all threads or none (it depends only on the arguments).
  // In a role pipeline (ctx.role_producers) no barrier: every producer thread arrives on FULL
  // itself, with release semantics, which publishes its own stores (porter/tma/role_protocol.hpp).
  static PORTER_DEVICE PORTER_FORCEINLINE void after_thread_stores(const detail::copy_context& ctx) {
    ptx::fence_proxy_async_shared_cta();
    if (!ctx.role_producers) __syncthreads();
  }
  // Before those stores: in a cluster-multicast ring only thread 0 has waited for the stage's
  // previous pass to be released (ctx.stores_need_barrier); a CTA barrier after that wait lets every
  // thread overwrite it. Returns the context with the flag cleared, so that the rest of the same
  // copy takes no second barrier. 1D boxes and byte ranges take it before thread 0's cp.async.bulk
  // too: that write needs none by the memory model (the refill waits for EMPTY, whose per-warp
  // arrivals follow __syncwarp), but compute-sanitizer racecheck does not follow that chain and
  // reported every byte of the body as a WAR hazard against the previous pass's reads
  // (Multicast/tma.box1d, H100, session 46; with the barrier, 0 over every suite in session 47);
  // such a copy is each CTA's own, not a multicast.
  // Collective, like the copy itself.
  static PORTER_DEVICE PORTER_FORCEINLINE detail::copy_context before_thread_stores(const detail::copy_context& ctx) {
    detail::copy_context c = ctx;
    if (c.stores_need_barrier) {
      __syncthreads();
      c.stores_need_barrier = false;
    }
    return c;
  }

 public:
#endif  // __CUDACC__
};

/// A CTA's place in a cluster-multicast ring on tma (porter/tma/protocol.hpp and
/// role_protocol.hpp, "CLUSTER MULTICAST"): its cluster rank, the cluster's size, and the CTA that
/// issues the current step's multicast copies, rank (pass x S + stage) mod size, kept as a counter
/// advanced once per acquire (no division). size 1 (a launch without clusters, or a ring built
/// without porter::cluster_multicast): every copy is the CTA's own.
struct multicast_group {
  unsigned rank = 0, size = 1, issuer = 0, next = 0;
#if defined(__CUDACC__)
  /// Read this CTA's rank and the cluster's size (%cluster_ctarank, %cluster_nctarank: sm_90; a
  /// cluster of one on older targets).
  PORTER_DEVICE PORTER_FORCEINLINE void init() {
    if constexpr (arch::has_clusters) {
      rank = ptx::cluster_ctarank();
      size = ptx::cluster_nctarank();
    }
  }
  /// Move to the next step's issuing CTA (called at every acquire of a cluster ring).
  PORTER_DEVICE PORTER_FORCEINLINE void advance() {
    issuer = next;
    next = next + 1 == size ? 0 : next + 1;
  }
  /// Copy a box that every CTA of the cluster copies with the same arguments: in a cluster, the
  /// issuer's .multicast::cluster copy to every CTA (tma_copy::copy_box_multicast); otherwise the
  /// CTA's own (tma_copy::copy_box).
  template <class Box, cache_hint H>
  PORTER_DEVICE PORTER_FORCEINLINE void copy_box(typename Box::element_type* dst, const tiled_source<Box>& src, const coord<Box::rank>& at,
                                                 const detail::copy_context& ctx) const {
    if (size > 1) tma_copy::copy_box_multicast<Box, H>(dst, src, at, ctx, rank, issuer, std::uint16_t((1u << size) - 1u));
    else tma_copy::copy_box<Box, H>(dst, src, at, ctx);
  }
#endif  // __CUDACC__
};

}  // namespace porter::backend
