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
#include <string>
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
/// The one builder behind make_tiled_source and make_tiled_destination: validate (once per
/// layout), encode the tensor map for the device, record the element kind `kind`.
template <class Box>
tiled_source<Box> make_source_of_kind(const typename Box::element_type* ptr, const std::int64_t (&extents)[Box::rank],
                                      const std::int64_t (&strides)[Box::rank > 1 ? Box::rank - 1 : 1], element_kind kind,
                                      int device) {
  tiled_source<Box> s{};
  source_desc d;
  d.rank = Box::rank;
  d.elem_bytes = int(sizeof(typename Box::element_type));
  d.ptr = ptr;
  for (int i = 0; i < Box::rank; ++i) { d.extent[i] = extents[i]; d.box[i] = Box::dim(i); }
  d.swizzle = swizzle_span(Box::swizzle_mode);
  d.kind = kind;
  d.stride[Box::rank - 1] = 1;
  for (int i = 0; i + 1 < Box::rank; ++i) d.stride[i] = strides[i];
  std::string why;
  auto caps = query_device(device, &why);
  int split = Box::dim(0);
  s.supported = prepare_source(d, caps ? &*caps : nullptr, s.tensor_map, &split, &s.report);
  s.ptr = ptr;
  for (int i = 0; i < Box::rank; ++i) { s.extent[i] = d.extent[i]; s.stride[i] = d.stride[i]; }
  s.tma_split_rows = split;
  s.kind = kind;
  return s;
}
}  // namespace detail

/// Build a tiled source over a global tensor (host).
///
/// ptr      device pointer to element (0, ..., 0). Any alignment is accepted; TMA needs 16 B,
///          cp.async at least 4 B.
/// extents  elements per dimension, outermost first, each >= 1 (TMA: <= 2^32).
/// strides  elements between consecutive indices of the outer dimensions (rank-1 values, outermost
///          first); the innermost stride is 1. Omit for a dense tensor. TMA needs each stride in bytes
///          to be a multiple of 16 and below 2^40.
/// device   the device the source will be read on (-1: current). Without a usable GPU the source
///          allows only the paths that need no device features (staged).
/// Throws porter::error(errc::invalid_argument) for inputs no path can read. A source a path
/// cannot read is not an error: explain() says why, and forcing that path fails at launch.
template <class Box>
tiled_source<Box> make_tiled_source(const typename Box::element_type* ptr,
                                    const std::int64_t (&extents)[Box::rank],
                                    const std::int64_t (&strides)[Box::rank > 1 ? Box::rank - 1 : 1],
                                    Box = {}, int device = -1) {
  return detail::make_source_of_kind<Box>(ptr, extents, strides, element_kind::raw, device);
}

/// Dense tensor overload: strides follow from the extents (row-major).
template <class Box>
tiled_source<Box> make_tiled_source(const typename Box::element_type* ptr,
                                    const std::int64_t (&extents)[Box::rank], Box b = {}, int device = -1) {
  std::int64_t strides[Box::rank > 1 ? Box::rank - 1 : 1] = {};
  std::int64_t s = 1;
  for (int i = Box::rank - 1; i >= 1; --i) { s *= extents[i]; strides[i - 1] = s; }
  return make_tiled_source<Box>(ptr, extents, strides, b, device);
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
