// core/src/tensor_map.cpp — cuTensorMapEncodeTiled for tiled sources that the tma path reads.
//
// Source: CUDA Driver API, cuTensorMapEncodeTiled; CUDA Runtime API, cudaGetDriverEntryPointByVersion.
// Coordinates, extents and strides are outermost first in porter and innermost first in the driver.
// 16-byte elements travel as pairs of 8-byte elements (there is no 16-byte TMA data type).
#include "tensor_map.hpp"

#include "porter/config.hpp"
#include "porter/error.hpp"

#if !PORTER_HIP  // HIP build (cmake/hip): no tensor maps; AMD devices never allow the tma path
#  include <cuda.h>
#  include <cuda_runtime.h>
#  include <cudaTypedefs.h>
#endif

#include <sstream>
#include <string>

namespace porter::detail {

#if !PORTER_HIP
namespace {

using encode_fn = PFN_cuTensorMapEncodeTiled_v12000;
static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");

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

CUtensorMapDataType tma_type(int elem_bytes, element_kind kind) {
  // A destination that reduces: the data type cp.reduce.async.bulk.tensor reduces in.
  switch (kind) {
    case element_kind::f32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case element_kind::s32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case element_kind::u32: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case element_kind::u64: return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    case element_kind::raw: break;
  }
  // Bytes (copies and stores): an unsigned integer of the element's size.
  switch (elem_bytes) {
    case 1: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case 2: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case 4: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    default: return CU_TENSOR_MAP_DATA_TYPE_UINT64;  // 8, and 16 as two 8-byte elements
  }
}

/// The tensor map's swizzle for a porter swizzle span (porter/swizzle.hpp: the same permutation).
CUtensorMapSwizzle tma_swizzle(int span) {
  switch (span) {
    case 32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128: return CU_TENSOR_MAP_SWIZZLE_128B;
    default: return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

}  // namespace

tensor_map_params tensor_map_params_for(const source_desc& d, int split_rows) {
  tensor_map_params t;
  const int R = d.rank;
  const int scale = d.elem_bytes == 16 ? 2 : 1;
  t.rank = R;
  t.data_type = int(tma_type(d.elem_bytes, d.kind));
  for (int i = 0; i < R; ++i) {
    const int j = R - 1 - i;  // porter: outermost first; driver: innermost first
    t.dims[i] = (unsigned long long)(d.extent[j]) * (i == 0 ? scale : 1);
    t.box[i] = unsigned(j == 0 ? split_rows : d.box[j]) * unsigned(i == 0 ? scale : 1);
    t.element_strides[i] = 1;
    if (i >= 1) t.strides[i - 1] = (unsigned long long)(d.stride[j]) * (unsigned long long)(d.elem_bytes);
  }
  t.interleave = int(CU_TENSOR_MAP_INTERLEAVE_NONE);
  t.swizzle = int(tma_swizzle(d.swizzle));
  t.l2_promotion = int(CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  t.oob_fill = int(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return t;
}

void encode_tensor_map(const source_desc& d, int split_rows, void* out) {
  std::string why;
  encode_fn enc = get_encoder(&why);
  if (!enc) throw error(errc::driver, "tma.encode", why);
  // cuTensorMapEncodeTiled needs a current context (CUDA_ERROR_INVALID_CONTEXT, 201, otherwise: seen
  // on the H200 when a source was the program's first CUDA call). cudaFree(nullptr) makes the
  // runtime's primary context of the current device current, as any runtime call would.
  if (cudaFree(nullptr) != cudaSuccess) cudaGetLastError();
  const tensor_map_params t = tensor_map_params_for(d, split_rows);
  const int R = t.rank;
  cuuint64_t dims[max_rank], strides[max_rank - 1];
  cuuint32_t box[max_rank], estr[max_rank];
  for (int i = 0; i < R; ++i) {
    dims[i] = t.dims[i];
    box[i] = t.box[i];
    estr[i] = t.element_strides[i];
    if (i >= 1) strides[i - 1] = t.strides[i - 1];
  }
  CUresult res = enc(static_cast<CUtensorMap*>(out), CUtensorMapDataType(t.data_type), cuuint32_t(R), const_cast<void*>(d.ptr), dims,
                     strides, box, estr, CUtensorMapInterleave(t.interleave), CUtensorMapSwizzle(t.swizzle),
                     CUtensorMapL2promotion(t.l2_promotion), CUtensorMapFloatOOBfill(t.oob_fill));
  if (res != CUDA_SUCCESS) {
    std::ostringstream m;
    m << "cuTensorMapEncodeTiled returned " << int(res) << " for rank " << R << ", element " << d.elem_bytes << " B, address " << d.ptr
      << ", dims (innermost first) [";
    for (int i = 0; i < R; ++i) m << (i ? ", " : "") << dims[i];
    m << "], strides B [";
    for (int i = 0; i + 1 < R; ++i) m << (i ? ", " : "") << strides[i];
    m << "], box [";
    for (int i = 0; i < R; ++i) m << (i ? ", " : "") << box[i];
    m << "], swizzle " << d.swizzle << " B";
    throw error(errc::driver, "tma.encode", m.str());
  }
}
#else
tensor_map_params tensor_map_params_for(const source_desc&, int) {
  throw error(errc::driver, "tma.encode", "a HIP build encodes no tensor maps (AMD GPUs have no TMA)");
}
void encode_tensor_map(const source_desc&, int, void*) {
  throw error(errc::driver, "tma.encode", "a HIP build encodes no tensor maps (AMD GPUs have no TMA)");
}
#endif

}  // namespace porter::detail
