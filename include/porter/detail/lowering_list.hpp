// porter/detail/lowering_list.hpp — the machinery of a vendor registry: a list of lowerings and the
// lookup from a path tag to its lowering. No lowering is named here; each vendor's registry
// (backends/registry/<vendor>/porter/lowerings.hpp) lists its own.
#pragma once
#include <type_traits>

#include "porter/path.hpp"

namespace porter::lowerings {

/// A list of lowering types (each has `using path = <tag>`).
template <class... L> struct list {};

namespace detail {
template <class Path, class List> struct find { using type = void; };
template <class Path, class L0, class... L>
struct find<Path, list<L0, L...>> {
  using type = std::conditional_t<std::is_same_v<typename L0::path, Path>, L0, typename find<Path, list<L...>>::type>;
};
}  // namespace detail

/// The lowering of `Path` in `List`, or void when the list has none.
template <class Path, class List> using find_t = typename detail::find<Path, List>::type;

/// Call `f(typename L::path{})` for every lowering L of `List`, in list order.
template <class... L, class F>
constexpr void for_each_path(list<L...>, F&& f) {
  (f(typename L::path{}), ...);
}

}  // namespace porter::lowerings
