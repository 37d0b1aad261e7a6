// porter/schedule_types.hpp — porter::tile_schedule: which tiles each CTA of a launch runs
// (vocabulary: plain data, host and device; porter::plan_schedule builds one on the host).
#pragma once
#include "porter/config.hpp"

namespace porter {

/// Which tiles each CTA of a launch processes. Trivially copyable: build it on the host with
/// porter::plan_schedule (or fill it by hand) and pass it to the kernel by value; launch
/// `grid_ctas()` CTAs in x.
struct tile_schedule {
  long long tiles = 0;     ///< tiles in the whole problem, >= 0
  int tiles_per_cta = 1;   ///< blocked schedule: consecutive tiles per CTA (>= 1); 0: persistent
  int grid = 0;            ///< CTAs of the launch (blocked: ceil(tiles / tiles_per_cta); persistent: any > 0)

  /// True for the persistent round-robin schedule.
  PORTER_HOST_DEVICE bool persistent() const { return tiles_per_cta == 0; }
  /// CTAs to launch (gridDim.x).
  PORTER_HOST_DEVICE int grid_ctas() const { return grid; }
#if PORTER_GPU_COMPILER
  /// Tiles of this CTA (blockIdx.x).
  PORTER_DEVICE int count() const {
    const long long b = blockIdx.x;
    if (persistent()) {
      const long long g = gridDim.x;
      return b < tiles ? int((tiles - 1 - b) / g + 1) : 0;
    }
    const long long first = b * tiles_per_cta;
    const long long left = tiles - first;
    return left <= 0 ? 0 : int(left < tiles_per_cta ? left : tiles_per_cta);
  }
  /// Tile index of this CTA's step i (0 <= i < count()).
  PORTER_DEVICE long long tile(int i) const {
    return persistent() ? static_cast<long long>(blockIdx.x) + static_cast<long long>(i) * gridDim.x
                        : static_cast<long long>(blockIdx.x) * tiles_per_cta + i;
  }
#endif
};

}  // namespace porter
