// porter/ptx/bulk_store.hpp — Hopper bulk and bulk-tensor stores and reductions (shared::cta ->
// global), completing through bulk async-groups. One instruction variant per function.
//
// Source: PTX ISA 8.x, 9.7.9.25.4.1 "cp.async.bulk" (shared::cta -> global, .bulk_group),
// 9.7.9.25.4.2 "cp.reduce.async.bulk", 9.7.9.25.5.1 "cp.async.bulk.tensor" (global destination),
// 9.7.9.25.5.2 "cp.reduce.async.bulk.tensor", 9.7.9.25.6 "cp.async.bulk.commit_group" and
// "cp.async.bulk.wait_group" (all sm_90). A bulk store reads shared memory through the async
// proxy: generic-proxy writes to the source must be ordered before it by fence.proxy.async
// (porter/ptx/mbarrier.hpp) in each writing thread, then a CTA barrier. Tensor stores write only the
// elements inside the tensor map's bounds. Coordinates are signed 32-bit, innermost FIRST. The
// element type of a tensor reduction is the tensor map's data type.
#pragma once
#include <cstdint>

#include "porter/ptx/common.hpp"

namespace porter::ptx {
#if defined(__CUDACC__)

#if PORTER_ARCH_HAS_TMA
#  define PORTER_PTX_SM90(...) __VA_ARGS__
#else
#  define PORTER_PTX_SM90(...) trap_with("bulk stores need sm_90 or newer")
#endif

/// cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size;
/// dst (global) and src (shared) 16-byte aligned; size a multiple of 16.
PORTER_DEVICE PORTER_FORCEINLINE void bulk_store_s2g(void* dst, const void* src, std::uint32_t size) {
  PORTER_PTX_SM90(asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_addr(src)),
                               "r"(size)
                               : "memory"));
}

/// cp.async.bulk.commit_group; — closes this thread's bulk async-group of stores.
PORTER_DEVICE PORTER_FORCEINLINE void bulk_commit_group() { PORTER_PTX_SM90(asm volatile("cp.async.bulk.commit_group;" ::: "memory")); }

/// cp.async.bulk.wait_group.read N; — every bulk group of this thread but the newest N has finished
/// READING its shared-memory source (the source may be overwritten).
template <int N>
PORTER_DEVICE PORTER_FORCEINLINE void bulk_wait_group_read() {
  PORTER_PTX_SM90(asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory"));
}

/// cp.async.bulk.wait_group N; — every bulk group of this thread but the newest N is complete:
/// its global writes are performed and visible to this thread.
template <int N>
PORTER_DEVICE PORTER_FORCEINLINE void bulk_wait_group() {
  PORTER_PTX_SM90(asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory"));
}

// ---- tensor stores ------------------------------------------------------------------------------

#define PORTER_PTX_TENSOR_S2G(OP, DIM, COORDS, ...)                                                                   \
  PORTER_PTX_SM90(asm volatile(OP "." #DIM "d.global.shared::cta" SUFFIX ".bulk_group [%0, {" COORDS "}], [%1];" ::"l"(tmap), \
                               "r"(smem_addr(src)), __VA_ARGS__                                                       \
                               : "memory"))

#define SUFFIX ""
/// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tmap, {c0, c1}], [src];
/// src 128-byte aligned (its swizzle atom when the tensor map swizzles); tmap the generic address
/// of a __grid_constant__ CUtensorMap; c0 x element bytes a multiple of 16.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_store_s2g_2d(const void* tmap, const void* src, int c0, int c1) {
  PORTER_PTX_TENSOR_S2G("cp.async.bulk.tensor", 2, "%2, %3", "r"(c0), "r"(c1));
}
/// As tensor_store_s2g_2d, 3D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_store_s2g_3d(const void* tmap, const void* src, int c0, int c1, int c2) {
  PORTER_PTX_TENSOR_S2G("cp.async.bulk.tensor", 3, "%2, %3, %4", "r"(c0), "r"(c1), "r"(c2));
}
/// As tensor_store_s2g_2d, 4D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_store_s2g_4d(const void* tmap, const void* src, int c0, int c1, int c2, int c3) {
  PORTER_PTX_TENSOR_S2G("cp.async.bulk.tensor", 4, "%2, %3, %4, %5", "r"(c0), "r"(c1), "r"(c2), "r"(c3));
}
/// As tensor_store_s2g_2d, 5D.
PORTER_DEVICE PORTER_FORCEINLINE void tensor_store_s2g_5d(const void* tmap, const void* src, int c0, int c1, int c2, int c3, int c4) {
  PORTER_PTX_TENSOR_S2G("cp.async.bulk.tensor", 5, "%2, %3, %4, %5, %6", "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4));
}
#undef SUFFIX

// ---- tensor reductions: cp.reduce.async.bulk.tensor.Nd.global.shared::cta.<op>.bulk_group ---------

/// The reduction operators porter lowers (PTX .redOp): add, min, max.
enum class red_op { add, min, max };

#define PORTER_PTX_TENSOR_RED(OPNAME)                                                                                \
  template <int R>                                                                                                   \
  PORTER_DEVICE PORTER_FORCEINLINE void tensor_reduce_##OPNAME##_s2g(const void* tmap, const void* src, const int (&c)[5]) { \
    if constexpr (R == 2)                                                                                            \
      PORTER_PTX_TENSOR_S2G("cp.reduce.async.bulk.tensor", 2, "%2, %3", "r"(c[0]), "r"(c[1]));                       \
    else if constexpr (R == 3)                                                                                       \
      PORTER_PTX_TENSOR_S2G("cp.reduce.async.bulk.tensor", 3, "%2, %3, %4", "r"(c[0]), "r"(c[1]), "r"(c[2]));        \
    else if constexpr (R == 4)                                                                                       \
      PORTER_PTX_TENSOR_S2G("cp.reduce.async.bulk.tensor", 4, "%2, %3, %4, %5", "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])); \
    else                                                                                                             \
      PORTER_PTX_TENSOR_S2G("cp.reduce.async.bulk.tensor", 5, "%2, %3, %4, %5, %6", "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), \
                            "r"(c[4]));                                                                              \
  }

/// cp.reduce.async.bulk.tensor.Rd.global.shared::cta.add.bulk_group [tmap, {c...}], [src]; (R = 2..5;
/// element type: the tensor map's). Also _min_ and _max_.
#define SUFFIX ".add"
PORTER_PTX_TENSOR_RED(add)
#undef SUFFIX
#define SUFFIX ".min"
PORTER_PTX_TENSOR_RED(min)
#undef SUFFIX
#define SUFFIX ".max"
PORTER_PTX_TENSOR_RED(max)
#undef SUFFIX
#undef PORTER_PTX_TENSOR_RED
#undef PORTER_PTX_TENSOR_S2G

/// cp.reduce.async.bulk[.tensor] with operator `Op`, R = 2..5 (coordinates innermost first).
template <red_op Op, int R>
PORTER_DEVICE PORTER_FORCEINLINE void tensor_reduce_s2g(const void* tmap, const void* src, const int (&c)[5]) {
  if constexpr (Op == red_op::add) tensor_reduce_add_s2g<R>(tmap, src, c);
  else if constexpr (Op == red_op::min) tensor_reduce_min_s2g<R>(tmap, src, c);
  else tensor_reduce_max_s2g<R>(tmap, src, c);
}

// ---- byte-range reductions: cp.reduce.async.bulk.global.shared::cta.bulk_group.<op>.<type> ---------

#define PORTER_PTX_BULK_RED(OP, TYPE)                                                                          \
  PORTER_PTX_SM90(asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group." OP "." TYPE " [%0], [%1], %2;" ::"l"(dst), \
                               "r"(smem_addr(src)), "r"(size)                                                  \
                               : "memory"))

/// The element types of the byte-range reductions porter lowers (PTX .type).
enum class red_type { f32, s32, u32, u64 };

/// cp.reduce.async.bulk.global.shared::cta.bulk_group.<op>.<type> [dst], [src], size; dst, src
/// 16-byte aligned, size a multiple of 16. add: f32, s32, u32, u64; min, max: s32, u32.
template <red_op Op, red_type Ty>
PORTER_DEVICE PORTER_FORCEINLINE void bulk_reduce_s2g(void* dst, const void* src, std::uint32_t size) {
  static_assert(Op == red_op::add || Ty == red_type::s32 || Ty == red_type::u32, "porter::ptx: min and max are lowered for s32 and u32");
  if constexpr (Op == red_op::add) {
    if constexpr (Ty == red_type::f32) PORTER_PTX_BULK_RED("add", "f32");
    else if constexpr (Ty == red_type::s32) PORTER_PTX_BULK_RED("add", "s32");
    else if constexpr (Ty == red_type::u32) PORTER_PTX_BULK_RED("add", "u32");
    else PORTER_PTX_BULK_RED("add", "u64");
  } else if constexpr (Op == red_op::min) {
    if constexpr (Ty == red_type::s32) PORTER_PTX_BULK_RED("min", "s32");
    else PORTER_PTX_BULK_RED("min", "u32");
  } else {
    if constexpr (Ty == red_type::s32) PORTER_PTX_BULK_RED("max", "s32");
    else PORTER_PTX_BULK_RED("max", "u32");
  }
}
#undef PORTER_PTX_BULK_RED
#undef PORTER_PTX_SM90

#endif  // __CUDACC__
}  // namespace porter::ptx
