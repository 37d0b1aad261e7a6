// core/src/device.cpp — the device query skeleton, shared by the CUDA and HIP builds: caching,
// ordinal handling and every message. The runtime calls are the per-vendor reader's
// (device_reader_cuda.cpp, device_reader_hip.cpp; the interface is device_reader.hpp).
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "device_reader.hpp"
#include "porter/device.hpp"
#include "porter/error.hpp"

namespace porter {
namespace detail {

std::string format_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string runtime_report(const gpu_stack_observations& o) {
  std::string r = " [" + o.count_call + ": ";
  if (o.count_status.ok())
    r += "success, " + std::string(o.outcome == count_outcome::zero_devices ? "0 devices" : "devices found");
  else
    r += (o.count_status.name.empty() ? "error " + std::to_string(o.count_status.code) : o.count_status.name) +
         (o.count_status.text.empty() || o.count_status.text == o.count_status.name ? "" : ": " + o.count_status.text);  // ROCm 5.2's text is the name
  return r + "]";
}

}  // namespace

std::string no_device_reason(const gpu_stack_observations& o) {
  const char* vendor = o.hip ? "AMD" : "NVIDIA";
  const std::string report = runtime_report(o);
  std::vector<std::string> absent, denied;
  if (!o.nodes_not_needed)
    for (const device_node& n : o.nodes) {
      if (!n.present) absent.push_back(n.path);
      else if (!n.usable) denied.push_back(n.path);
    }

  // 1. No driver library: nothing else can work, whatever the runtime says.
  if (!o.driver_library_loads) {
    std::string s = o.hip ? "no HIP runtime: " + o.driver_library + " cannot be loaded"
                          : "no NVIDIA driver: " + o.driver_library + " cannot be loaded";
    if (!o.driver_library_error.empty()) s += " (" + o.driver_library_error + ")";
    if (!absent.empty()) s += ", and " + join(absent, ", ") + (absent.size() > 1 ? " are" : " is") + " absent";
    s += o.hip ? ". Install ROCm's HIP runtime (Debian: libamdhip64-5)"
               : ". The CUDA toolkit does not contain the driver: install the NVIDIA driver, or start the container "
                 "with the GPU (e.g. docker run --gpus all, with the NVIDIA Container Toolkit)";
    if (!o.hip && o.outcome == count_outcome::insufficient_driver)
      s += ". The runtime reports this as an insufficient driver version although there is no driver at all";
    return s + report;
  }
  // 2. A device node is missing: the kernel driver is not loaded, or the container was not given it.
  if (!absent.empty()) {
    std::string s = o.driver_library + " loads, but " + join(absent, ", ") + (absent.size() > 1 ? " are" : " is") +
                    " absent: the " + (o.hip ? "amdgpu" : "nvidia") +
                    " kernel driver is not loaded, or this container was started without the GPU devices";
    s += o.hip ? " (docker run --device=/dev/kfd --device=/dev/dri)" : " (docker run --gpus all)";
    return s + report;
  }
  // 3. A node exists but this process may not open it.
  if (!denied.empty()) {
    std::string s = "this process may not open " + join(denied, ", ") +
                    " for reading and writing: add the user to the group that owns " +
                    (denied.size() > 1 ? "them" : "it") + (o.hip ? " (usually render and video)" : " (often video)") +
                    ", or run with the permissions the " + vendor + " driver's device nodes require";
    return s + report;
  }
  // 4. The driver is older than the runtime the program was built with.
  if (o.outcome == count_outcome::insufficient_driver && o.driver_version > 0 && o.runtime_version > 0 &&
      o.driver_version < o.runtime_version) {
    const std::string what = o.hip ? "HIP" : "CUDA";
    const std::string drv = format_version(o.driver_version), rt = format_version(o.runtime_version);
    std::string s = "the " + std::string(vendor) + " driver is too old for this program: it supports " + what + " up to " + drv;
    if (!o.hip) s += " (cudaDriverGetVersion: " + std::to_string(o.driver_version) + ")";
    s += ", and the program's " + what + " runtime is " + rt;
    if (!o.hip) s += " (CUDART_VERSION: " + std::to_string(o.runtime_version) + ")";
    s += ": install a driver for " + what + " " + rt + " or newer";
    return s + report;
  }
  // 5. The driver sees no device: first suspect a visible-devices variable.
  if (o.outcome == count_outcome::no_device || o.outcome == count_outcome::zero_devices) {
    std::string s;
    if (!o.visible_devices.empty())
      s = "no " + std::string(vendor) + " GPU is visible with " + join(o.visible_devices, " ") +
          ": unset it, or name a GPU that exists";
    else if (o.hip)
      s = "the AMD GPU driver is present (/dev/kfd), but HIP finds no GPU it supports: this ROCm may not support the "
          "installed GPU, or there is none";
    else
      s = "the NVIDIA driver" + (o.driver_version > 0 ? " (CUDA " + format_version(o.driver_version) + ")" : std::string()) +
          " is loaded, but it reports no CUDA device";
    return s + report;
  }
  // 6. Anything else: the runtime's own words are the best there is.
  return o.count_call + " failed, with the " + vendor + " driver library and device nodes in place" + report;
}

}  // namespace detail

namespace {

/// The process-wide state: the device count (read once: the runtime fixes its device list when it
/// initialises) and each device's capabilities (read on first use).
struct device_cache {
  std::mutex mu;
  bool counted = false;
  int count = 0;
  std::string no_device_why;  // set when count is 0: no_device_reason()
  std::map<int, device_caps> caps;
};

device_cache& cache() {
  static device_cache c;
  return c;
}

}  // namespace

std::optional<device_caps> query_device(int device, std::string* why) {
  using namespace detail;
  const reader_names& calls = reader_calls();
  device_cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  if (!c.counted) {
    int n = 0;
    const runtime_status st = read_device_count(n);
    const count_outcome outcome = classify_count(st, n);
    c.count = outcome == count_outcome::devices ? n : 0;
    if (c.count == 0) c.no_device_why = no_device_reason(observe_gpu_stack(outcome, st));
    c.counted = true;
  }
  if (c.count == 0) {
    if (why) *why = c.no_device_why;
    return std::nullopt;
  }
  if (device < 0) {
    if (const runtime_status st = read_current_device(device); !st.ok()) {
      if (why) *why = std::string(calls.current) + " failed: " + st.name + ": " + st.text;
      return std::nullopt;
    }
  }
  if (device >= c.count) {
    if (why)
      *why = "device " + std::to_string(device) + " does not exist: there " + (c.count == 1 ? "is 1 device" : "are " + std::to_string(c.count) + " devices") +
             " (ordinals 0.." + std::to_string(c.count - 1) + ")";
    return std::nullopt;
  }
  if (auto it = c.caps.find(device); it != c.caps.end()) return it->second;
  device_caps caps;
  if (const runtime_status st = read_device_caps(device, caps); !st.ok()) {
    if (why) *why = std::string(calls.properties) + "(device " + std::to_string(device) + ") failed: " + st.name + ": " + st.text;
    return std::nullopt;
  }
  c.caps[device] = caps;
  return caps;
}

device_caps require_device(int device) {
  std::string why;
  auto c = query_device(device, &why);
  if (!c) throw error(errc::no_device, "device.available", "no usable GPU: " + why);
  return *c;
}

namespace detail {
const device_caps& require_current_device() {
  int device = -1;
  if (const runtime_status st = read_current_device(device); st.ok()) {
    device_cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    // Entries of a std::map never move: the reference stays valid for the process.
    if (auto it = c.caps.find(device); it != c.caps.end()) return it->second;
  }
  (void)require_device(device);  // first use (or the error): reads and caches the device
  device_cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.caps.at(device);
}
}  // namespace detail

}  // namespace porter
