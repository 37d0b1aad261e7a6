// core/src/device_reader_hip.cpp — the HIP reader of the device query (device_reader.hpp): HIP
// Runtime API, "Device Management" and "Version Management"; dlopen(3) of libamdhip64; the nodes
// on /dev/kfd and /dev/dri/renderD<N>. The HIP build's only (cmake/hip); AMD devices report
// hip = true, so the core never offers them tma or cp_async, and no tensor map is encoded for them.
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>

#include <cstdlib>
#include <string>

#include "device_reader.hpp"

// "libamdhip64.so.5" for ROCm 5: the runtime's soname, from the headers the core was compiled with.
#define PORTER_HIP_READER_STR2(x) #x
#define PORTER_HIP_READER_STR(x) PORTER_HIP_READER_STR2(x)

namespace porter::detail {
namespace {

runtime_status status_of(hipError_t e) {
  runtime_status s;
  s.code = int(e);
  if (e != hipSuccess) {
    s.name = hipGetErrorName(e);
    s.text = hipGetErrorString(e);
  }
  return s;
}

/// hipDriverGetVersion reports HIP_VERSION's encoding (major * 10^7 + minor * 10^5 + patch) on
/// ROCm; the observations use 1000 * major + 10 * minor for every vendor.
int as_major_minor(int v) { return v >= 100000 ? v / 10000000 * 1000 + v / 100000 % 100 * 10 : v; }

}  // namespace

const reader_names& reader_calls() {
  static const reader_names names{"hipGetDeviceCount", "hipGetDevice", "hipGetDeviceProperties"};
  return names;
}

runtime_status read_device_count(int& count) {
  count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  (void)hipGetLastError();  // clear the error so that later calls start clean
  return status_of(e);
}

runtime_status read_current_device(int& device) { return status_of(hipGetDevice(&device)); }

runtime_status read_device_caps(int device, device_caps& c) {
  hipDeviceProp_t p{};
  if (const hipError_t e = hipGetDeviceProperties(&p, device); e != hipSuccess) {
    (void)hipGetLastError();
    return status_of(e);
  }
  c = device_caps{};
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
  return {};
}

count_outcome classify_count(const runtime_status& s, int count) {
  if (s.ok()) return count > 0 ? count_outcome::devices : count_outcome::zero_devices;
  switch (hipError_t(s.code)) {
    case hipErrorNoDevice: return count_outcome::no_device;
    case hipErrorInsufficientDriver: return count_outcome::insufficient_driver;
    default: return count_outcome::other_error;
  }
}

gpu_stack_observations observe_gpu_stack(count_outcome outcome, const runtime_status& status) {
  gpu_stack_observations o;
  o.hip = true;
  o.count_call = reader_calls().count;
  o.outcome = outcome;
  o.count_status = status;
  // The HIP runtime library (the program links it; a loader path that lost it shows here).
  const char* const libraries[] = {"libamdhip64.so." PORTER_HIP_READER_STR(HIP_VERSION_MAJOR), "libamdhip64.so"};
  o.driver_library = libraries[0];
  o.driver_library_loads = false;
  for (const char* lib : libraries) {
    dlerror();
    if (void* h = ::dlopen(lib, RTLD_LAZY | RTLD_LOCAL)) {
      ::dlclose(h);
      o.driver_library = lib;
      o.driver_library_loads = true;
      o.driver_library_error.clear();
      break;
    }
    if (const char* e = dlerror(); e && o.driver_library_error.empty()) o.driver_library_error = e;
  }
  // The amdgpu kernel driver's compute node and the GPUs' render nodes.
  o.nodes.push_back(node_at("/dev/kfd"));
  o.nodes.push_back(numbered_nodes("/dev/dri", "renderD", "128"));
  int drv = 0;
  if (hipDriverGetVersion(&drv) == hipSuccess) o.driver_version = as_major_minor(drv);
  (void)hipGetLastError();
  o.runtime_version = HIP_VERSION_MAJOR * 1000 + HIP_VERSION_MINOR * 10;
  for (const char* name : {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(name)) o.visible_devices.push_back(std::string(name) + "=\"" + v + "\"");
  return o;
}

}  // namespace porter::detail
