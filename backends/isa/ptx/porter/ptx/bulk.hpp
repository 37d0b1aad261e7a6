// porter/ptx/bulk.hpp — Hopper bulk and bulk-tensor copy wrappers (global -> shared::cta),
// completing on an mbarrier with transaction bytes. One instruction variant per function.
//
// Source: PTX ISA 8.x, 9.7.9.25.4.1 "cp.async.bulk" and 9.7.9.25.5.1 "cp.async.bulk.tensor"
// (both sm_90). The destination uses the .shared::cluster window; a CTA's own shared::cta address
// is valid there. Coordinates of tensor copies are signed 32-bit, innermost dimension FIRST;
// out-of-bounds elements are filled with zeros (tensor map oobFill NONE).
#pragma once
#include <cstdint>

#include "porter/ptx/common.hpp"

namespace porter::ptx {
#if defined(__CUDACC__)

/// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [bar];
/// dst, src 16-byte aligned; size a multiple of 16.
PORTER_DEVICE PORTER_FORCEINLINE void bulk_copy_g2s(void* dst, const void* src, std::uint32_t size,
                                                    std::uint64_t* bar) {
#if PORTER_ARCH_HAS_TMA
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem_addr(dst)),
               "l"(src), "r"(size), "r"(smem_addr(bar))
               : "memory");
#else
  trap_with("cp.async.bulk needs sm_90 or newer");
#endif
}

/// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [dst], [src], size, [bar], policy;
/// As bulk_copy_g2s, the lines read taking `policy`'s L2 eviction priority (ptx::l2_policy).
PORTER_DEVICE PORTER_FORCEINLINE void bulk_copy_g2s_hint(void* dst, const void* src, std::uint32_t size, std::uint64_t* bar,
                                                         std::uint64_t policy) {
#if PORTER_ARCH_HAS_TMA
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(
                   smem_addr(dst)),
               "l"(src), "r"(size), "r"(smem_addr(bar)), "l"(policy)
               : "memory");
#else
  trap_with("cp.async.bulk needs sm_90 or newer");
#endif
}

#if PORTER_ARCH_HAS_TMA
#  define PORTER_PTX_TENSOR_G2S(DIM, COORDS, ...)                                                          \
    asm volatile("cp.async.bulk.tensor." #DIM "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" \
                 " [%0], [%1, {" COORDS "}], [%2];" ::"r"(smem_addr(dst)),                                  \
                 "l"(tmap), "r"(smem_addr(bar)), __VA_ARGS__                                               \
                 : "memory")
#else
#  define PORTER_PTX_TENSOR_G2S(DIM, COORDS, ...) trap_with("cp.async.bulk.tensor needs sm_90 or newer")
#endif

/// cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [tmap, {c0, c1}], [bar];
/// dst 128-byte aligned; tmap the generic address of a __grid_constant__ CUtensorMap; coordinates
/// innermost first; c0 x element bytes a multiple of 16. 1D boxes use bulk_copy_g2s instead.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_2d(void* dst, const void* tmap, std::uint64_t* bar, int c0,
                                                         int c1) {
  PORTER_PTX_TENSOR_G2S(2, "%3, %4", "r"(c0), "r"(c1));
}
/// As tensor_copy_g2s_2d, 3D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_3d(void* dst, const void* tmap, std::uint64_t* bar, int c0,
                                                         int c1, int c2) {
  PORTER_PTX_TENSOR_G2S(3, "%3, %4, %5", "r"(c0), "r"(c1), "r"(c2));
}
/// As tensor_copy_g2s_2d, 4D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_4d(void* dst, const void* tmap, std::uint64_t* bar, int c0,
                                                         int c1, int c2, int c3) {
  PORTER_PTX_TENSOR_G2S(4, "%3, %4, %5, %6", "r"(c0), "r"(c1), "r"(c2), "r"(c3));
}
/// As tensor_copy_g2s_2d, 5D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_5d(void* dst, const void* tmap, std::uint64_t* bar, int c0,
                                                         int c1, int c2, int c3, int c4) {
  PORTER_PTX_TENSOR_G2S(5, "%3, %4, %5, %6, %7", "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4));
}
#undef PORTER_PTX_TENSOR_G2S

// Hinted forms (.L2::cache_hint, the policy last): as tensor_copy_g2s_{2..5}d, the lines read
// taking `policy`'s L2 eviction priority (ptx::l2_policy). PTX ISA 9.7.9.25.5.1, sm_90.
#if PORTER_ARCH_HAS_TMA
#  define PORTER_PTX_TENSOR_G2S_HINT(DIM, COORDS, ...)                                                                  \
    asm volatile("cp.async.bulk.tensor." #DIM "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint" \
                 " [%0], [%1, {" COORDS "}], [%2], %3;" ::"r"(smem_addr(dst)),                                            \
                 "l"(tmap), "r"(smem_addr(bar)), "l"(policy), __VA_ARGS__                                                 \
                 : "memory")
#else
#  define PORTER_PTX_TENSOR_G2S_HINT(DIM, COORDS, ...) trap_with("cp.async.bulk.tensor needs sm_90 or newer")
#endif
/// cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
///   [dst], [tmap, {c0, c1}], [bar], policy;
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_hint_2d(void* dst, const void* tmap, std::uint64_t* bar, std::uint64_t policy,
                                                              int c0, int c1) {
  PORTER_PTX_TENSOR_G2S_HINT(2, "%4, %5", "r"(c0), "r"(c1));
}
/// As tensor_copy_g2s_hint_2d, 3D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_hint_3d(void* dst, const void* tmap, std::uint64_t* bar, std::uint64_t policy,
                                                              int c0, int c1, int c2) {
  PORTER_PTX_TENSOR_G2S_HINT(3, "%4, %5, %6", "r"(c0), "r"(c1), "r"(c2));
}
/// As tensor_copy_g2s_hint_2d, 4D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_hint_4d(void* dst, const void* tmap, std::uint64_t* bar, std::uint64_t policy,
                                                              int c0, int c1, int c2, int c3) {
  PORTER_PTX_TENSOR_G2S_HINT(4, "%4, %5, %6, %7", "r"(c0), "r"(c1), "r"(c2), "r"(c3));
}
/// As tensor_copy_g2s_hint_2d, 5D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_hint_5d(void* dst, const void* tmap, std::uint64_t* bar, std::uint64_t policy,
                                                              int c0, int c1, int c2, int c3, int c4) {
  PORTER_PTX_TENSOR_G2S_HINT(5, "%4, %5, %6, %7, %8", "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4));
}
#undef PORTER_PTX_TENSOR_G2S_HINT

// Multicast forms: the box lands at the same shared::cta offset in every CTA of the cluster whose
// bit is set in `cta_mask` (bit i: %cluster_ctarank i), and each destination CTA's mbarrier at
// `bar`'s offset receives the box's bytes as complete_tx. Source: PTX ISA 8.x 9.7.9.25.5.1
// (cp.async.bulk.tensor, .multicast::cluster, sm_90; ctaMask is 16 bits).
#if PORTER_ARCH_HAS_TMA
#  define PORTER_PTX_TENSOR_G2S_MC(DIM, COORDS, ...)                                                                \
    asm volatile("cp.async.bulk.tensor." #DIM "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster" \
                 " [%0], [%1, {" COORDS "}], [%2], %3;" ::"r"(smem_addr(dst)),                                        \
                 "l"(tmap), "r"(smem_addr(bar)), "h"(cta_mask), __VA_ARGS__                                           \
                 : "memory")
#else
#  define PORTER_PTX_TENSOR_G2S_MC(DIM, COORDS, ...) trap_with("cp.async.bulk.tensor.multicast::cluster needs sm_90 or newer")
#endif

/// cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
///   [dst], [tmap, {c0, c1}], [bar], cta_mask;
/// As tensor_copy_g2s_2d, landing in every CTA of `cta_mask` (see above). Every destination CTA
/// must have its mbarrier at `bar`'s offset in the phase the bytes belong to.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_multicast_2d(void* dst, const void* tmap, std::uint64_t* bar,
                                                                   std::uint16_t cta_mask, int c0, int c1) {
  PORTER_PTX_TENSOR_G2S_MC(2, "%4, %5", "r"(c0), "r"(c1));
}
/// As tensor_copy_g2s_multicast_2d, 3D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_multicast_3d(void* dst, const void* tmap, std::uint64_t* bar,
                                                                   std::uint16_t cta_mask, int c0, int c1, int c2) {
  PORTER_PTX_TENSOR_G2S_MC(3, "%4, %5, %6", "r"(c0), "r"(c1), "r"(c2));
}
/// As tensor_copy_g2s_multicast_2d, 4D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_multicast_4d(void* dst, const void* tmap, std::uint64_t* bar,
                                                                   std::uint16_t cta_mask, int c0, int c1, int c2, int c3) {
  PORTER_PTX_TENSOR_G2S_MC(4, "%4, %5, %6, %7", "r"(c0), "r"(c1), "r"(c2), "r"(c3));
}
/// As tensor_copy_g2s_multicast_2d, 5D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_multicast_5d(void* dst, const void* tmap, std::uint64_t* bar,
                                                                   std::uint16_t cta_mask, int c0, int c1, int c2, int c3,
                                                                   int c4) {
  PORTER_PTX_TENSOR_G2S_MC(5, "%4, %5, %6, %7, %8", "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4));
}
#undef PORTER_PTX_TENSOR_G2S_MC

/// Hinted multicast forms: ...multicast::cluster.L2::cache_hint [dst], [tmap, {...}], [bar], cta_mask, policy;
/// As tensor_copy_g2s_multicast_{2..5}d, the lines read taking `policy`'s L2 eviction priority.
#if PORTER_ARCH_HAS_TMA
#  define PORTER_PTX_TENSOR_G2S_MC_HINT(DIM, COORDS, ...)                                                                 \
    asm volatile("cp.async.bulk.tensor." #DIM "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster" \
                 ".L2::cache_hint [%0], [%1, {" COORDS "}], [%2], %3, %4;" ::"r"(smem_addr(dst)),                            \
                 "l"(tmap), "r"(smem_addr(bar)), "h"(cta_mask), "l"(policy), __VA_ARGS__                                     \
                 : "memory")
#else
#  define PORTER_PTX_TENSOR_G2S_MC_HINT(DIM, COORDS, ...) trap_with("cp.async.bulk.tensor.multicast::cluster needs sm_90 or newer")
#endif
/// ...2d...multicast::cluster.L2::cache_hint [dst], [tmap, {c0, c1}], [bar], cta_mask, policy;
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_multicast_hint_2d(void* dst, const void* tmap, std::uint64_t* bar,
                                                                        std::uint16_t cta_mask, std::uint64_t policy, int c0, int c1) {
  PORTER_PTX_TENSOR_G2S_MC_HINT(2, "%5, %6", "r"(c0), "r"(c1));
}
/// As tensor_copy_g2s_multicast_hint_2d, 3D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_multicast_hint_3d(void* dst, const void* tmap, std::uint64_t* bar,
                                                                        std::uint16_t cta_mask, std::uint64_t policy, int c0, int c1,
                                                                        int c2) {
  PORTER_PTX_TENSOR_G2S_MC_HINT(3, "%5, %6, %7", "r"(c0), "r"(c1), "r"(c2));
}
/// As tensor_copy_g2s_multicast_hint_2d, 4D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_multicast_hint_4d(void* dst, const void* tmap, std::uint64_t* bar,
                                                                        std::uint16_t cta_mask, std::uint64_t policy, int c0, int c1,
                                                                        int c2, int c3) {
  PORTER_PTX_TENSOR_G2S_MC_HINT(4, "%5, %6, %7, %8", "r"(c0), "r"(c1), "r"(c2), "r"(c3));
}
/// As tensor_copy_g2s_multicast_hint_2d, 5D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_copy_g2s_multicast_hint_5d(void* dst, const void* tmap, std::uint64_t* bar,
                                                                        std::uint16_t cta_mask, std::uint64_t policy, int c0, int c1,
                                                                        int c2, int c3, int c4) {
  PORTER_PTX_TENSOR_G2S_MC_HINT(5, "%5, %6, %7, %8, %9", "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4));
}
#undef PORTER_PTX_TENSOR_G2S_MC_HINT

// L2 prefetches: bring a box (through its tensor map) or a byte range into L2, completing on
// nothing and writing no shared memory. Elements outside the tensor are not fetched. Source:
// PTX ISA 8.x 9.7.9.25.5.3 (cp.async.bulk.prefetch.tensor) and 9.7.9.25.4.3
// (cp.async.bulk.prefetch), sm_90.
#if PORTER_ARCH_HAS_TMA
#  define PORTER_PTX_TENSOR_PREFETCH(DIM, COORDS, ...)                                                \
    asm volatile("cp.async.bulk.prefetch.tensor." #DIM "d.L2.global.tile [%0, {" COORDS "}];" ::"l"(tmap), \
                 __VA_ARGS__                                                                         \
                 : "memory")
#else
#  define PORTER_PTX_TENSOR_PREFETCH(DIM, COORDS, ...) trap_with("cp.async.bulk.prefetch.tensor needs sm_90 or newer")
#endif
/// cp.async.bulk.prefetch.tensor.2d.L2.global.tile [tmap, {c0, c1}];   coordinates innermost first.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_prefetch_l2_2d(const void* tmap, int c0, int c1) {
  PORTER_PTX_TENSOR_PREFETCH(2, "%1, %2", "r"(c0), "r"(c1));
}
/// As tensor_prefetch_l2_2d, 3D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_prefetch_l2_3d(const void* tmap, int c0, int c1, int c2) {
  PORTER_PTX_TENSOR_PREFETCH(3, "%1, %2, %3", "r"(c0), "r"(c1), "r"(c2));
}
/// As tensor_prefetch_l2_2d, 4D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_prefetch_l2_4d(const void* tmap, int c0, int c1, int c2, int c3) {
  PORTER_PTX_TENSOR_PREFETCH(4, "%1, %2, %3, %4", "r"(c0), "r"(c1), "r"(c2), "r"(c3));
}
/// As tensor_prefetch_l2_2d, 5D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_prefetch_l2_5d(const void* tmap, int c0, int c1, int c2, int c3, int c4) {
  PORTER_PTX_TENSOR_PREFETCH(5, "%1, %2, %3, %4, %5", "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4));
}
#undef PORTER_PTX_TENSOR_PREFETCH

/// cp.async.bulk.prefetch.L2.global [src], size;   src 16-byte aligned, size a multiple of 16.
PORTER_DEVICE PORTER_FORCEINLINE void bulk_prefetch_l2(const void* src, std::uint32_t size) {
#if PORTER_ARCH_HAS_TMA
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(size) : "memory");
#else
  trap_with("cp.async.bulk.prefetch needs sm_90 or newer");
#endif
}

#endif  // __CUDACC__
}  // namespace porter::ptx
