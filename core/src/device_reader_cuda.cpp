// core/src/device_reader_cuda.cpp — the CUDA reader of the device query (device_reader.hpp): CUDA
// Runtime API, "Device Management" and "Version Management"; dlopen(3) of the driver library;
// the device nodes through device_nodes.cpp. The CUDA build's only (CMakeLists.txt); the HIP build uses
// device_reader_hip.cpp.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "device_reader.hpp"

namespace porter::detail {
namespace {

runtime_status status_of(cudaError_t e) {
  runtime_status s;
  s.code = int(e);
  if (e != cudaSuccess) {
    s.name = cudaGetErrorName(e);
    s.text = cudaGetErrorString(e);
  }
  return s;
}

}  // namespace

const reader_names& reader_calls() {
  static const reader_names names{"cudaGetDeviceCount", "cudaGetDevice", "cudaGetDeviceProperties"};
  return names;
}

runtime_status read_device_count(int& count) {
  count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  cudaGetLastError();  // the error is not sticky: clear it so that later calls start clean
  return status_of(e);
}

runtime_status read_current_device(int& device) { return status_of(cudaGetDevice(&device)); }

runtime_status read_device_caps(int device, device_caps& c) {
  cudaDeviceProp p{};
  if (const cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) {
    cudaGetLastError();
    return status_of(e);
  }
  c = device_caps{};
  c.device = device;
  c.name = p.name;
  c.hip = false;
  c.cc_major = p.major;
  c.cc_minor = p.minor;
  c.arch = "sm_" + std::to_string(p.major * 10 + p.minor);
  c.sm_count = p.multiProcessorCount;
  c.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  c.warp_size = p.warpSize;
  c.smem_per_block_optin = p.sharedMemPerBlockOptin;
  c.smem_per_sm = p.sharedMemPerMultiprocessor;
  c.l2_bytes = std::size_t(p.l2CacheSize);
  int v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, device) == cudaSuccess) c.sm_clock_khz = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, device) == cudaSuccess) c.mem_clock_khz = v;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess) c.mem_bus_width_bits = v;
  cudaGetLastError();  // an attribute this runtime does not know leaves 0, not an error for later calls
  return {};
}

count_outcome classify_count(const runtime_status& s, int count) {
  if (s.ok()) return count > 0 ? count_outcome::devices : count_outcome::zero_devices;
  switch (cudaError_t(s.code)) {
    case cudaErrorNoDevice: return count_outcome::no_device;
    case cudaErrorInsufficientDriver: return count_outcome::insufficient_driver;
    default: return count_outcome::other_error;
  }
}

gpu_stack_observations observe_gpu_stack(count_outcome outcome, const runtime_status& status) {
  gpu_stack_observations o;
  o.hip = false;
  o.count_call = reader_calls().count;
  o.outcome = outcome;
  o.count_status = status;
  // The driver's user-space library, which the runtime itself loads with dlopen.
  o.driver_library = "libcuda.so.1";
  dlerror();
  if (void* h = ::dlopen(o.driver_library.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
    ::dlclose(h);
  } else {
    o.driver_library_loads = false;
    if (const char* e = dlerror()) o.driver_library_error = e;
  }
  // The kernel driver's nodes; WSL 2 has none of them and reaches the GPU through /dev/dxg.
  o.nodes_not_needed = ::access("/dev/dxg", F_OK) == 0;
  o.nodes.push_back(node_at("/dev/nvidiactl"));
  o.nodes.push_back(numbered_nodes("/dev", "nvidia", "0"));
  int drv = 0;
  if (cudaDriverGetVersion(&drv) == cudaSuccess) o.driver_version = drv;  // 0 when there is no driver
  cudaGetLastError();
  o.runtime_version = CUDART_VERSION;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) o.visible_devices.push_back(std::string("CUDA_VISIBLE_DEVICES=\"") + v + "\"");
  return o;
}

}  // namespace porter::detail
