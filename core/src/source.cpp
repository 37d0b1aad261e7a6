// Source validation (once per layout), the device mask and tensor-map encoding of a tiled source.
//
// The rules of each path live in core/src/rules/<path>.cpp; this file checks what no path can get
// around, runs every path's rules, interns the report by layout, and prepares a source for a
// device (core/src/tensor_map.cpp encodes the tensor map).
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "porter/detail/box_geometry.hpp"
#include "porter/error.hpp"
#include "porter/swizzle.hpp"
#include "porter/source.hpp"
#include "rules/rules.hpp"
#include "tensor_map.hpp"

namespace porter {

support_report validate_source(const source_desc& d) {
  // Rules no path can get around.
  if (d.rank < 1 || d.rank > max_rank)
    throw error(errc::invalid_argument, "source.rank",
                "rank is " + std::to_string(d.rank) + "; porter reads tensors of rank 1.." + std::to_string(max_rank));
  if (!(d.elem_bytes == 1 || d.elem_bytes == 2 || d.elem_bytes == 4 || d.elem_bytes == 8 || d.elem_bytes == 16))
    throw error(errc::invalid_argument, "source.element_size",
                "element size is " + std::to_string(d.elem_bytes) + " B; porter moves elements of 1, 2, 4, 8 or 16 B");
  if (d.ptr == nullptr) throw error(errc::invalid_argument, "source.null_pointer", "the global pointer is null");
  // Extents first, then boxes, then strides: a dense source's strides derive from its extents,
  // so a zero extent must be named as such, not as the zero stride it implies.
  for (int i = 0; i < d.rank; ++i)
    if (d.extent[i] < 1)
      throw error(errc::invalid_argument, "source.extent_positive",
                  "extent of dimension " + std::to_string(i) + " is " + std::to_string(d.extent[i]) + "; every extent must be at least 1");
  for (int i = 0; i < d.rank; ++i)
    if (d.box[i] < 1)
      throw error(errc::invalid_argument, "source.box_positive",
                  "box dimension " + std::to_string(i) + " is " + std::to_string(d.box[i]) + "; every box dimension must be at least 1");
  for (int i = 0; i < d.rank; ++i)
    if (d.stride[i] < 1)
      throw error(errc::invalid_argument, "source.stride_positive",
                  "stride of dimension " + std::to_string(i) + " is " + std::to_string(d.stride[i]) + " elements; strides must be at least 1");
  if (d.stride[d.rank - 1] != 1)
    throw error(errc::invalid_argument, "source.inner_contiguous",
                "the innermost stride is " + std::to_string(d.stride[d.rank - 1]) +
                    " elements; the innermost dimension must be contiguous (stride 1)");

  // Swizzle (porter/swizzle.hpp): the same bytes land on every path, so a swizzle the box cannot
  // land in is refused for all of them (porter::swizzled refuses these at compile time).
  if (!is_swizzle_span(d.swizzle))
    throw error(errc::invalid_argument, "swizzle.mode",
                "swizzle span is " + std::to_string(d.swizzle) + " B; the modes are none (0), 32, 64 and 128 B");
  if (d.swizzle != 0 && d.rank < 2)
    throw error(errc::invalid_argument, "swizzle.rank",
                "a 1D box cannot be swizzled: swizzle permutes the 16-byte chunks of each row by the row's index");
  if (d.swizzle != 0 && std::int64_t(d.box[d.rank - 1]) * d.elem_bytes != d.swizzle)
    throw error(errc::invalid_argument, "swizzle.inner_row_is_span",
                "the box's innermost row is " + std::to_string(std::int64_t(d.box[d.rank - 1]) * d.elem_bytes) + " B but the swizzle span is " +
                    std::to_string(d.swizzle) + " B; a swizzled box's row must be exactly one span (the layout TMA, ldmatrix and wgmma share)");

  if (d.kind != element_kind::raw) {
    const int want = d.kind == element_kind::u64 ? 8 : 4;
    if (d.elem_bytes != want)
      throw error(errc::invalid_argument, "destination.element_kind",
                  "the element kind needs " + std::to_string(want) + "-byte elements, but the elements are " + std::to_string(d.elem_bytes) + " B");
    // Hardware reductions and atomics need naturally aligned elements (an 8-byte atomicAdd at an
    // address 4 B past an 8-byte boundary raised cudaErrorMisalignedAddress on the H200); a float*
    // or uint64_t* that is not so aligned is undefined behaviour in C++ already.
    if (reinterpret_cast<std::uintptr_t>(d.ptr) % std::uintptr_t(d.elem_bytes) != 0)
      throw error(errc::invalid_argument, "destination.element_alignment",
                  "the first element is " + std::to_string(reinterpret_cast<std::uintptr_t>(d.ptr) % std::uintptr_t(d.elem_bytes)) +
                      " B past a " + std::to_string(d.elem_bytes) + "-byte boundary; elements of an arithmetic type (f32, s32, u32, u64) "
                      "must be aligned to their size (reductions are atomic on every path)");
  }

  support_report r;
  for (int i = 0; i < path_count; ++i) r.mask |= path_bit(static_cast<path_id>(i));
  const std::uint64_t es = std::uint64_t(d.elem_bytes);
  const std::uint64_t addr = reinterpret_cast<std::uintptr_t>(d.ptr);
  const std::uint64_t inner_box_bytes = std::uint64_t(d.box[d.rank - 1]) * es;
  // The widest chunk the layout allows: the copies' chunk_bits with the box row (only the low four
  // bits decide it, and widest_access caps at 16).
  const std::uint64_t bits = detail::chunk_bits_of(d.ptr, d.stride, d.rank, d.elem_bytes) | inner_box_bytes;
  const rules::layout l{d, es, addr, inner_box_bytes, detail::widest_access(bits)};
  const rules::lowering_rules* const* all = rules::all_rules();
  for (int i = 0; i < path_count; ++i) all[i]->check(l, r);
  return r;
}

path_id select_path(unsigned mask, int cc, bool hip) {
  if (!hip && cc >= 90 && (mask & path_bit(path_id::tma))) return path_id::tma;
  if (!hip && cc >= 80 && (mask & path_bit(path_id::cp_async))) return path_id::cp_async;
  return path_id::staged;
}

namespace detail {
namespace {

/// What the rules look at: the layout, with the pointer reduced to its offset within 16 bytes.
using layout_key = std::tuple<int, int, std::uintptr_t, int, int, std::vector<std::int64_t>>;

layout_key key_of(const source_desc& d) {
  std::vector<std::int64_t> v;
  for (int i = 0; i < d.rank; ++i) {
    v.push_back(d.extent[i]);
    v.push_back(d.stride[i]);
    v.push_back(d.box[i]);
  }
  return {d.rank, d.elem_bytes, reinterpret_cast<std::uintptr_t>(d.ptr) & 15u, d.swizzle, int(d.kind), std::move(v)};
}

}  // namespace

const support_report& report_for(const source_desc& d) {
  static std::mutex mu;
  static std::map<layout_key, std::unique_ptr<const support_report>> interned;
  // The key keeps only the pointer's offset within 16 bytes, so a null pointer shares its key with
  // every 16-byte aligned one: refuse it before the lookup (validate_source throws for it).
  if (d.ptr == nullptr) (void)validate_source(d);
  layout_key k = key_of(d);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = interned.find(k); it != interned.end()) return *it->second;
  }
  auto r = std::make_unique<const support_report>(validate_source(d));  // throws for invalid input: nothing interned
  std::lock_guard<std::mutex> lock(mu);
  auto [it, inserted] = interned.emplace(std::move(k), std::move(r));
  return *it->second;
}

unsigned device_mask(unsigned layout_mask, const device_caps* caps) {
  unsigned mask = layout_mask;
  const rules::lowering_rules* const* all = rules::all_rules();
  for (int i = 0; i < path_count; ++i)
    if (!rules::runs_here(*all[i], caps)) mask &= ~path_bit(all[i]->id);
  return mask;
}

unsigned prepare_source(const source_desc& d, const device_caps* caps, void* tensor_map_out, int* tma_split_rows,
                        const support_report** report) {
  const support_report& r = report_for(d);
  if (report) *report = &r;
  std::memset(tensor_map_out, 0, 128);
  if (tma_split_rows) *tma_split_rows = r.tma_split_rows > 0 ? r.tma_split_rows : d.box[0];
  const unsigned mask = device_mask(r.mask, caps);
  if ((mask & path_bit(path_id::tma)) && d.rank >= 2) encode_tensor_map(d, r.tma_split_rows, tensor_map_out);
  return mask;
}

}  // namespace detail
}  // namespace porter
