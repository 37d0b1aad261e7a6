// bench/baselines/cub_stream.cu — stream through cub::DeviceTransform (see cub_stream.hpp).
// Source: CCCL 3.0 cub/device/device_transform.cuh (Transform(input, output, num_items, op, stream)).
#include "cub_stream.hpp"

#include <cub/device/device_transform.cuh>
#include <cuda/version>

#include <climits>
#include <stdexcept>
#include <string>

namespace pb {
namespace {

/// y = fmaf(a, x, b): the transform operation (a trivially copyable function object).
struct axpb {
  float a, b;
  __device__ float operator()(float x) const { return fmaf(a, x, b); }
};

}  // namespace

launcher bind_cub_stream(const stream_problem& p) {
  if (p.n < 0 || p.n > INT_MAX)
    throw std::invalid_argument("the cub::DeviceTransform stream row takes n < 2^31 items (got " + std::to_string(p.n) + ")");
  return [p](cudaStream_t s) {
    const cudaError_t e = cub::DeviceTransform::Transform(p.x, p.y, int(p.n), axpb{p.a, p.b}, s);
    if (e != cudaSuccess) throw std::runtime_error(std::string("cub::DeviceTransform::Transform: ") + cudaGetErrorString(e));
  };
}

std::string cub_version() {
  return "CCCL " + std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
         std::to_string(CCCL_PATCH_VERSION) + " (cub::DeviceTransform)";
}

}  // namespace pb
