// tests/hip/forced_nvidia_path.fail.hip — must NOT compile under HIP: a pipeline forced to an NVIDIA
// path (FORCED_PATH = tma or cp_async). The error must say so in words (hip.fail.* in
// tests/hip/CMakeLists.txt). With -DPORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH=1 it compiles (control).
#include <porter/porter.hpp>

using box = porter::box<float, 8, 64>;

__global__ void forced(const __grid_constant__ porter::tiled_source<box> src, float* out) {
  extern __shared__ unsigned char smem[];
  porter::pipeline<porter::path::FORCED_PATH, 2, box> pipe(smem);
  porter::for_each_tile(pipe, src, 1, [](int) { return porter::coord<2>{0, 0}; },
                        [&](const porter::tile_view<box>& t, int) { out[threadIdx.x] = t(0, threadIdx.x); });
}
