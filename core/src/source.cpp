// Source validation, path selection, tensor-map encoding and explain().
//
// TMA rules: CUDA Driver API, cuTensorMapEncodeTiled (global address 16-byte aligned; strides
// multiples of 16 bytes and below 2^40; extents 1..2^32; box dimensions 1..256; inner box bytes a
// multiple of 16; rank <= 5). cp.async moves 4, 8 or 16 bytes (PTX ISA 9.7.9.25.3).
#include "porter/config.hpp"
#if !PORTER_HIP  // HIP build (cmake/hip): no tensor maps; AMD devices never allow the tma path
#  include <cuda.h>
#  include <cuda_runtime.h>
#  include <cudaTypedefs.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "porter/error.hpp"
#include "porter/source.hpp"

namespace porter {
namespace {

std::string dim_name(int d, int rank) {
  if (rank >= 2 && d == rank - 2) return "dimension " + std::to_string(d) + " (the row pitch)";
  return "dimension " + std::to_string(d);
}

unsigned widest(std::uint64_t x) {
  const std::uint64_t low = x & (~x + 1);
  return (x == 0 || low >= 16) ? 16u : unsigned(low);
}

void refuse(support_report& r, path_id p, const char* rule, const std::string& msg) {
  r.mask &= ~path_bit(p);
  r.refusals.push_back({p, rule, msg});
}

}  // namespace

support_report validate_source(const source_desc& d) {
  // Rules no path can get around.
  if (d.rank < 1 || d.rank > 5)
    throw error(errc::invalid_argument, "source.rank", "rank is " + std::to_string(d.rank) + "; porter reads tensors of rank 1..5");
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
                "the innermost stride is " + std::to_string(d.stride[d.rank - 1]) + " elements; the innermost dimension must be contiguous (stride 1)");

  support_report r;
  r.mask = path_bit(path_id::tma) | path_bit(path_id::cp_async) | path_bit(path_id::staged);
  const std::uint64_t es = std::uint64_t(d.elem_bytes);
  const std::uint64_t addr = reinterpret_cast<std::uintptr_t>(d.ptr);
  const std::uint64_t inner_box_bytes = std::uint64_t(d.box[d.rank - 1]) * es;

  // ---- tma ----
  if (addr % 16 != 0)
    refuse(r, path_id::tma, "tma.global_address_alignment",
           "global address is " + std::to_string(addr % 16) + " B past a 16-byte boundary; TMA needs 16-byte alignment");
  for (int i = 0; i + 1 < d.rank; ++i) {
    const std::uint64_t sb = std::uint64_t(d.stride[i]) * es;
    if (sb % 16 != 0)
      refuse(r, path_id::tma, "tma.stride_multiple_of_16",
             "stride of " + dim_name(i, d.rank) + " is " + std::to_string(sb) + " B, not a multiple of 16 B");
    if (sb >= (std::uint64_t(1) << 40))
      refuse(r, path_id::tma, "tma.stride_below_2^40",
             "stride of " + dim_name(i, d.rank) + " is " + std::to_string(sb) + " B; TMA allows strides below 2^40 B");
  }
  if (inner_box_bytes % 16 != 0)
    refuse(r, path_id::tma, "tma.inner_box_multiple_of_16",
           "the box's innermost extent is " + std::to_string(inner_box_bytes) + " B (" + std::to_string(d.box[d.rank - 1]) +
               " elements of " + std::to_string(d.elem_bytes) + " B); TMA needs a multiple of 16 B");
  if (d.rank >= 2) {
    for (int i = 0; i < d.rank; ++i) {
      if (std::uint64_t(d.extent[i]) > (std::uint64_t(1) << 32))
        refuse(r, path_id::tma, "tma.extent_range",
               "extent of dimension " + std::to_string(i) + " is " + std::to_string(d.extent[i]) + "; TMA allows 1..2^32");
    }
    // Innermost box extent in TMA elements (16-byte elements travel as two 8-byte ones).
    const int inner_tma = d.box[d.rank - 1] * (d.elem_bytes == 16 ? 2 : 1);
    if (inner_tma > 256)
      refuse(r, path_id::tma, "tma.box_dim_range",
             "box dimension " + std::to_string(d.rank - 1) + " (innermost) is " + std::to_string(d.box[d.rank - 1]) +
                 " elements" + (d.elem_bytes == 16 ? " (" + std::to_string(inner_tma) + " 8-byte TMA elements)" : std::string()) +
                 "; TMA allows 1..256 and an innermost dimension cannot be split without changing the tile layout");
    for (int i = 1; i < d.rank - 1; ++i) {
      if (d.box[i] > 256)
        refuse(r, path_id::tma, "tma.box_dim_range",
               "box dimension " + std::to_string(i) + " is " + std::to_string(d.box[i]) +
                   "; TMA allows 1..256 and only the outermost dimension can be split into several copies");
    }
    // The outermost dimension may be split into equal parts of at most 256 rows; every part lands
    // on a 128-byte boundary (cp.async.bulk.tensor's shared-memory alignment), so a part's bytes
    // must be a multiple of 128.
    std::uint64_t slab = es;  // bytes per index of dimension 0
    for (int i = 1; i < d.rank; ++i) slab *= std::uint64_t(d.box[i]);
    int split = d.box[0];
    if (split > 256) {
      for (split = 256; split >= 1 && (d.box[0] % split != 0 || (std::uint64_t(split) * slab) % 128 != 0); --split) {
      }
      if (split < 1) {
        refuse(r, path_id::tma, "tma.split_alignment",
               "box dimension 0 is " + std::to_string(d.box[0]) + " rows of " + std::to_string(slab) +
                   " B; TMA allows 256 rows per copy and each copy must land on a 128-byte boundary, but no split of " +
                   std::to_string(d.box[0]) + " into equal parts of at most 256 rows is a multiple of 128 B");
        split = d.box[0];
      }
    }
    r.tma_split_rows = split;
    r.tma_copies_per_box = d.box[0] / split;
    // A tensor-map box may not exceed the tensor in any dimension (the copy faults otherwise).
    for (int i = 0; i < d.rank; ++i) {
      const std::int64_t b = i == 0 ? split : d.box[i];
      if (b > d.extent[i])
        refuse(r, path_id::tma, "tma.box_within_extent",
               "box dimension " + std::to_string(i) + " is " + std::to_string(b) + " elements" +
                   (i == 0 && split != d.box[0] ? " (per TMA copy)" : "") + " but the tensor's extent there is " +
                   std::to_string(d.extent[i]) + "; a TMA box must fit inside the tensor");
    }
  } else {
    r.tma_split_rows = d.box[0];
    r.tma_copies_per_box = 1;
  }

  // ---- cp_async ----
  std::uint64_t bits = addr | inner_box_bytes;
  for (int i = 0; i + 1 < d.rank; ++i) bits |= std::uint64_t(d.stride[i]) * es;
  const unsigned w = widest(bits);
  if (w < 4) {
    std::string why;
    if (addr % 4) why = "the global address is " + std::to_string(addr % 4) + " B past a 4-byte boundary";
    else if (inner_box_bytes % 4) why = "the box row is " + std::to_string(inner_box_bytes) + " B";
    else {
      for (int i = 0; i + 1 < d.rank; ++i)
        if ((std::uint64_t(d.stride[i]) * es) % 4) { why = "the stride of " + dim_name(i, d.rank) + " is " + std::to_string(std::uint64_t(d.stride[i]) * es) + " B"; break; }
    }
    refuse(r, path_id::cp_async, "cp_async.alignment_4",
           "cp.async moves 4, 8 or 16 bytes, but " + why + ", so rows are only " + std::to_string(w) + "-byte aligned");
  } else {
    r.cp_async_max_chunk = int(w);
    r.notes.push_back({path_id::cp_async, "", "cp_async: chunks of up to " + std::to_string(w) +
                                                  " B (" + (w == 16 ? "cp.async.cg" : "cp.async.ca") + ")" +
                                                  (d.elem_bytes < int(w) ? "; boxes starting at a less aligned column use narrower chunks" : "")});
  }
  r.notes.push_back({path_id::staged, "", "staged: vector loads of up to " + std::to_string(w) + " B"});
  if (r.supports(path_id::tma) && d.rank >= 2 && r.tma_copies_per_box > 1)
    r.notes.push_back({path_id::tma, "", "tma: the box's dimension 0 (" + std::to_string(d.box[0]) + ") exceeds 256; each box is " +
                                             std::to_string(r.tma_copies_per_box) + " copies of " + std::to_string(r.tma_split_rows)});
  if (r.supports(path_id::tma) && d.rank >= 2)
    r.notes.push_back({path_id::tma, "", "tma: boxes whose first column is not 16-byte aligned (" + std::to_string(16 / std::min(16, d.elem_bytes)) +
                                             "-element multiples) move with thread loads: TMA needs 16-byte aligned inner coordinates"});
  if (r.supports(path_id::tma) && d.rank == 1)
    r.notes.push_back({path_id::tma, "", "tma: 1D boxes move with cp.async.bulk; boxes at a column that is not 16-byte aligned, and the bytes outside the tensor, move with thread loads and stores"});
  return r;
}

path_id select_path(unsigned mask, int cc, bool hip) {
  if (!hip && cc >= 90 && (mask & path_bit(path_id::tma))) return path_id::tma;
  if (!hip && cc >= 80 && (mask & path_bit(path_id::cp_async))) return path_id::cp_async;
  return path_id::staged;
}

#if !PORTER_HIP
namespace {

using encode_fn = PFN_cuTensorMapEncodeTiled_v12000;

encode_fn get_encoder(std::string* why) {
  static encode_fn fn = nullptr;
  static std::string err;
  static bool tried = false;
  if (!tried) {
    tried = true;
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || p == nullptr) {
      err = std::string("cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled, 12000) failed: ") +
            (e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found in the driver");
      cudaGetLastError();
    } else {
      fn = reinterpret_cast<encode_fn>(p);
    }
  }
  if (!fn && why) *why = err;
  return fn;
}

CUtensorMapDataType tma_type(int elem_bytes) {
  switch (elem_bytes) {
    case 1: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case 2: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case 4: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    default: return CU_TENSOR_MAP_DATA_TYPE_UINT64;  // 8, and 16 as two 8-byte elements
  }
}

}  // namespace
#endif  // !PORTER_HIP

namespace detail {

unsigned prepare_source(const source_desc& d, const device_caps* caps, void* tensor_map_out, int* tma_split_rows) {
#if !PORTER_HIP
  static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");
#endif
  support_report r = validate_source(d);
  std::memset(tensor_map_out, 0, 128);
  if (tma_split_rows) *tma_split_rows = r.tma_split_rows > 0 ? r.tma_split_rows : d.box[0];
  unsigned mask = r.mask;
  if (!caps || caps->hip || !caps->has_tma()) mask &= ~path_bit(path_id::tma);
  if (!caps || caps->hip || !caps->has_cp_async()) mask &= ~path_bit(path_id::cp_async);
#if PORTER_HIP
  mask &= ~(path_bit(path_id::tma) | path_bit(path_id::cp_async));  // a HIP build runs on AMD GPUs only
#else
  if ((mask & path_bit(path_id::tma)) && d.rank >= 2) {
    std::string why;
    encode_fn enc = get_encoder(&why);
    if (!enc) throw error(errc::driver, "tma.encode", why);
    const int R = d.rank;
    const int scale = d.elem_bytes == 16 ? 2 : 1;
    cuuint64_t dims[5], strides[4];
    cuuint32_t box[5], estr[5];
    for (int i = 0; i < R; ++i) {
      const int j = R - 1 - i;  // porter: outermost first; driver: innermost first
      dims[i] = cuuint64_t(d.extent[j]) * (i == 0 ? scale : 1);
      box[i] = cuuint32_t(j == 0 ? r.tma_split_rows : d.box[j]) * (i == 0 ? scale : 1);
      estr[i] = 1;
      if (i >= 1) strides[i - 1] = cuuint64_t(d.stride[j]) * cuuint64_t(d.elem_bytes);
    }
    CUresult res = enc(static_cast<CUtensorMap*>(tensor_map_out), tma_type(d.elem_bytes), cuuint32_t(R), const_cast<void*>(d.ptr),
                       dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (res != CUDA_SUCCESS) {
      std::ostringstream m;
      m << "cuTensorMapEncodeTiled returned " << int(res) << " for rank " << R << ", element " << d.elem_bytes
        << " B, address " << d.ptr << ", dims (innermost first) [";
      for (int i = 0; i < R; ++i) m << (i ? ", " : "") << dims[i];
      m << "], strides B [";
      for (int i = 0; i + 1 < R; ++i) m << (i ? ", " : "") << strides[i];
      m << "], box [";
      for (int i = 0; i < R; ++i) m << (i ? ", " : "") << box[i];
      m << "]";
      throw error(errc::driver, "tma.encode", m.str());
    }
  }
#endif  // PORTER_HIP
  return mask;
}

}  // namespace detail

std::string explain(const source_desc& d, const device_caps* caps) {
  support_report r = validate_source(d);
  std::ostringstream o;
  o << "tiled source: rank " << d.rank << ", " << d.elem_bytes << "-byte elements, extents [";
  for (int i = 0; i < d.rank; ++i) o << (i ? ", " : "") << d.extent[i];
  o << "], strides [";
  for (int i = 0; i < d.rank; ++i) o << (i ? ", " : "") << d.stride[i];
  o << "] elements, box [";
  for (int i = 0; i < d.rank; ++i) o << (i ? ", " : "") << d.box[i];
  o << "]\n";
  o << "device: " << (caps ? caps->describe() : std::string("none (no usable GPU)")) << "\n";
  const path_id all[3] = {path_id::tma, path_id::cp_async, path_id::staged};
  unsigned mask = r.mask;
  for (path_id p : all) {
    bool layout_ok = r.supports(p);
    std::string device_why;
    if (p == path_id::tma && (!caps || caps->hip || !caps->has_tma()))
      device_why = !caps       ? "no device to run TMA on"
                   : caps->hip ? "device '" + caps->name + "' is an AMD GPU; TMA is an NVIDIA instruction family (sm_90+)"
                               : "device '" + caps->name + "' has no TMA (needs compute capability 9.0; it has " +
                                     std::to_string(caps->cc_major) + "." + std::to_string(caps->cc_minor) + ")";
    if (p == path_id::cp_async && (!caps || caps->hip || !caps->has_cp_async()))
      device_why = !caps       ? "no device to run cp.async on"
                   : caps->hip ? "device '" + caps->name + "' is an AMD GPU; cp.async is an NVIDIA instruction family (sm_80+)"
                               : "device '" + caps->name + "' has no cp.async (needs compute capability 8.0; it has " +
                                     std::to_string(caps->cc_major) + "." + std::to_string(caps->cc_minor) + ")";
    if (!device_why.empty()) mask &= ~path_bit(p);
    o << path_id_name(p) << ": " << (layout_ok && device_why.empty() ? "yes" : "refused");
    o << "\n";
    for (const auto& v : r.refusals)
      if (v.path == p) o << "  - " << v.message << " [rule " << v.rule << "]\n";
    if (!device_why.empty()) o << "  - " << device_why << " [rule " << path_id_name(p) << ".device]\n";
    for (const auto& v : r.notes)
      if (v.path == p && layout_ok && device_why.empty()) o << "  - " << v.message << "\n";
  }
  o << "automatic: " << path_id_name(select_path(mask, caps ? caps->compute_capability() : 0, caps && caps->hip)) << "\n";
  return o.str();
}

}  // namespace porter
