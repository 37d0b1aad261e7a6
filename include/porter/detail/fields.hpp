// porter/detail/fields.hpp — find the porter::tiled_source values a kernel argument holds, so that
// porter::launch checks sources inside struct parameters too (plain C++17, host only).
//
// An argument holds sources in one of three ways, tried in this order:
//   1. it is a porter::tiled_source<B> or porter::tiled_destination<B>;
//   2. its type has the member hook
//        template <class F> void porter_sources(F&& f) const { f(a); f(b); }
//      which calls f once per member that is, or holds, a source (recursively; the k-th call is
//      field k in messages). Use it for classes that are not aggregates (private members,
//      constructors), aggregates with C-array members or base classes, and pointers: porter follows
//      no pointer, only what the hook names;
//   3. it is an aggregate class that is 128-byte aligned (every struct holding a tiled_source is:
//      tiled_source is alignas(128)): its fields are visited recursively, in declaration order,
//      through a structured binding. The field count comes from aggregate initialisation with a
//      type that converts to anything (the technique Boost.PFR uses in C++17), counted with
//      plain initialisers (which brace elision spreads over the elements of a C-array member) and
//      with braced ones, which initialise one direct member each: `{x}` (any member but an empty
//      aggregate, which has no element for x) and `{}` (any member that can be value-initialised,
//      empty ones included). The struct is visited only when the plain count equals one of the
//      braced counts and is at most 16.
// Empty classes hold no source and are skipped (tags, stateless functors; 128-byte aligned ones
// too, aggregate or not); an empty member keeps its field number.
// A 128-byte aligned class type that is neither (a non-aggregate without the hook, an aggregate
// with an array member or more than 16 fields) does not compile with porter::launch: it may hold a
// source porter cannot see (static_assert sentence; tests/fail/launch_struct_without_hook.cu).
// Limitations: an aggregate with a non-empty base class is not detected and fails inside the
// structured binding; give it the hook. An aggregate that has both an empty member and a member
// that cannot be value-initialised from `{}` (no default constructor, or an explicit one) cannot
// be counted and is refused as above.
#pragma once
#include <cstddef>
#include <type_traits>
#include <utility>

namespace porter {

template <class Box> struct tiled_source;
template <class Box> struct tiled_destination;

/// Where a tiled source sits among a kernel's arguments: the argument (counting from 0) and, for a
/// source inside a struct, the index path of fields from the argument inward ("argument 1,
/// field 2.0" is field 0 of field 2 of argument 1). Fixed size: building one never allocates.
struct source_location {
  static constexpr int max_depth = 8;  ///< field indices kept; deeper ones are counted in `depth` only
  int argument = 0;
  int depth = 0;                        ///< number of field indices (0: the argument itself)
  int field[max_depth] = {};
  /// The location of field `i` of the value at this location.
  constexpr source_location in_field(int i) const {
    source_location l = *this;
    if (l.depth < max_depth) l.field[l.depth] = i;
    ++l.depth;
    return l;
  }
};

namespace detail {
namespace fields {

template <class T> struct is_source : std::false_type {};
template <class B> struct is_source<tiled_source<B>> : std::true_type {};
template <class B> struct is_source<tiled_destination<B>> : std::true_type {};

/// Converts to any non-reference type; declared only (unevaluated operands).
template <std::size_t I>
struct any {
  template <class U>
  constexpr operator U() const noexcept;
};

template <class T, class Seq, class = void> struct init_flat : std::false_type {};
template <class T, std::size_t... I>
struct init_flat<T, std::index_sequence<I...>, std::void_t<decltype(T{any<I>{}...})>> : std::true_type {};
template <class T, class Seq, class = void> struct init_braced : std::false_type {};
template <class T, std::size_t... I>
struct init_braced<T, std::index_sequence<I...>, std::void_t<decltype(T{{any<I>{}}...})>> : std::true_type {};

/// Whether T{{}, ..., {}} (N empty braced lists) compiles: each `{}` value-initialises one direct
/// member, an empty aggregate too (which `{x}` cannot initialise). Written out for N = 1..17: a
/// pack expansion cannot produce an empty braced list.
template <class T, std::size_t N, class = void> struct init_values : std::false_type {};
#define PORTER_FIELDS_VALUES(n, ...) \
  template <class T> struct init_values<T, n, std::void_t<decltype(T{__VA_ARGS__})>> : std::true_type {};
PORTER_FIELDS_VALUES(1, {})
PORTER_FIELDS_VALUES(2, {}, {})
PORTER_FIELDS_VALUES(3, {}, {}, {})
PORTER_FIELDS_VALUES(4, {}, {}, {}, {})
PORTER_FIELDS_VALUES(5, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(6, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(7, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(8, {}, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(9, {}, {}, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(10, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(11, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(12, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(13, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(14, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(15, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(16, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
PORTER_FIELDS_VALUES(17, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})
#undef PORTER_FIELDS_VALUES

/// Converts only to a proper base class of T: T{x} compiles when T's first element is a base class
/// (an aggregate's bases come before its members). Declared only (unevaluated operands).
template <class T>
struct any_base {
  template <class U, class = std::enable_if_t<std::is_base_of_v<U, T> && !std::is_same_v<U, T>>>
  constexpr operator U() const noexcept;
};
template <class T, class = void> struct init_base : std::false_type {};
template <class T> struct init_base<T, std::void_t<decltype(T{any_base<T>{}})>> : std::true_type {};

inline constexpr std::size_t max_fields = 16;

/// The initialisers a count probes with: plain x_i, braced {x_i}, or empty braced lists {}.
enum class probe { flat, braced, values };

/// The largest N <= max_fields + 1 such that T{x_1, ..., x_N} compiles (braced: T{{x_1}, ...};
/// values: T{{}, ...}).
template <class T, probe P, std::size_t N = max_fields + 1>
constexpr std::size_t count() {
  if constexpr (N == 0) {
    return 0;
  } else if constexpr (P == probe::flat ? init_flat<T, std::make_index_sequence<N>>::value
                       : P == probe::braced ? init_braced<T, std::make_index_sequence<N>>::value
                                            : init_values<T, N>::value) {
    return N;
  } else {
    return count<T, P, N - 1>();
  }
}

struct hook_probe {
  template <class M> void operator()(const M&) const {}
};
template <class T, class = void> struct has_hook : std::false_type {};
template <class T>
struct has_hook<T, std::void_t<decltype(std::declval<const T&>().porter_sources(std::declval<hook_probe&>()))>> : std::true_type {};

/// Only 128-byte aligned aggregates can hold a tiled_source as a field; others are not probed.
template <class T>
constexpr bool may_hold_source() {
  return (std::is_class_v<T> || std::is_union_v<T>) && alignof(T) >= 128;
}

/// Number of fields porter visits in aggregate T, or -1 when T is not visited field by field.
template <class T>
constexpr int visitable_fields() {
  if constexpr (!std::is_aggregate_v<T> || std::is_union_v<T> || !may_hold_source<T>()) {
    return -1;  // unions have no structured bindings: a 128-byte aligned union needs the hook
  } else {
    constexpr std::size_t flat = count<T, probe::flat>();
    // Each braced count is at most the number of direct members, which is at most `flat`: when
    // either reaches `flat`, no C array spreads over several initialisers. `{x}` stops at an empty
    // member, `{}` at one without a default constructor; the latter is not used when T has a base
    // class, where an empty base would count as a field that has no structured binding.
    constexpr std::size_t braced = count<T, probe::braced>();
    constexpr std::size_t values = init_base<T>::value ? 0 : count<T, probe::values>();
    // A count of 0 is only believed when T{} compiles: a reference member stops the probes at 0.
    constexpr bool empty_ok = flat != 0 || init_flat<T, std::make_index_sequence<0>>::value;
    return (flat == braced || flat == values) && flat <= max_fields && empty_ok ? int(flat) : -1;
  }
}

template <class T, class F>
void visit(const T& v, const source_location& at, F& f);

template <int N, class T, class F>
void visit_fields(const T& v, const source_location& at, F& f) {
  // One structured binding per field count: the only way C++17 names an aggregate's fields.
#define PORTER_FIELDS_CASE(n, ...)                                            \
  if constexpr (N == n) {                                                     \
    const auto& [__VA_ARGS__] = v;                                            \
    int i = 0;                                                                \
    auto each = [&](const auto&... m) { (visit(m, at.in_field(i++), f), ...); }; \
    each(__VA_ARGS__);                                                        \
  }
  if constexpr (N == 0) {
    (void)v, (void)at, (void)f;
  }
  PORTER_FIELDS_CASE(1, a)
  PORTER_FIELDS_CASE(2, a, b)
  PORTER_FIELDS_CASE(3, a, b, c)
  PORTER_FIELDS_CASE(4, a, b, c, d)
  PORTER_FIELDS_CASE(5, a, b, c, d, e)
  PORTER_FIELDS_CASE(6, a, b, c, d, e, g)
  PORTER_FIELDS_CASE(7, a, b, c, d, e, g, h)
  PORTER_FIELDS_CASE(8, a, b, c, d, e, g, h, j)
  PORTER_FIELDS_CASE(9, a, b, c, d, e, g, h, j, k)
  PORTER_FIELDS_CASE(10, a, b, c, d, e, g, h, j, k, l)
  PORTER_FIELDS_CASE(11, a, b, c, d, e, g, h, j, k, l, m_)
  PORTER_FIELDS_CASE(12, a, b, c, d, e, g, h, j, k, l, m_, n_)
  PORTER_FIELDS_CASE(13, a, b, c, d, e, g, h, j, k, l, m_, n_, o)
  PORTER_FIELDS_CASE(14, a, b, c, d, e, g, h, j, k, l, m_, n_, o, p)
  PORTER_FIELDS_CASE(15, a, b, c, d, e, g, h, j, k, l, m_, n_, o, p, q)
  PORTER_FIELDS_CASE(16, a, b, c, d, e, g, h, j, k, l, m_, n_, o, p, q, r)
#undef PORTER_FIELDS_CASE
}

template <class T, class F>
void visit(const T& v, const source_location& at, F& f) {
  if constexpr (is_source<T>::value) {
    f(v, at);
  } else if constexpr (std::is_array_v<T>) {
    // A C array (of sources, or of structs that hold them): every element, as field i.
    for (std::size_t i = 0; i < std::extent_v<T>; ++i) visit(v[i], at.in_field(int(i)), f);
  } else if constexpr (has_hook<T>::value) {
    int i = 0;
    v.porter_sources([&](const auto& m) { visit(m, at.in_field(i++), f); });
  } else if constexpr (std::is_empty_v<T>) {
    (void)v, (void)at, (void)f;  // no non-static data member: nothing to find
  } else if constexpr (visitable_fields<T>() >= 0) {
    visit_fields<visitable_fields<T>()>(v, at, f);
  } else {
    static_assert(!may_hold_source<T>(),
                  "porter::launch: a kernel argument (or a field of one) is a 128-byte aligned class that porter cannot look "
                  "into, so it may hold a porter::tiled_source that would go unchecked: give it a member "
                  "template <class F> void porter_sources(F&& f) const { f(member); ... } naming the members that hold "
                  "sources (none: an empty body), or make it an aggregate of at most 16 fields (no reference members; not a union).");
  }
}

}  // namespace fields

/// Call f(source, location) for every porter::tiled_source (and tiled_destination) that `arg`, the
/// kernel argument at index `argument`, is or holds (see the top of porter/detail/fields.hpp).
template <class T, class F>
void for_each_source(const T& arg, int argument, F&& f) {
  source_location at;
  at.argument = argument;
  fields::visit(arg, at, f);
}

/// How many tiled sources `arg` holds (counted at run time: a hook may name a varying set).
template <class T>
int count_sources(const T& arg) {
  int n = 0;
  for_each_source(arg, 0, [&](const auto&, const source_location&) { ++n; });
  return n;
}

}  // namespace detail
}  // namespace porter
