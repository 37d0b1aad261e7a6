// core/src/device_reader.hpp — the device query split in two (internal, not installed).
//
//   device.cpp               the skeleton, shared by both builds: caches the device count and each
//                            device's capabilities, resolves the ordinal (-1: current device),
//                            checks its bounds, and words every failure; no_device_reason() turns
//                            the observations of a machine without a usable GPU into one sentence.
//   device_reader_cuda.cpp   the CUDA reader (CUDA Runtime API, "Device Management"; dlopen of
//                            libcuda.so.1; /dev/nvidia*), built by CMakeLists.txt.
//   device_nodes.cpp         the device nodes both readers look at (access(2), readdir(3)).
//   device_reader_hip.cpp    the HIP reader (HIP Runtime API; /dev/kfd, /dev/dri), built instead by
//                            cmake/hip, whose rule is: core sources ending in _cuda.cpp are the CUDA
//                            build's only, those ending in _hip.cpp the HIP build's only.
//
// A reader only reads: it makes one runtime call per function, reports the runtime's own error
// name and text, and decides nothing. Every sentence a user sees is built in device.cpp.
#pragma once
#include <string>
#include <vector>

#include "porter/device.hpp"

namespace porter::detail {

/// The outcome of one runtime call: success, or the runtime's error code, name and text.
struct runtime_status {
  int code = 0;          ///< the runtime's error code; 0 is success (cudaSuccess, hipSuccess)
  std::string name;      ///< cudaGetErrorName / hipGetErrorName, e.g. "cudaErrorInsufficientDriver"
  std::string text;      ///< cudaGetErrorString / hipGetErrorString
  /// True on success.
  bool ok() const { return code == 0; }
};

/// How the device-count call ended, in the terms no_device_reason() decides on.
enum class count_outcome {
  devices,               ///< success with at least one device
  zero_devices,          ///< success, but the count is 0
  no_device,             ///< cudaErrorNoDevice / hipErrorNoDevice
  insufficient_driver,   ///< cudaErrorInsufficientDriver / hipErrorInsufficientDriver; also what the
                         ///< CUDA runtime returns when no driver library is installed at all
  other_error,           ///< any other error
};

/// A device node the reader looked at (e.g. /dev/nvidiactl, /dev/kfd).
struct device_node {
  std::string path;      ///< "/dev/nvidiactl"; for a family, the pattern: "/dev/nvidia<N>"
  bool present = false;  ///< exists (for a family: at least one member exists)
  bool usable = false;   ///< present, and this process may open it for reading and writing (access(2))
};

/// The node at `path`: present when it exists, usable when this process may open it for reading
/// and writing (access(2)). Both readers use it (core/src/device_nodes.cpp).
device_node node_at(const std::string& path);

/// The family of nodes in folder `dir` named `prefix` and then digits only (/dev/nvidia0,
/// /dev/dri/renderD128): present if any exists, usable if any can be opened. A container may hold
/// only the GPUs it was given (/dev/nvidia3 alone), so any number counts. `path` is the first one
/// found, or `dir`/`prefix``fallback` ("/dev/nvidia0") when none is.
device_node numbered_nodes(const std::string& dir, const std::string& prefix, const std::string& fallback);

/// What the machine showed when the runtime found no usable GPU: the input of no_device_reason().
/// Readers fill it (observe_gpu_stack); tests build it by hand.
struct gpu_stack_observations {
  bool hip = false;                        ///< the HIP flavour (AMD); false: CUDA (NVIDIA)
  std::string count_call;                  ///< "cudaGetDeviceCount" / "hipGetDeviceCount"
  count_outcome outcome = count_outcome::devices;
  runtime_status count_status;             ///< the count call's own report
  std::string driver_library;              ///< library probed with dlopen: "libcuda.so.1", "libamdhip64.so.5"
  bool driver_library_loads = true;        ///< dlopen succeeded
  std::string driver_library_error;        ///< dlerror() when it did not
  std::vector<device_node> nodes;          ///< the device nodes the driver needs, in the order to report
  bool nodes_not_needed = false;           ///< the nodes do not apply here (WSL 2: the GPU is /dev/dxg)
  int driver_version = 0;                  ///< cudaDriverGetVersion (HIP: hipDriverGetVersion, as 1000 * major + 10 * minor); 0: no driver
  int runtime_version = 0;                 ///< CUDART_VERSION the core was compiled with (HIP: HIP_VERSION_MAJOR/MINOR, same encoding)
  /// Environment variables that select visible devices and are set, as "NAME=value"
  /// (CUDA_VISIBLE_DEVICES; HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES).
  std::vector<std::string> visible_devices;
};

/// The one sentence query_device() gives when there is no usable GPU, decided from the observations
/// alone (a pure function: no runtime call, no file access). In order, it names the first missing
/// piece: the driver library (dlopen failed), a device node that is absent, a device node this
/// process may not open, a driver older than the runtime (both versions), a
/// visible-devices variable that hides every GPU, a driver that sees no device, or else the runtime's
/// error. Every sentence ends with the count call's own report, e.g. "[cudaGetDeviceCount:
/// cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version]".
std::string no_device_reason(const gpu_stack_observations& o);

/// "12.4" for 12040: a version number written as 1000 * major + 10 * minor (CUDA's encoding, which
/// the HIP reader also uses for what it reports).
std::string format_version(int v);

// ---- implemented once per vendor (device_reader_cuda.cpp, device_reader_hip.cpp) -----------------

/// Names of the vendor's runtime calls, for messages.
struct reader_names {
  const char* count;        ///< "cudaGetDeviceCount"
  const char* current;      ///< "cudaGetDevice"
  const char* properties;   ///< "cudaGetDeviceProperties"
};
/// This build's reader's names.
const reader_names& reader_calls();

/// The number of devices (cudaGetDeviceCount); clears the runtime's last error afterwards.
runtime_status read_device_count(int& count);
/// The calling thread's current device (cudaGetDevice).
runtime_status read_current_device(int& device);
/// Fills every field of `caps` for `device`, an ordinal below the device count
/// (cudaGetDeviceProperties, cudaDeviceGetAttribute); clears the runtime's last error afterwards.
runtime_status read_device_caps(int device, device_caps& caps);
/// Looks at the driver library, the device nodes, the versions and the environment, after the
/// count call ended with `outcome` and `status`; returns everything no_device_reason() needs.
gpu_stack_observations observe_gpu_stack(count_outcome outcome, const runtime_status& status);
/// Maps the count call's result to a count_outcome (the vendor's error codes).
count_outcome classify_count(const runtime_status& status, int count);

}  // namespace porter::detail
