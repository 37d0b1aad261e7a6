// core/src/tensor_map.hpp — the tma lowering's host half: encoding a CUtensorMap (internal).
#pragma once
#include "porter/source.hpp"

namespace porter::detail {

/// Encode the tensor map of `d` (rank >= 2, every tma rule holding) into `out` (128 bytes) with
/// box dimension 0 of `split_rows`, through cuTensorMapEncodeTiled reached with
/// cudaGetDriverEntryPointByVersion (porter never links libcuda). Throws porter::error
/// (errc::driver, rule tma.encode) naming every parameter when the driver refuses.
/// Under HIP there are no tensor maps: throws (never called, the tma path is masked off).
void encode_tensor_map(const source_desc& d, int split_rows, void* out);

}  // namespace porter::detail
