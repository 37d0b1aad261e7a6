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

CUtensorMapDataType tma_type(int elem_bytes) {
  switch (elem_bytes) {
    case 1: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case 2: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case 4: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    default: return CU_TENSOR_MAP_DATA_TYPE_UINT64;  // 8, and 16 as two 8-byte elements
  }
}

}  // namespace

void encode_tensor_map(const source_desc& d, int split_rows, void* out) {
  std::string why;
  encode_fn enc = get_encoder(&why);
  if (!enc) throw error(errc::driver, "tma.encode", why);
  const int R = d.rank;
  const int scale = d.elem_bytes == 16 ? 2 : 1;
  cuuint64_t dims[max_rank], strides[max_rank - 1];
  cuuint32_t box[max_rank], estr[max_rank];
  for (int i = 0; i < R; ++i) {
    const int j = R - 1 - i;  // porter: outermost first; driver: innermost first
    dims[i] = cuuint64_t(d.extent[j]) * (i == 0 ? scale : 1);
    box[i] = cuuint32_t(j == 0 ? split_rows : d.box[j]) * (i == 0 ? scale : 1);
    estr[i] = 1;
    if (i >= 1) strides[i - 1] = cuuint64_t(d.stride[j]) * cuuint64_t(d.elem_bytes);
  }
  CUresult res = enc(static_cast<CUtensorMap*>(out), tma_type(d.elem_bytes), cuuint32_t(R), const_cast<void*>(d.ptr), dims, strides,
                     box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (res != CUDA_SUCCESS) {
    std::ostringstream m;
    m << "cuTensorMapEncodeTiled returned " << int(res) << " for rank " << R << ", element " << d.elem_bytes << " B, address " << d.ptr
      << ", dims (innermost first) [";
    for (int i = 0; i < R; ++i) m << (i ? ", " : "") << dims[i];
    m << "], strides B [";
    for (int i = 0; i + 1 < R; ++i) m << (i ? ", " : "") << strides[i];
    m << "], box [";
    for (int i = 0; i < R; ++i) m << (i ? ", " : "") << box[i];
    m << "]";
    throw error(errc::driver, "tma.encode", m.str());
  }
}
#else
void encode_tensor_map(const source_desc&, int, void*) {
  throw error(errc::driver, "tma.encode", "a HIP build encodes no tensor maps (AMD GPUs have no TMA)");
}
#endif

}  // namespace porter::detail
