// Device capability query (CUDA Runtime API, "Device Management"). The HIP flavour is device_hip.cpp.
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <string>

#include "porter/device.hpp"
#include "porter/error.hpp"

namespace porter {

std::optional<device_caps> query_device(int device, std::string* why) {
  static std::mutex mu;
  static std::map<int, device_caps> cache;
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    if (why) *why = std::string("cudaGetDeviceCount: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return std::nullopt;
  }
  if (device < 0) {
    if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
      if (why) *why = std::string("cudaGetDevice: ") + cudaGetErrorString(e);
      return std::nullopt;
    }
  }
  if (device >= count) {
    if (why) *why = "device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " devices)";
    return std::nullopt;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(device); it != cache.end()) return it->second;
  cudaDeviceProp p{};
  if (cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) {
    if (why) *why = std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(e);
    return std::nullopt;
  }
  device_caps c;
  c.device = device;
  c.name = p.name;
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
  cudaGetLastError();
  cache[device] = c;
  return c;
}

device_caps require_device(int device) {
  std::string why;
  auto c = query_device(device, &why);
  if (!c) throw error(errc::no_device, "device.available", "no usable GPU: " + why);
  return *c;
}

}  // namespace porter
