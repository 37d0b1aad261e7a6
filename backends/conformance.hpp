// backends/conformance.hpp — compile-time check that a backend offers staged's operations with exactly staged's signatures.
//
// Every lowering in porter::backend (tma, cp_async, staged, hip) offers the same operations with the
// same signatures, so the neutral API (porter/async_copy.hpp) can call any of them. This header turns
// that rule into a compile error instead of a convention (STYLE.md, "Mirrored backends"):
//
//   static_assert(porter::backend::check_conformance<porter::backend::tma>());
//
// A backend B conforms when it
//   * is an empty, trivially default-constructible struct (the neutral API passes `B{}` by value);
//   * names a concrete path tag: `using path = porter::path::tma` (cp_async, staged; not automatic);
//   * has `template <class Box> static void copy_box(typename Box::element_type* dst,
//       const tiled_source<Box>& src, const coord<Box::rank>& at, const detail::copy_context& ctx)`,
//     the same type as staged's for boxes of every rank (1..5) and element size (1..16 B) below;
//   * has `static void copy_bytes(void* dst, const void* src, std::size_t bytes,
//       const detail::copy_context& ctx)`, the same type as staged's.
// Staged itself is also held to these spelled-out signatures, so the reference cannot drift either.
// A mismatch (say `void*` where staged has `const void*`, a missing `static`, an added `noexcept`)
// fails with a sentence naming the operation; the compiler's instantiation note names the backend.
//
// Device compilers only (nvcc, hipcc): backend operations exist only where __device__ is understood.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "porter/box.hpp"
#include "porter/detail/copy_context.hpp"
#include "porter/path.hpp"
#include "porter/source.hpp"
#include "porter/staged/copy.hpp"

namespace porter::backend {
namespace conformance_detail {

/// B::path, or void when B has none.
template <class B, class = void> struct path_of { using type = void; };
template <class B> struct path_of<B, std::void_t<typename B::path>> { using type = typename B::path; };

/// The type of &B::copy_box<Box>, or void when there is no such (unambiguous) member.
template <class B, class Box, class = void> struct copy_box_of { using type = void; };
template <class B, class Box>
struct copy_box_of<B, Box, std::void_t<decltype(&B::template copy_box<Box>)>> {
  using type = decltype(&B::template copy_box<Box>);
};

/// The type of &B::copy_bytes, or void when there is no such (unambiguous) member.
template <class B, class = void> struct copy_bytes_of { using type = void; };
template <class B> struct copy_bytes_of<B, std::void_t<decltype(&B::copy_bytes)>> {
  using type = decltype(&B::copy_bytes);
};

/// The signatures every backend has (DESIGN.md, "Architecture").
template <class Box>
using copy_box_signature = void (*)(typename Box::element_type*, const tiled_source<Box>&, const coord<Box::rank>&,
                                    const porter::detail::copy_context&);
using copy_bytes_signature = void (*)(void*, const void*, std::size_t, const porter::detail::copy_context&);

template <class B, class Box>
inline constexpr bool copy_box_matches =
    std::is_same_v<typename copy_box_of<B, Box>::type, typename copy_box_of<staged, Box>::type> &&
    std::is_same_v<typename copy_box_of<staged, Box>::type, copy_box_signature<Box>>;

/// Boxes of every rank and element size the API allows: the signatures must agree for all of them.
template <class B>
inline constexpr bool copy_box_matches_all =
    copy_box_matches<B, box<float, 256>> && copy_box_matches<B, box<float, 32, 64>> &&
    copy_box_matches<B, box<unsigned char, 4, 16, 32>> && copy_box_matches<B, box<std::uint16_t, 2, 3, 8, 16>> &&
    copy_box_matches<B, box<double, 2, 2, 2, 2, 2>> && copy_box_matches<B, box<porter::detail::vec_t<16>, 8, 8>>;

}  // namespace conformance_detail

/// True when backend B conforms (see the file comment); otherwise compilation fails with a sentence.
/// Use as `static_assert(porter::backend::check_conformance<B>());`.
template <class B>
constexpr bool check_conformance() {
  namespace cd = conformance_detail;
  using P = typename cd::path_of<B>::type;
  static_assert(std::is_class_v<B> && std::is_empty_v<B> && std::is_trivially_default_constructible_v<B>,
                "porter backend conformance: a backend is an empty, trivially constructible struct (the neutral API "
                "passes it by value as B{}).");
  static_assert(is_path<P>::value && !std::is_same_v<P, porter::path::automatic>,
                "porter backend conformance: a backend names its concrete path tag: using path = porter::path::tma, "
                "porter::path::cp_async or porter::path::staged.");
  static_assert(cd::copy_box_matches_all<B>,
                "porter backend conformance: copy_box must be: template <class Box> static void copy_box(typename "
                "Box::element_type* dst, const tiled_source<Box>& src, const coord<Box::rank>& at, const "
                "detail::copy_context& ctx), exactly as in porter::backend::staged.");
  static_assert(std::is_same_v<typename cd::copy_bytes_of<B>::type, typename cd::copy_bytes_of<staged>::type> &&
                    std::is_same_v<typename cd::copy_bytes_of<staged>::type, cd::copy_bytes_signature>,
                "porter backend conformance: copy_bytes must be: static void copy_bytes(void* dst, const void* src, "
                "std::size_t bytes, const detail::copy_context& ctx), exactly as in porter::backend::staged.");
  return true;
}

}  // namespace porter::backend
