// porter/destination.hpp — tiled destinations: a global tensor written in boxes from shared memory
// (host-built), and the reductions a store may perform.
//
// A tiled destination is a tiled source (porter/source.hpp) built over memory the kernel may write:
// the same layout rules, the same support report and explain(), the same tensor map. It is passed BY
// VALUE to the kernel as a `__grid_constant__ const` parameter, and porter::launch checks it like a
// source. porter/store.hpp writes through it.
//
// Element kinds. Stores move bytes; a reduction combines each element with the one in memory, so it
// must know what the bytes are. make_tiled_destination records the element kind of T
// (element_kind_of<T>) and encodes the tensor map with the matching data type (CUDA Driver API,
// CUtensorMapDataType: FLOAT32, INT32, UINT32, UINT64), which is what cp.reduce.async.bulk.tensor
// reduces in (PTX ISA 9.7.9.25.5.2).
#pragma once
#include <cstdint>
#include <type_traits>

#include "porter/box.hpp"
#include "porter/source.hpp"

namespace porter {

/// The element kind of T for reductions: f32 (float), s32 (std::int32_t), u32 (std::uint32_t),
/// u64 (unsigned long long / std::uint64_t); raw for every other type (stores only).
template <class T>
inline constexpr element_kind element_kind_of =
    std::is_same_v<T, float>                                                        ? element_kind::f32
    : std::is_same_v<T, std::int32_t>                                               ? element_kind::s32
    : std::is_same_v<T, std::uint32_t>                                              ? element_kind::u32
    : (std::is_same_v<T, unsigned long long> || std::is_same_v<T, std::uint64_t>) ? element_kind::u64
                                                                                    : element_kind::raw;

/// Reduction operators of porter::async_reduce (porter/store.hpp).
enum class reduce_op {
  add,  ///< dst = dst + v. Defined for f32, s32, u32, u64 elements.
  min,  ///< dst = min(dst, v). Defined for s32, u32 elements.
  max,  ///< dst = max(dst, v). Defined for s32, u32 elements.
};

/// Whether the hardware reduces elements of kind `k` with `op` on every path porter has
/// (tma: cp.reduce.async.bulk{.tensor}, PTX ISA 9.7.9.25.4.2 / 9.7.9.25.5.2; the other paths and AMD:
/// atomicAdd / atomicMin / atomicMax, CUDA C++ Programming Guide "Atomic Functions").
///
/// Exactness: integer reductions are exact whatever the order. An f32 add performs one IEEE-754
/// single-precision addition (round to nearest even) per element and reduction; several reductions
/// into one element in one launch happen in an unspecified order, so the sum may differ between runs
/// by rounding (bit-exact only when each element receives one reduction, as porter's tests check).
PORTER_HOST_DEVICE constexpr bool reducible(element_kind k, reduce_op op) {
  if (op == reduce_op::add) return k == element_kind::f32 || k == element_kind::s32 || k == element_kind::u32 || k == element_kind::u64;
  return k == element_kind::s32 || k == element_kind::u32;
}

/// A global tensor written in boxes of shape Box (stores and reductions: porter/store.hpp). A tiled
/// source over the same memory, so a kernel may also read it with async_copy. Trivially copyable;
/// pass by value as a `__grid_constant__ const` kernel parameter. Build it with
/// make_tiled_destination, never by hand.
template <class Box>
struct tiled_destination : tiled_source<Box> {
  /// The element (0, ..., 0), writable (make_tiled_destination was given a non-const pointer).
  PORTER_HOST_DEVICE typename Box::element_type* data() const { return const_cast<typename Box::element_type*>(this->ptr); }
};

/// True for porter::tiled_destination types (a kernel parameter porter::launch checks like a source).
template <class S> struct is_tiled_destination : std::false_type {};
template <class B> struct is_tiled_destination<tiled_destination<B>> : std::true_type {};

/// Build a tiled destination over a global tensor (host). Arguments, rules and errors as
/// make_tiled_source (porter/source.hpp): extents outermost first, each >= 1; strides of the outer
/// dimensions in elements (the innermost is 1); the tma path needs a 16-byte aligned pointer and
/// 16-byte multiple strides. The element kind of T is recorded for reductions (element_kind_of).
template <class Box>
tiled_destination<Box> make_tiled_destination(typename Box::element_type* ptr, const std::int64_t (&extents)[Box::rank],
                                              const std::int64_t (&strides)[Box::rank > 1 ? Box::rank - 1 : 1], Box = {},
                                              int device = -1) {
  tiled_destination<Box> d{};
  static_cast<tiled_source<Box>&>(d) = detail::build_tiled_source<Box>(ptr, extents, std::size_t(Box::rank), strides,
                                                                        std::size_t(Box::rank - 1), device,
                                                                        element_kind_of<typename Box::element_type>);
  return d;
}

/// Dense tensor overload: strides follow from the extents (row-major).
template <class Box>
tiled_destination<Box> make_tiled_destination(typename Box::element_type* ptr, const std::int64_t (&extents)[Box::rank], Box b = {},
                                              int device = -1) {
  std::int64_t strides[Box::rank > 1 ? Box::rank - 1 : 1] = {};
  std::int64_t s = 1;
  for (int i = Box::rank - 1; i >= 1; --i) { s *= extents[i]; strides[i - 1] = s; }
  return make_tiled_destination<Box>(ptr, extents, strides, b, device);
}

}  // namespace porter
