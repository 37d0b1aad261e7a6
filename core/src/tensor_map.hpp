// core/src/tensor_map.hpp — the tma lowering's host half: encoding a CUtensorMap (internal).
#pragma once
#include "porter/source.hpp"

namespace porter::detail {

/// The arguments porter gives cuTensorMapEncodeTiled for a source (driver order: innermost first),
/// computed without the driver so that the host tests can check them. Enumerations hold the
/// values of the driver's enums (cuda.h): data_type CU_TENSOR_MAP_DATA_TYPE_UINT8/16/32/64,
/// swizzle CU_TENSOR_MAP_SWIZZLE_NONE/32B/64B/128B, and so on.
struct tensor_map_params {
  int rank = 0;
  int data_type = 0;                          ///< CUtensorMapDataType
  unsigned long long dims[max_rank] = {};     ///< globalDim, elements (16-byte elements count twice)
  unsigned long long strides[max_rank - 1] = {};  ///< globalStrides, bytes, of dimensions 1..rank-1
  unsigned box[max_rank] = {};                ///< boxDim, elements (dimension 0 of porter: split_rows)
  unsigned element_strides[max_rank] = {};    ///< elementStrides (all 1)
  int interleave = 0;                         ///< CUtensorMapInterleave: NONE
  int swizzle = 0;                            ///< CUtensorMapSwizzle, from source_desc::swizzle
  int l2_promotion = 0;                       ///< CUtensorMapL2promotion: L2_256B
  int oob_fill = 0;                           ///< CUtensorMapFloatOOBfill: NONE (zeros)
};
/// The encode arguments of `d` with box dimension 0 of `split_rows` (no driver call).
tensor_map_params tensor_map_params_for(const source_desc& d, int split_rows);

/// Encode the tensor map of `d` (rank >= 2, every tma rule holding) into `out` (128 bytes) with
/// box dimension 0 of `split_rows`, through cuTensorMapEncodeTiled reached with
/// cudaGetDriverEntryPointByVersion (porter never links libcuda). Throws porter::error
/// (errc::driver, rule tma.encode) naming every parameter when the driver refuses.
/// Under HIP there are no tensor maps: throws (never called, the tma path is masked off).
void encode_tensor_map(const source_desc& d, int split_rows, void* out);

}  // namespace porter::detail
