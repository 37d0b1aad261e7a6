// Device capability query, HIP flavour (HIP Runtime API, "Device Management"); mirrors device.cpp.
// Built instead of device.cpp in the HIP build (cmake/hip). AMD devices report hip = true, so the
// core never offers them tma or cp_async, and no tensor map is ever encoded for them.
#include <hip/hip_runtime_api.h>

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
  if (hipError_t e = hipGetDeviceCount(&count); e != hipSuccess || count == 0) {
    if (why) *why = std::string("hipGetDeviceCount: ") + (e != hipSuccess ? hipGetErrorString(e) : "no AMD GPU (HIP device)");
    (void)hipGetLastError();  // clear the error so later calls start clean
    return std::nullopt;
  }
  if (device < 0) {
    if (hipError_t e = hipGetDevice(&device); e != hipSuccess) {
      if (why) *why = std::string("hipGetDevice: ") + hipGetErrorString(e);
      return std::nullopt;
    }
  }
  if (device >= count) {
    if (why) *why = "device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " devices)";
    return std::nullopt;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(device); it != cache.end()) return it->second;
  hipDeviceProp_t p{};
  if (hipError_t e = hipGetDeviceProperties(&p, device); e != hipSuccess) {
    if (why) *why = std::string("hipGetDeviceProperties: ") + hipGetErrorString(e);
    return std::nullopt;
  }
  device_caps c;
  c.device = device;
  c.name = p.name;
  c.hip = true;
  // gcnArchName is "gfx90a:sramecc+:xnack-": the target, then its feature settings.
  c.arch = p.gcnArchName;
  if (auto colon = c.arch.find(':'); colon != std::string::npos) c.arch.resize(colon);
  c.cc_major = p.major;
  c.cc_minor = p.minor;
  c.sm_count = p.multiProcessorCount;
  c.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  c.warp_size = p.warpSize;
  // LDS a workgroup may use: 64 KiB on gfx90a and gfx942 (sharedMemPerBlock). Where the runtime
  // reports a larger opt-in limit (newer ROCm, larger-LDS targets), that one.
  c.smem_per_block_optin = p.sharedMemPerBlock;
  int v = 0;
  if (hipDeviceGetAttribute(&v, hipDeviceAttributeSharedMemPerBlockOptin, device) == hipSuccess && v > 0 &&
      std::size_t(v) > c.smem_per_block_optin)
    c.smem_per_block_optin = std::size_t(v);
  c.smem_per_sm = p.maxSharedMemoryPerMultiProcessor;
  c.l2_bytes = std::size_t(p.l2CacheSize);
  c.sm_clock_khz = p.clockRate;
  c.mem_clock_khz = p.memoryClockRate;
  c.mem_bus_width_bits = p.memoryBusWidth;
  (void)hipGetLastError();
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
