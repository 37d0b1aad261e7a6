// core/src/rules/tma.cpp — the tma lowering's host rules: what a tensor map and cp.async.bulk allow.
//
// Source: CUDA Driver API, cuTensorMapEncodeTiled (global address 16-byte aligned; strides
// multiples of 16 bytes and below 2^40; extents 1..2^32; box dimensions 1..256; inner box bytes a
// multiple of 16; rank <= 5); PTX ISA 9.7.9.25.5 (cp.async.bulk.tensor: shared destination 128-byte
// aligned). The driver's list has no rule relating the box to the tensor's extents, and porter
// keeps none: a box larger than the tensor in any dimension is encoded as it is and the elements
// outside read as zero, as for a box that crosses an edge (CUTLASS runs problems smaller than one
// tile this way). The split of the outermost dimension must land on 128 bytes (measured on an H200).
#include <algorithm>
#include <string>

#include "porter/swizzle.hpp"
#include "porter/tma/path.hpp"
#include "rules.hpp"

namespace porter::rules {
namespace {

void check_tma(const layout& l, support_report& r) {
  const source_desc& d = l.d;
  constexpr path_id p = path_id::tma;
  if (l.addr % 16 != 0)
    refuse(r, p, "tma.global_address_alignment",
           "global address is " + std::to_string(l.addr % 16) + " B past a 16-byte boundary; TMA needs 16-byte alignment");
  for (int i = 0; i + 1 < d.rank; ++i) {
    const std::uint64_t sb = std::uint64_t(d.stride[i]) * l.es;
    if (sb % 16 != 0)
      refuse(r, p, "tma.stride_multiple_of_16", "stride of " + dim_name(i, d.rank) + " is " + std::to_string(sb) + " B, not a multiple of 16 B");
    // Compared in elements: stride * element bytes can exceed 64 bits (and wrap below 2^40).
    if (std::uint64_t(d.stride[i]) >= (std::uint64_t(1) << 40) / l.es)
      refuse(r, p, "tma.stride_below_2^40",
             "stride of " + dim_name(i, d.rank) + " is " +
                 (std::uint64_t(d.stride[i]) <= ~std::uint64_t(0) / l.es
                      ? std::to_string(sb) + " B"
                      : std::to_string(d.stride[i]) + " elements of " + std::to_string(l.es) + " B (beyond 2^64 B)") +
                 "; TMA allows strides below 2^40 B");
  }
  if (l.inner_box_bytes % 16 != 0)
    refuse(r, p, "tma.inner_box_multiple_of_16",
           "the box's innermost extent is " + std::to_string(l.inner_box_bytes) + " B (" + std::to_string(d.box[d.rank - 1]) +
               (d.box[d.rank - 1] == 1 ? " element" : " elements") + " of " + std::to_string(d.elem_bytes) +
               " B); TMA needs a multiple of 16 B");
  if (d.rank == 1) {
    r.tma_split_rows = d.box[0];
    r.tma_copies_per_box = 1;
    if (r.supports(p))
      r.notes.push_back({p, "", "tma: 1D boxes move with cp.async.bulk; boxes at a column that is not 16-byte aligned, and the bytes "
                                "outside the tensor, move with thread loads and stores"});
    return;
  }
  for (int i = 0; i < d.rank; ++i) {
    if (std::uint64_t(d.extent[i]) > (std::uint64_t(1) << 32))
      refuse(r, p, "tma.extent_range", "extent of dimension " + std::to_string(i) + " is " + std::to_string(d.extent[i]) + "; TMA allows 1..2^32");
  }
  // Innermost box extent in TMA elements (16-byte elements travel as two 8-byte ones).
  const int inner_tma = d.box[d.rank - 1] * (d.elem_bytes == 16 ? 2 : 1);
  if (inner_tma > 256)
    refuse(r, p, "tma.box_dim_range",
           "box dimension " + std::to_string(d.rank - 1) + " (innermost) is " + std::to_string(d.box[d.rank - 1]) + " elements" +
               (d.elem_bytes == 16 ? " (" + std::to_string(inner_tma) + " 8-byte TMA elements)" : std::string()) +
               "; TMA allows 1..256 and an innermost dimension cannot be split without changing the tile layout");
  for (int i = 1; i < d.rank - 1; ++i) {
    if (d.box[i] > 256)
      refuse(r, p, "tma.box_dim_range",
             "box dimension " + std::to_string(i) + " is " + std::to_string(d.box[i]) +
                 "; TMA allows 1..256 and only the outermost dimension can be split into several copies");
  }
  // The outermost dimension may be split into equal parts of at most 256 rows; every part lands
  // on a 128-byte boundary (cp.async.bulk.tensor's shared-memory alignment), so a part's bytes
  // must be a multiple of 128.
  // A swizzled box's parts land on its swizzle atom instead (256 / 512 / 1024 B), where the
  // hardware's address-based pattern restarts (porter/swizzle.hpp).
  std::uint64_t slab = l.es;  // bytes per index of dimension 0
  for (int i = 1; i < d.rank; ++i) slab *= std::uint64_t(d.box[i]);
  const std::uint64_t part_align = swizzle_atom_bytes(static_cast<swizzle>(d.swizzle));
  int split = d.box[0];
  if (split > 256) {
    for (split = 256; split >= 1 && (d.box[0] % split != 0 || (std::uint64_t(split) * slab) % part_align != 0); --split) {
    }
    if (split < 1) {
      refuse(r, p, "tma.split_alignment",
             "box dimension 0 is " + std::to_string(d.box[0]) + " rows of " + std::to_string(slab) +
                 " B; TMA allows 256 rows per copy and each copy must land on a " + std::to_string(part_align) +
                 "-byte boundary" + (d.swizzle ? " (the swizzle atom)" : "") + ", but no split of " + std::to_string(d.box[0]) +
                 " into equal parts of at most 256 rows is a multiple of " + std::to_string(part_align) + " B");
      split = d.box[0];
    }
  }
  r.tma_split_rows = split;
  r.tma_copies_per_box = d.box[0] / split;
  if (r.supports(p) && r.tma_copies_per_box > 1)
    r.notes.push_back({p, "", "tma: the box's dimension 0 (" + std::to_string(d.box[0]) + ") exceeds 256; each box is " +
                                  std::to_string(r.tma_copies_per_box) + " copies of " + std::to_string(r.tma_split_rows)});
  if (r.supports(p)) {
    const int per16 = 16 / std::min(16, d.elem_bytes);
    r.notes.push_back({p, "", "tma: boxes whose first column is not 16-byte aligned (" + std::to_string(per16) +
                                  "-element multiples) move with thread loads: TMA needs 16-byte aligned inner coordinates"});
  }
}

}  // namespace

const lowering_rules tma_rules{path::tma::id, path::tma::name, "TMA", path::tma::min_compute_capability, path::tma::nvidia_only,
                               path::tma::role_min_compute_capability, &check_tma};

}  // namespace porter::rules
