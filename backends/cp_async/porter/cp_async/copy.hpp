// porter/cp_async/copy.hpp — the cp_async lowering's copies (Ampere, sm_80+).
//
// Every thread issues cp.async chunks of W bytes, W = 16 (cp.async.cg), 8 or 4 (cp.async.ca),
// the widest the actual addresses allow. Out-of-bounds bytes are zero-filled by the src-size
// operand: every chunk is issued, with src-size 0..W, so there is no divergent branch around the
// copy. Addresses aligned below 4 bytes cannot use cp.async; those copies move with the staged
// lowering's plain loads (explain() says when a source guarantees less than 4 bytes).
// Every thread-load fallback calls detail::strict_fallback first: with PORTER_STRICT_PATHS=1 it
// traps instead (porter/mechanisms.hpp tells them on the host).
// L2 hints (porter/cache_hint.hpp, template parameter H of every copy): taken and not issued. The
// hinted cp.async (.L2::cache_hint with a createpolicy.fractional policy, PTX ISA 9.7.9.25.3) raised
// cudaErrorIllegalInstruction on the H200 (CUDA 13.0, driver 580) in two of four kernel shapes tried
// in session 25: the CacheHint device suite's multi-step kernel with the zero-filling form
// (src-size operand), and a one-step kernel whose whole chunks took the form without src-size while
// its edge chunks went unhinted; a one-step kernel with the src-size form on every chunk and
// straight-line probes of every form ran. In the failing probe's SASS the policy reaches the
// LDGSTS memory descriptor through "@!P1 R2UR UR6, R16": a move into a uniform register under the
// lane predicate that picks the hinted copy, inside divergent code; in the kernel that ran it is
// unpredicated and hoisted (bench/results/h200-2026-12-03-session25/probe_sass_excerpt.txt). A
// ptxas 13.0 code-generation fault is the likely cause; not proven. The hint also measured no gain
// where it ran (stream evict_first 0.956x against 0.997x unhinted; the wgmma GEMM's
// cp_async row 392 against 434 TFLOP/s at 4096^3), so the cp_async copies carry no cache policy.
// Completion is the protocol's (porter/cp_async/protocol.hpp): one cp.async group per stage, then
// cp.async.wait_group and a CTA barrier. The plain-load fallback below 4 bytes completes with the
// same barrier (its stores precede the barrier in each thread's program order).
// Source: PTX ISA 8.x 9.7.9.25.3 (cp.async), CUDA C++ Programming Guide "Asynchronous Data Copies".
#pragma once
#include <cstddef>
#include <cstdint>

#include "porter/box.hpp"
#include "porter/cache_hint.hpp"
#include "porter/detail/box_geometry.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/detail/trap.hpp"
#include "porter/ptx/cp_async.hpp"
#include "porter/ptx/mbarrier.hpp"
#include "porter/source.hpp"
#include "porter/staged/copy.hpp"

namespace porter::backend {

/// The cp_async copies. Same operation set as porter::backend::staged_copy.
struct cp_async_copy {
#if defined(__CUDACC__)
  /// Copy the box of `src` at `at` into `dst` (dense box layout, 128-byte aligned shared memory).
  /// Elements outside the tensor are zero-filled. Called by all threads of the CTA; the bytes are
  /// in shared memory once the protocol's wait (cp.async.wait_group, then a CTA barrier) returns.
  /// H: an L2 hint, taken and not issued (file comment).
  template <class Box, cache_hint H = cache_hint::none>
  static PORTER_DEVICE void copy_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    // The common case first, with one test: 16-byte chunks (the host's chunk_bits, the first
    // column and the box row all 16-byte aligned) of a box wholly inside the tensor (one unsigned
    // compare per dimension against tiled_source::interior_end). It needs no bounds, no zero fill
    // and no width ladder: per chunk one address (detail::interior_chunk: unsigned 32-bit indices,
    // one 32 x 64-bit multiply-add for a 2D box). A thread past the box's last chunk leaves at once (a 1 KiB box of 64
    // chunks in a CTA of 256 threads keeps 6 of its 8 warps out), and the first chunk is issued
    // before any loop test (one chunk per thread: sgemm's 8 x 128 boxes in 256 threads).
    // Everything else (edges, narrower chunks, the plain-load fallback below 4 bytes) goes through
    // general_box; all inline (an out-of-line call costs more registers through the call ABI than
    // the walkers do).
    if constexpr (Box::inner_bytes % 16 == 0) {
      constexpr unsigned total = unsigned(detail::box_chunks<Box, 16>);
      if (__builtin_expect(detail::box_chunk_bytes<Box>(src, at) == 16u && detail::box_inside<Box>(src, at), 1)) {
        unsigned k = ctx.thread;
        if (k >= total) return;
        unsigned char* d = reinterpret_cast<unsigned char*>(dst);
        if constexpr (Box::rank == 2 && total >= 1024) {
          // A 2D box whose CTA-wide step (nthreads chunks) is whole swizzle atoms (whole rows when
          // dense; detail::steps_by_constants): every chunk of this thread is in the same column and
          // lands at the same XOR, so the next chunk is a constant step_bytes further in shared
          // memory and step_bytes / inner_bytes rows further in the tensor (detail::first_stepped,
          // shared with the fixed-count loop below). Two adds per chunk instead of the row split,
          // the 64-bit multiply-add and the swizzle (porter-bench's bf16 GEMMs: 4 + 8 chunks of 16
          // bytes per thread per stage at 256 threads, 8 + 16 in the wgmma producer warpgroup's
          // 128; that GEMM on cp_async ran 1.10-1.15x faster on the H200).
          // Boxes of 16 KiB (1,024 chunks) or more only, a compile-time rule: below that a CTA
          // often holds a box with one chunk per thread, and there the stepped loop's setup and
          // test cost more than they save (H200, session 28: smallgemm's 64-chunk boxes in 256
          // threads 6% slower on cp_async; nvcc 13.0 keeps the loop's test after the one chunk even
          // when porter::cta_threads<N> fixes the count).
          const unsigned step_bytes = ctx.nthreads * 16u;
          if (detail::steps_by_constants<Box>(step_bytes)) {
            const detail::stepped_chunks c = detail::first_stepped<Box>(src, at, k, step_bytes);
            const unsigned char* s = c.src;
            for (std::uint32_t o = c.dst; k < total; k += ctx.nthreads, o += c.dst_step, s += c.src_step) issue<16>(d + o, s, 16);
            return;
          }
          if constexpr (detail::walks_wrapped<Box>) {
            // A dense box whose rows do not divide the CTA-wide step (the wmma port's skewed 128 x
            // 144 bf16 box: 18 chunks a row, 256 threads; a stencil's 34 x 136 fp32 box with its
            // halo): the wrapped walk (detail::first_wrapped), one compare and at most one more add
            // per chunk where the column wraps, instead of the row split (a division) and the 64-bit
            // multiply-add. The landing offset is the chunk's dense offset, step_bytes per step.
            // Measured (H100, session 47, three alternating runs of each build): the wmma port
            // (ports/public-bf16gemm) on cp_async 140.6 -> 144.9 TFLOP/s at one stage (+3.0%,
            // predicted +4-8%), 167.4 -> 175.7 at two (+5.0%); the stencils unchanged.
            constexpr unsigned per_row = unsigned(Box::inner_bytes / 16);
            const detail::wrapped_chunks c = detail::first_wrapped<Box>(src, at, k, ctx.nthreads);
            const unsigned char* s = c.src;
            unsigned col = c.col;
            for (std::uint32_t o = k * 16u; k < total; k += ctx.nthreads, o += step_bytes) {
              issue<16>(d + o, s, 16);
              s += c.src_step;
              col += c.col_step;
              if (col >= per_row) {
                col -= per_row;
                s += c.wrap;
              }
            }
            return;
          }
        }
        if (ctx.fixed_nthreads && (ctx.nthreads & (ctx.nthreads - 1u)) == 0u && (total & (ctx.nthreads - 1u)) == 0u) {
          // A power-of-two copying set, fixed at compile time (porter::cta_threads<N>, a role's
          // producers), that divides the box's chunks: every thread issues exactly total / nthreads
          // chunks (copy_context: thread < nthreads), so the loop needs no bound test and unrolls
          // completely; the bounded loop below is unrolled by 4 with a remainder and a
          // reconvergence point (BSSY/BSYNC) instead. sgemm's 16 x 128 fp32 boxes (512 chunks, 2
          // per thread at 256 threads) on cp_async: 41.7 -> 46.2 TFLOP/s, 0.95x -> 1.06x the
          // hand-written cp.async pipeline of the same tiling (H100, sessions 40 and 42). Only
          // with the count fixed: read from blockDim, the test ran in every copy and the loop,
          // unrolled for a run-time count, tripled the kernels' cp.async code (smallgemm's 12 ->
          // 40 static cp.async), and smallgemm on cp_async measured 2% slower (H100, session 42;
          // this gate gives untagged kernels the code they had before, not yet timed).
          const unsigned per = total >> (31 - __clz(ctx.nthreads));
          if constexpr (Box::rank == 2) {
            const unsigned step_bytes = ctx.nthreads * 16u;
            if (per > 1u && detail::steps_by_constants<Box>(step_bytes)) {
              // More than one chunk per thread and a CTA-wide step of whole swizzle atoms
              // (steps_by_constants): the stepped walk above without its bound test, unrolled
              // completely. The first chunk's address and landing offset once (first_stepped), then
              // two adds per further chunk instead of the row split, the 64-bit multiply-add and the
              // swizzle. sm_90 PTX: porter-bench's sgemm on cp_async (16 x 128 fp32 boxes at 256
              // threads, 4 KiB steps of 8 rows) takes 17 + 21 instructions for a K-step's two
              // interior box copies instead of 29 + 33; lower_roles2d's 32 producers (a 32 x 64
              // fp32 box, 16 chunks each) 59 instead of 185. Measured (H100, session 44, three
              // alternating runs of each build): sgemm 8192^3 on cp_async 46.51 -> 47.32 TFLOP/s,
              // +1.8% (predicted +0.5-1.5%), 1.066x -> 1.085x the hand-written cp.async pipeline;
              // 4096^3 x2 the same. One chunk per thread (lower_fixed2d's 8 x 128 box) keeps the
              // loop below and its PTX.
              const detail::stepped_chunks c = detail::first_stepped<Box>(src, at, k, step_bytes);
              const unsigned char* s = c.src;
              std::uint32_t o = c.dst;
#pragma unroll
              for (unsigned j = 0; j < per; ++j, o += c.dst_step, s += c.src_step) issue<16>(d + o, s, 16);
              return;
            }
          }
#pragma unroll
          for (unsigned j = 0; j < per; ++j, k += ctx.nthreads)
            issue<16>(d + detail::landing_offset<Box>(k * 16), detail::interior_chunk<Box, 16>(src, at, k), 16);
          return;
        }
        issue<16>(d + detail::landing_offset<Box>(k * 16), detail::interior_chunk<Box, 16>(src, at, k), 16);
        for (k += ctx.nthreads; k < total; k += ctx.nthreads)
          issue<16>(d + detail::landing_offset<Box>(k * 16), detail::interior_chunk<Box, 16>(src, at, k), 16);
        return;
      }
    }
    general_box<Box>(dst, src, at, ctx);
  }

  /// Generic writes to a stage before its refill: nothing to do (cp.async writes through the generic
  /// proxy; the CTA barrier before every refill orders them).
  static PORTER_DEVICE PORTER_FORCEINLINE void after_generic_writes() {}

  /// Before a consumer reads a landed stage through the async proxy (wgmma's shared-memory
  /// operands): fence.proxy.async.shared::cta in every reading thread, after its wait. cp.async
  /// writes shared memory as weak generic-proxy stores of the issuing thread (PTX ISA 9.7.9.25.3),
  /// and a generic write read by the async proxy needs a proxy fence between them (PTX ISA 9.7.13.4,
  /// "wgmma.fence": "an async proxy fence ... for shared memory written by other proxies"). The
  /// producers cannot issue it: with cp.async.mbarrier.arrive.noinc they never see their copies
  /// complete. sm_90 only (below it there is no async proxy and the fence compiles to nothing).
  static PORTER_DEVICE PORTER_FORCEINLINE void before_async_proxy_reads() { ptx::fence_proxy_async_shared_cta(); }

  /// Copy `bytes` bytes from global `src` to shared `dst`: cp.async chunks of the widest width
  /// both addresses allow (>= 4), the remaining tail of fewer than W bytes with plain loads.
  /// Exactly [dst, dst + bytes) is written. Called by all threads of the CTA. H: as copy_box.
  template <cache_hint H = cache_hint::none>
  static PORTER_DEVICE void copy_bytes(void* dst, const void* src, std::size_t bytes,
                                       const detail::copy_context& ctx) {
    const unsigned w = detail::widest_access(reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst));
    std::size_t done = 0;
    switch (w) {
      case 16: done = walk_bytes<16>(dst, src, bytes, ctx); break;
      case 8: done = walk_bytes<8>(dst, src, bytes, ctx); break;
      case 4: done = walk_bytes<4>(dst, src, bytes, ctx); break;
      default: break;
    }
    if (done < bytes) {
      detail::strict_fallback("strict paths: cp_async byte range with bytes below a whole 4-byte aligned chunk would move them with thread loads", ctx.thread);
      staged_copy::copy_bytes_batched<1>(static_cast<unsigned char*>(dst) + done, static_cast<const unsigned char*>(src) + done,
                         bytes - done, ctx);
    }
  }

 private:
  template <unsigned W>
  static PORTER_DEVICE PORTER_FORCEINLINE void issue(void* dst, const void* src, unsigned valid) {
    if constexpr (W == 16) ptx::cp_async_cg_16(dst, src, valid);
    else if constexpr (W == 8) ptx::cp_async_ca_8(dst, src, valid);
    else ptx::cp_async_ca_4(dst, src, valid);
  }

  /// Every box the fast path of copy_box does not take: the widest chunk the addresses allow, each
  /// chunk bounds-checked and zero-filled (detail::locate_chunk), or plain loads below 4 bytes.
  template <class Box>
  static PORTER_DEVICE void general_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                        const coord<Box::rank>& at, const detail::copy_context& ctx) {
    switch (detail::box_chunk_bytes<Box>(src, at)) {
      case 16: walk_box<Box, 16>(dst, src, at, ctx); break;
      case 8: walk_box<Box, 8>(dst, src, at, ctx); break;
      case 4: walk_box<Box, 4>(dst, src, at, ctx); break;
      default:
        detail::strict_fallback("strict paths: cp_async box whose rows are less than 4-byte aligned would move with thread loads", ctx.thread);
        staged_copy::copy_box<Box, cache_hint::none, 1>(dst, src, at, ctx);
        break;
    }
  }

  template <class Box, unsigned W>
  static PORTER_DEVICE void walk_box(typename Box::element_type* dst, const tiled_source<Box>& src,
                                     const coord<Box::rank>& at, const detail::copy_context& ctx) {
    if constexpr (Box::inner_bytes % W == 0) {  // other widths are never chosen: W divides the box row
      constexpr std::size_t total = detail::box_chunks<Box, W>;
      unsigned char* d = reinterpret_cast<unsigned char*>(dst);
      for (std::size_t k = ctx.thread; k < total; k += ctx.nthreads) {
        const detail::chunk_source cs = detail::locate_chunk<Box, W>(src, at, k);
        issue<W>(d + cs.dst_offset, cs.src, cs.valid);
      }
    }
  }

  template <unsigned W>
  static PORTER_DEVICE std::size_t walk_bytes(void* dst, const void* src, std::size_t bytes,
                                              const detail::copy_context& ctx) {
    const std::size_t full = bytes / W;
    unsigned char* d = static_cast<unsigned char*>(dst);
    const unsigned char* s = static_cast<const unsigned char*>(src);
    for (std::size_t k = ctx.thread; k < full; k += ctx.nthreads) issue<W>(d + k * W, s + k * W, W);
    return full * W;
  }
#endif  // __CUDACC__
};

}  // namespace porter::backend
