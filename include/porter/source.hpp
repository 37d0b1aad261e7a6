// porter/source.hpp — tiled sources: a global tensor plus the box it is read in (host-built).
//
// A tiled source is built once on the host by make_tiled_source, which validates it against every
// path's rules, encodes a TMA tensor map where the device and the layout allow one, and records
// which paths may read it. It is then passed BY VALUE to the kernel, as a `__grid_constant__ const`
// parameter (the TMA unit reads the tensor map from kernel-parameter space: CUDA C++ Programming
// Guide, "Using TMA to transfer multi-dimensional arrays").
//
// A source is validated ONCE: make_tiled_source computes its support report (every path's rules,
// with a sentence per refusal) and keeps a pointer to it; explain() and porter::launch read that
// report instead of validating again. Reports are interned by layout (rank, element size, extents,
// strides, box and the pointer's offset within 16 bytes, which is all the rules look at), so a
// program that builds many sources of one layout holds one report.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "porter/box.hpp"
#include "porter/device.hpp"
#include "porter/error.hpp"
#include "porter/path.hpp"

namespace porter {

/// What a tensor's elements are, for hardware reductions (porter/destination.hpp). Copies and
/// stores move bytes and never look at it; raw is every source's kind.
enum class element_kind : int { raw = 0, f32, s32, u32, u64 };

/// Type-erased description of a tiled source: what the host core validates and encodes.
/// Extents, strides (elements) and box dimensions are outermost first; stride[rank-1] is 1.
struct source_desc {
  int rank = 1;                           ///< 1..max_rank
  int elem_bytes = 4;                     ///< 1, 2, 4, 8 or 16
  const void* ptr = nullptr;              ///< global address of element (0, ..., 0)
  std::int64_t extent[max_rank] = {};     ///< elements per dimension, each >= 1
  std::int64_t stride[max_rank] = {};     ///< elements between consecutive indices of each dimension
  int box[max_rank] = {};                 ///< box dimensions, elements
  int swizzle = 0;                        ///< shared-memory swizzle span, bytes: 0 (none), 32, 64 or 128 (porter/swizzle.hpp)
  element_kind kind = element_kind::raw;  ///< what the elements are (tiled destinations that reduce); the tensor map's data type
};

/// One reason a path cannot read a source (or, for `note`, how it will read it).
struct path_verdict {
  path_id path;
  std::string rule;     ///< stable rule id, e.g. "tma.stride_multiple_of_16"; empty for a note
  std::string message;  ///< sentence naming the rule and the offending value
};

/// The outcome of validating a source against every path's layout rules (device-independent).
struct support_report {
  unsigned mask = 0;                    ///< path_bit(...) of each path whose layout rules hold
  std::vector<path_verdict> refusals;   ///< why each refused path is refused (at least one line each)
  std::vector<path_verdict> notes;      ///< how accepted paths will move the bytes
  int cp_async_max_chunk = 0;           ///< widest cp.async chunk (4, 8, 16) the layout guarantees; 0 if refused
  int tma_copies_per_box = 0;           ///< TMA instructions per box (outermost dimension split above 256)
  int tma_split_rows = 0;               ///< TMA box extent of dimension 0 after splitting (0: not split)
  bool supports(path_id p) const { return (mask & path_bit(p)) != 0; }
};

/// Validate a source description against every path's layout rules (one rules file per path:
/// core/src/rules/). Throws porter::error (errc::invalid_argument) only for inputs no path can
/// read: null pointer, rank outside 1..max_rank, element size not 1/2/4/8/16, an extent or box
/// dimension below 1, a stride below 1, an innermost stride other than 1, and a swizzle the box
/// cannot land in (rules "swizzle.mode": span not 0/32/64/128; "swizzle.rank": a 1D box;
/// "swizzle.inner_row_is_span": the innermost box row is not exactly the span). The typed API
/// (porter::swizzled) refuses the last three at compile time.
/// Source: CUDA Driver API cuTensorMapEncodeTiled (TMA rules); PTX ISA 9.7.9.25 (cp.async sizes).
support_report validate_source(const source_desc& d);

/// The path with the most capable instruction family that `mask` allows on a device of compute
/// capability `cc` (90 for 9.0; `hip` for AMD): tma, else cp_async, else staged. This is the
/// capability order only; porter::choose_path (porter/choose.hpp) adds the cost model that
/// `automatic` uses.
path_id select_path(unsigned mask, int cc, bool hip = false);

/// A global tensor read in boxes of shape Box. Trivially copyable; pass by value as a
/// `__grid_constant__ const` kernel parameter. 128-byte aligned because it embeds a CUtensorMap.
///
/// Fields are public for the backends; build it with make_tiled_source, never by hand.
template <class Box>
struct alignas(128) tiled_source {
  static_assert(is_box<Box>::value, "porter::tiled_source: the template argument must be a porter::box<T, dims...>.");
  using box_type = Box;
  using element_type = typename Box::element_type;
  static constexpr int rank = Box::rank;

  /// Opaque CUtensorMap (CUDA driver API); valid only when (supported & path_bit(path_id::tma))
  /// and rank >= 2. 128 bytes, 128-byte aligned.
  alignas(128) unsigned char tensor_map[128];
  const element_type* ptr;          ///< element (0, ..., 0)
  std::int64_t extent[rank];        ///< elements, outermost first
  std::int64_t stride[rank];        ///< elements, outermost first; stride[rank-1] == 1
  unsigned supported;               ///< path_bit mask of paths allowed for this source on its device
  int tma_split_rows;               ///< TMA box extent of dimension 0 when the box is split (else Box::dim(0))
  const support_report* report;     ///< host: the layout's support report (interned; never freed); device: unused
  element_kind kind;                ///< element kind (element_kind::raw for sources; destinations that reduce: porter/destination.hpp)
  /// Per dimension, outermost first: a box whose first element is at `at` lies wholly inside the
  /// tensor iff std::uint32_t(at[d]) < interior_end[d] for every d (at[d] is 32-bit, so a negative
  /// coordinate fails), i.e. 0 <= at[d] and at[d] + Box::dim(d) <= min(extent[d], 2^31) (every
  /// index of the box fits in 32 bits). min(extent[d], 2^31) - Box::dim(d) + 1, at least 0, set by
  /// make_tiled_source (0: the box never fits, and every copy takes the bounds-checked walk). One
  /// compare per dimension in the copies' interior test.
  std::uint32_t interior_end[rank];
  /// The low four bits of the pointer's address and of every outer stride in bytes, ORed (set by
  /// make_tiled_source: detail::chunk_bits_of). The element-wise copies' chunk width for a box at
  /// `at` is the lowest set bit of chunk_bits | the box's first column in bytes | the box row in
  /// bytes, capped at 16 (detail::box_chunk_bytes): one OR per copy instead of reading the pointer
  /// and every stride. Source: PTX ISA 9.7.9.25.3 (cp.async: both addresses aligned to the copy
  /// size, 4, 8 or 16 bytes).
  std::uint32_t chunk_bits;

  /// True when the path may read this source (layout rules and the device it was built for).
  PORTER_HOST_DEVICE bool supports(path_id p) const { return (supported & path_bit(p)) != 0; }
  /// The type-erased description (host core, explain()).
  source_desc desc() const {
    source_desc d;
    d.rank = rank;
    d.elem_bytes = int(sizeof(element_type));
    d.ptr = ptr;
    for (int i = 0; i < rank; ++i) { d.extent[i] = extent[i]; d.stride[i] = stride[i]; d.box[i] = Box::dim(i); }
    d.swizzle = swizzle_span(Box::swizzle_mode);
    d.kind = kind;
    return d;
  }
};
static_assert(alignof(tiled_source<box<float, 8, 8>>) == 128, "tensor-map storage must be 128-byte aligned");

namespace detail {
/// The support report of `d`'s layout, validated on first use and interned (thread-safe; the
/// reference stays valid for the life of the program). Throws like validate_source.
const support_report& report_for(const source_desc& d);

/// The paths of `layout_mask` that the device `caps` can run (nullptr: no device, staged only;
/// AMD: staged only).
unsigned device_mask(unsigned layout_mask, const device_caps* caps);

/// Validate `d` (once per layout: report_for), and when `caps` has TMA and the layout allows it,
/// encode the tensor map into `tensor_map_out` (128 bytes) through cuTensorMapEncodeTiled, reached
/// with cudaGetDriverEntryPointByVersion (no link against libcuda). Returns the supported-path mask
/// for that device (caps == nullptr, no device: staged only). Writes the TMA rows per copy of
/// dimension 0 to `tma_split_rows` and the interned report to `report`. Throws porter::error for
/// invalid inputs or a failing encode.
unsigned prepare_source(const source_desc& d, const device_caps* caps, void* tensor_map_out, int* tma_split_rows,
                        const support_report** report);
}  // namespace detail

namespace detail {
/// True for what make_tiled_source accepts as a list of extents or strides besides a C array:
/// std::array, std::vector, std::span, std::initializer_list (anything std::data / std::size
/// read) of an integral type.
template <class L, class = void> struct is_index_list : std::false_type {};
template <class L>
struct is_index_list<L, std::void_t<decltype(std::data(std::declval<const L&>())), decltype(std::size(std::declval<const L&>()))>>
    : std::bool_constant<!std::is_array_v<L> &&
                         std::is_integral_v<std::remove_cv_t<std::remove_reference_t<decltype(*std::data(std::declval<const L&>()))>>>> {};

/// The length of an index list when its type says it (std::array), else -1.
template <class L, class = void> struct static_length : std::integral_constant<long long, -1> {};
template <class L>
struct static_length<L, std::void_t<decltype(std::tuple_size<L>::value)>> : std::integral_constant<long long, (long long)std::tuple_size<L>::value> {};

/// True for an mdspan (cuda::std::mdspan, std::mdspan, Kokkos::mdspan): data_handle(), rank(),
/// extent(r), stride(r) and is_strided().
template <class M, class = void> struct is_mdspan_like : std::false_type {};
template <class M>
struct is_mdspan_like<M, std::void_t<decltype(std::declval<const M&>().data_handle()), decltype(M::rank()),
                                     decltype(std::declval<const M&>().extent(0)), decltype(std::declval<const M&>().stride(0)),
                                     decltype(std::declval<const M&>().is_strided()), typename M::element_type>> : std::true_type {};

/// True for an mdspan layout mapping (layout_right::mapping, layout_stride::mapping, ...):
/// extents(), stride(r), required_span_size() and is_strided().
template <class M, class = void> struct is_layout_mapping_like : std::false_type {};
template <class M>
struct is_layout_mapping_like<M, std::void_t<decltype(std::declval<const M&>().extents()), decltype(std::declval<const M&>().stride(0)),
                                             decltype(std::declval<const M&>().required_span_size()),
                                             decltype(std::declval<const M&>().is_strided())>> : std::true_type {};

/// tiled_source::interior_end of one dimension: min(extent, 2^31) - box + 1, at least 0. The 2^31
/// keeps every index of an interior box (at[d] + i, i < box) inside 32 bits, as the copies compute
/// it; a box reaching past index 2^31 - 1 takes the bounds-checked walk.
constexpr std::uint32_t interior_end_of(std::int64_t extent, int box) {
  const std::int64_t top = extent < (std::int64_t(1) << 31) ? extent : (std::int64_t(1) << 31);
  const std::int64_t e = top - std::int64_t(box) + 1;
  return e <= 0 ? 0u : std::uint32_t(e);
}

/// tiled_source::chunk_bits: the low four bits of `ptr`'s address and of each of the rank - 1
/// outer strides (elements, outermost first) times `elem_bytes`, ORed. Only these bits decide how
/// wide an aligned chunk of the tensor can be (16 bytes at most).
inline std::uint32_t chunk_bits_of(const void* ptr, const std::int64_t* stride, int rank, int elem_bytes) {
  std::uint64_t bits = std::uint64_t(reinterpret_cast<std::uintptr_t>(ptr));
  for (int d = 0; d + 1 < rank; ++d) bits |= std::uint64_t(stride[d]) * std::uint64_t(elem_bytes);
  return std::uint32_t(bits & 15u);
}

/// The one builder behind every make_tiled_source form. `extents`: `nextents` values (must be
/// Box::rank); `strides`: `nstrides` values, elements, outermost first: 0 (dense, row-major from
/// the extents), Box::rank - 1 (the outer dimensions; the innermost is 1) or Box::rank (every
/// dimension; the innermost must be 1). Throws porter::error(errc::invalid_argument) for a wrong
/// count (rules source.extent_count, source.stride_count) and everything validate_source refuses,
/// in its order (an innermost stride of 2 or more: source.inner_contiguous; 0 or less:
/// source.stride_positive). Records Box's swizzle and the element kind `kind` (raw for sources;
/// make_tiled_destination: porter/destination.hpp).
template <class Box>
tiled_source<Box> build_tiled_source(const typename Box::element_type* ptr, const std::int64_t* extents, std::size_t nextents,
                                     const std::int64_t* strides, std::size_t nstrides, int device,
                                     element_kind kind = element_kind::raw) {
  constexpr int R = Box::rank;
  if (nextents != std::size_t(R))
    throw error(errc::invalid_argument, "source.extent_count",
                std::to_string(nextents) + " extents were given for a box of rank " + std::to_string(R) + "; give one per dimension");
  if (!(nstrides == 0 || nstrides == std::size_t(R - 1) || nstrides == std::size_t(R)))
    throw error(errc::invalid_argument, "source.stride_count",
                std::to_string(nstrides) + " strides were given for a box of rank " + std::to_string(R) + "; give " +
                    std::to_string(R - 1) + " (the outer dimensions) or " + std::to_string(R) + " (every dimension, the innermost 1)");
  source_desc d;
  d.rank = R;
  d.elem_bytes = int(sizeof(typename Box::element_type));
  d.ptr = ptr;
  for (int i = 0; i < R; ++i) { d.extent[i] = extents[i]; d.box[i] = Box::dim(i); }
  d.swizzle = swizzle_span(Box::swizzle_mode);
  d.kind = kind;
  if (nstrides == 0) {  // dense, row-major
    std::int64_t s = 1;
    for (int i = R - 1; i >= 0; --i) { d.stride[i] = s; s *= extents[i]; }
  } else {
    for (int i = 0; i + 1 < R; ++i) d.stride[i] = strides[i];
    // Given (validate_source refuses anything but 1, after the extents and boxes), or implied.
    d.stride[R - 1] = nstrides == std::size_t(R) ? strides[R - 1] : 1;
  }
  tiled_source<Box> s{};
  std::string why;
  auto caps = query_device(device, &why);
  int split = Box::dim(0);
  s.supported = detail::prepare_source(d, caps ? &*caps : nullptr, s.tensor_map, &split, &s.report);
  s.ptr = ptr;
  for (int i = 0; i < R; ++i) { s.extent[i] = d.extent[i]; s.stride[i] = d.stride[i]; }
  s.tma_split_rows = split;
  s.kind = kind;
  for (int i = 0; i < R; ++i) s.interior_end[i] = interior_end_of(d.extent[i], Box::dim(i));
  s.chunk_bits = chunk_bits_of(ptr, d.stride, R, d.elem_bytes);
  return s;
}

/// Copy an index list into `out` (at most max_rank values; the builder names a wrong count).
template <class L>
std::size_t index_list_copy(const L& l, std::int64_t (&out)[max_rank]) {
  const std::size_t n = std::size_t(std::size(l));
  const auto* p = std::data(l);
  for (std::size_t i = 0; i < n && i < std::size_t(max_rank); ++i) out[i] = std::int64_t(p[i]);
  return n > std::size_t(max_rank) ? std::size_t(max_rank) + 1 : n;  // over max_rank: a count the builder refuses
}
}  // namespace detail

/// Build a tiled source over a global tensor (host).
///
/// ptr      device pointer to element (0, ..., 0). Any alignment is accepted; TMA needs 16 B,
///          cp.async at least 4 B.
/// extents  elements per dimension, outermost first, each >= 1 (TMA: <= 2^32).
/// strides  elements between consecutive indices of the outer dimensions (rank-1 values, outermost
///          first); the innermost stride is 1. Omit for a dense tensor. TMA needs each stride in bytes
///          to be a multiple of 16 and below 2^40. (A rank-1 box takes one ignored value here.)
/// device   the device the source will be read on (-1: current). Without a usable GPU the source
///          allows only the paths that need no device features (staged).
/// Throws porter::error(errc::invalid_argument) for inputs no path can read. A source a path
/// cannot read is not an error: explain() says why, and forcing that path fails at launch.
///
/// Every form below builds through one function (detail::build_tiled_source); they differ only in
/// how extents and strides are spelled:
///   make_tiled_source<B>(p, {h, w})                     dense
///   make_tiled_source<B>(p, {h, w}, {pitch})            outer strides (rank-1 values)
///   make_tiled_source<B>(p, {h, w}, {pitch, 1})         every stride (rank values; the innermost must be 1)
///   make_tiled_source<B>(p, ext, str)                   std::array / std::vector / std::span / std::initializer_list
///   make_tiled_source<B>(md)                            a cuda::std::mdspan (layout_right, layout_stride, ...)
///   make_tiled_source<B>(p, md.mapping())               a pointer and an mdspan layout mapping
template <class Box>
tiled_source<Box> make_tiled_source(const typename Box::element_type* ptr,
                                    const std::int64_t (&extents)[Box::rank],
                                    const std::int64_t (&strides)[Box::rank > 1 ? Box::rank - 1 : 1],
                                    Box = {}, int device = -1) {
  return detail::build_tiled_source<Box>(ptr, extents, std::size_t(Box::rank), strides, std::size_t(Box::rank - 1), device);
}

/// Every stride, innermost included (rank values, outermost first, elements), as explain() prints
/// them. The innermost must be 1: any other value throws porter::error(errc::invalid_argument,
/// rule source.inner_contiguous). Rank >= 2 (a rank-1 box takes the form above).
template <class Box, int R = Box::rank, std::enable_if_t<(R == Box::rank && R >= 2), int> = 0>
tiled_source<Box> make_tiled_source(const typename Box::element_type* ptr, const std::int64_t (&extents)[Box::rank],
                                    const std::int64_t (&strides)[R], Box = {}, int device = -1) {
  return detail::build_tiled_source<Box>(ptr, extents, std::size_t(R), strides, std::size_t(R), device);
}

/// Dense tensor overload: strides follow from the extents (row-major).
template <class Box>
tiled_source<Box> make_tiled_source(const typename Box::element_type* ptr,
                                    const std::int64_t (&extents)[Box::rank], Box = {}, int device = -1) {
  return detail::build_tiled_source<Box>(ptr, extents, std::size_t(Box::rank), nullptr, 0, device);
}

/// Extents and strides as the containers users hold: std::array, std::vector, std::span,
/// std::initializer_list (values of any integral type). `strides` holds rank-1 values (outer
/// dimensions) or rank values (every dimension, the innermost 1). A std::array of the wrong length
/// does not compile; other containers of the wrong length throw porter::error(errc::invalid_argument,
/// rule source.extent_count / source.stride_count).
template <class Box, class Extents, class Strides,
          std::enable_if_t<detail::is_index_list<Extents>::value && detail::is_index_list<Strides>::value, int> = 0>
tiled_source<Box> make_tiled_source(const typename Box::element_type* ptr, const Extents& extents, const Strides& strides,
                                    Box = {}, int device = -1) {
  constexpr long long ne = detail::static_length<Extents>::value, ns = detail::static_length<Strides>::value;
  static_assert(ne < 0 || ne == Box::rank, "porter::make_tiled_source: give one extent per box dimension.");
  static_assert(ns < 0 || ns == Box::rank || ns == Box::rank - 1,
                "porter::make_tiled_source: give rank-1 strides (the outer dimensions) or rank strides (the innermost 1).");
  std::int64_t e[max_rank] = {}, s[max_rank] = {};
  const std::size_t n_e = detail::index_list_copy(extents, e), n_s = detail::index_list_copy(strides, s);
  return detail::build_tiled_source<Box>(ptr, e, n_e, s, n_s, device);
}

/// Dense tensor from a container of extents (std::array, std::vector, std::span, ...).
template <class Box, class Extents, std::enable_if_t<detail::is_index_list<Extents>::value, int> = 0>
tiled_source<Box> make_tiled_source(const typename Box::element_type* ptr, const Extents& extents, Box = {}, int device = -1) {
  constexpr long long ne = detail::static_length<Extents>::value;
  static_assert(ne < 0 || ne == Box::rank, "porter::make_tiled_source: give one extent per box dimension.");
  std::int64_t e[max_rank] = {};
  const std::size_t n_e = detail::index_list_copy(extents, e);
  return detail::build_tiled_source<Box>(ptr, e, n_e, nullptr, 0, device);
}

/// A pointer and an mdspan layout mapping (cuda::std::layout_right::mapping, layout_stride::mapping,
/// ...; static or dynamic extents): extents and strides (elements) come from the mapping, the box
/// from Box. The mapping's rank must be Box::rank (static_assert); its innermost stride must be 1
/// (else porter::error(errc::invalid_argument, rule source.inner_contiguous): layout_left is only
/// readable as rank 1); a mapping that is not strided throws (rule source.layout_strided).
template <class Box, class Mapping, std::enable_if_t<detail::is_layout_mapping_like<Mapping>::value, int> = 0>
tiled_source<Box> make_tiled_source(const typename Box::element_type* ptr, const Mapping& mapping, Box = {}, int device = -1) {
  using ext_t = std::remove_cv_t<std::remove_reference_t<decltype(mapping.extents())>>;
  constexpr int R = int(ext_t::rank());
  static_assert(R == Box::rank, "porter::make_tiled_source: the mdspan's rank must be the box's rank.");
  if (!mapping.is_strided())
    throw error(errc::invalid_argument, "source.layout_strided",
                "the mdspan layout mapping is not strided; porter reads tensors with one stride per dimension");
  std::int64_t e[max_rank] = {}, s[max_rank] = {};
  for (int i = 0; i < R; ++i) {
    e[i] = std::int64_t(mapping.extents().extent(std::size_t(i)));
    s[i] = std::int64_t(mapping.stride(std::size_t(i)));
  }
  return detail::build_tiled_source<Box>(ptr, e, std::size_t(R), s, std::size_t(R), device);
}

/// A cuda::std::mdspan (or std::mdspan, Kokkos::mdspan) over device memory: pointer, extents and
/// strides from the mdspan, the box from Box. Its element type (without const) must be Box's, its
/// rank Box::rank (static_asserts); otherwise as the mapping form above. Works in .cpp and .cu
/// translation units (include <cuda/std/mdspan> yourself; porter does not).
template <class Box, class Mdspan, std::enable_if_t<detail::is_mdspan_like<Mdspan>::value, int> = 0>
tiled_source<Box> make_tiled_source(const Mdspan& m, Box b = {}, int device = -1) {
  static_assert(std::is_same_v<std::remove_cv_t<typename Mdspan::element_type>, typename Box::element_type>,
                "porter::make_tiled_source: the mdspan's element type must be the box's element type.");
  static_assert(int(Mdspan::rank()) == Box::rank, "porter::make_tiled_source: the mdspan's rank must be the box's rank.");
  return make_tiled_source<Box>(static_cast<const typename Box::element_type*>(m.data_handle()), m.mapping(), b, device);
}

/// Which paths can read `d` on `caps` (nullptr: no device), and why the others cannot, in words;
/// ends with the path `automatic` picks and why (its cost model: porter::choose_path). One line per
/// fact. Example:
///   "tma: refused: row pitch 8008 B (stride of dimension 0) is not a multiple of 16 B"
/// `report` (optional) is d's support report; when null it is looked up (report_for).
std::string explain(const source_desc& d, const device_caps* caps, const support_report* report = nullptr);

/// explain() for a built source on the current device, from the report it was built with.
template <class Box>
std::string explain(const tiled_source<Box>& s, int device = -1) {
  auto caps = query_device(device);
  return explain(s.desc(), caps ? &*caps : nullptr, s.report);
}

}  // namespace porter
