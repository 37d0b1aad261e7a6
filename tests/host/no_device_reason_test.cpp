// tests/host/no_device_reason_test.cpp — the sentence a program without a usable GPU gets
// (porter::detail::no_device_reason, core/src/device.cpp): every branch, for both vendors, from
// hand-made observations; and, on the machine running the tests, that the real query agrees with
// what the test itself sees (dlopen, /dev nodes).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "device_reader.hpp"  // core/src: internal to the core
#include "fixtures.hpp"
#include "porter/config.hpp"
#include "porter/device.hpp"

namespace {

using porter::detail::count_outcome;
using porter::detail::device_node;
using porter::detail::gpu_stack_observations;
using porter::detail::no_device_reason;
using porter_test::Contains;

device_node present(const char* path) { return {path, true, true}; }
device_node absent(const char* path) { return {path, false, false}; }
device_node denied(const char* path) { return {path, true, false}; }

/// A CUDA machine on which everything is in place; each test breaks one thing.
gpu_stack_observations cuda_machine() {
  gpu_stack_observations o;
  o.hip = false;
  o.count_call = "cudaGetDeviceCount";
  o.outcome = count_outcome::no_device;
  o.count_status = {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"};
  o.driver_library = "libcuda.so.1";
  o.nodes = {present("/dev/nvidiactl"), present("/dev/nvidia0")};
  o.driver_version = 13000;
  o.runtime_version = 13000;
  return o;
}

/// The same for HIP.
gpu_stack_observations hip_machine() {
  gpu_stack_observations o;
  o.hip = true;
  o.count_call = "hipGetDeviceCount";
  o.outcome = count_outcome::no_device;
  o.count_status = {100, "hipErrorNoDevice", "no ROCm-capable device is detected"};
  o.driver_library = "libamdhip64.so.5";
  o.nodes = {present("/dev/kfd"), present("/dev/dri/renderD128")};
  o.driver_version = 5020;
  o.runtime_version = 5020;
  return o;
}

constexpr const char* insufficient_text = "CUDA driver version is insufficient for CUDA runtime version";

gpu_stack_observations insufficient(gpu_stack_observations o) {
  o.outcome = count_outcome::insufficient_driver;
  o.count_status = {35, "cudaErrorInsufficientDriver", insufficient_text};
  return o;
}

// ---- 1. no driver library --------------------------------------------------------------------------

TEST(NoDeviceReason, NoDriverLibraryIsNamedAndTheRuntimesWordingExplained) {
  auto o = insufficient(cuda_machine());
  o.driver_library_loads = false;
  o.driver_library_error = "libcuda.so.1: cannot open shared object file: No such file or directory";
  o.driver_version = 0;
  const std::string s = no_device_reason(o);
  EXPECT_EQ(s.rfind("no NVIDIA driver: libcuda.so.1 cannot be loaded (libcuda.so.1: cannot open shared object file", 0), 0u) << s;
  EXPECT_TRUE(Contains(s, "does not contain the driver: install the NVIDIA driver")) << s;
  EXPECT_TRUE(Contains(s, "reports this as an insufficient driver version although there is no driver at all")) << s;
  EXPECT_FALSE(Contains(s, "too old")) << s;
  EXPECT_TRUE(Contains(s, std::string("[cudaGetDeviceCount: cudaErrorInsufficientDriver: ") + insufficient_text + "]")) << s;
}

TEST(NoDeviceReason, NoDriverLibraryAlsoListsAbsentNodes) {
  auto o = insufficient(cuda_machine());
  o.driver_library_loads = false;
  o.nodes = {absent("/dev/nvidiactl"), absent("/dev/nvidia0")};
  const std::string s = no_device_reason(o);
  EXPECT_TRUE(Contains(s, "cannot be loaded, and /dev/nvidiactl, /dev/nvidia0 are absent.")) << s;
  o.nodes = {absent("/dev/nvidiactl"), present("/dev/nvidia0")};
  EXPECT_TRUE(Contains(no_device_reason(o), "cannot be loaded, and /dev/nvidiactl is absent.")) << no_device_reason(o);
}

TEST(NoDeviceReason, NoDriverLibraryWithAnotherErrorDoesNotBlameTheVersion) {
  auto o = cuda_machine();
  o.driver_library_loads = false;
  o.outcome = count_outcome::other_error;
  o.count_status = {999, "cudaErrorUnknown", "unknown error"};
  const std::string s = no_device_reason(o);
  EXPECT_EQ(s.rfind("no NVIDIA driver: libcuda.so.1 cannot be loaded.", 0), 0u) << s;  // no dlerror text: none given
  EXPECT_FALSE(Contains(s, "insufficient")) << s;
  EXPECT_TRUE(Contains(s, "[cudaGetDeviceCount: cudaErrorUnknown: unknown error]")) << s;
}

TEST(NoDeviceReason, HipWithoutItsRuntimeLibrary) {
  auto o = hip_machine();
  o.driver_library_loads = false;
  o.driver_library_error = "libamdhip64.so.5: cannot open shared object file";
  const std::string s = no_device_reason(o);
  EXPECT_EQ(s.rfind("no HIP runtime: libamdhip64.so.5 cannot be loaded (libamdhip64.so.5: cannot open", 0), 0u) << s;
  EXPECT_TRUE(Contains(s, "libamdhip64-5")) << s;
  EXPECT_TRUE(Contains(s, "[hipGetDeviceCount: hipErrorNoDevice: no ROCm-capable device is detected]")) << s;
}

// ---- 2. a device node is absent -----------------------------------------------------------------------

TEST(NoDeviceReason, AbsentNvidiaNodesMeanNoKernelDriverOrNoGpuInTheContainer) {
  auto o = insufficient(cuda_machine());
  o.nodes = {absent("/dev/nvidiactl"), absent("/dev/nvidia0")};
  const std::string s = no_device_reason(o);
  EXPECT_EQ(s.rfind("libcuda.so.1 loads, but /dev/nvidiactl, /dev/nvidia0 are absent: the nvidia kernel driver is not loaded", 0), 0u) << s;
  EXPECT_TRUE(Contains(s, "--gpus all")) << s;
  EXPECT_TRUE(Contains(s, "[cudaGetDeviceCount: cudaErrorInsufficientDriver")) << s;
  o.nodes = {present("/dev/nvidiactl"), absent("/dev/nvidia0")};
  EXPECT_TRUE(Contains(no_device_reason(o), "but /dev/nvidia0 is absent:")) << no_device_reason(o);
}

TEST(NoDeviceReason, AbsentKfdMeansNoAmdgpuDriver) {
  auto o = hip_machine();
  o.nodes = {absent("/dev/kfd"), absent("/dev/dri/renderD128")};
  const std::string s = no_device_reason(o);
  EXPECT_EQ(s.rfind("libamdhip64.so.5 loads, but /dev/kfd, /dev/dri/renderD128 are absent: the amdgpu kernel driver", 0), 0u) << s;
  EXPECT_TRUE(Contains(s, "--device=/dev/kfd --device=/dev/dri")) << s;
}

TEST(NoDeviceReason, NodesAreNotRequiredUnderWsl) {
  auto o = cuda_machine();
  o.nodes = {absent("/dev/nvidiactl"), absent("/dev/nvidia0")};
  o.nodes_not_needed = true;
  const std::string s = no_device_reason(o);
  EXPECT_FALSE(Contains(s, "absent")) << s;
  EXPECT_TRUE(Contains(s, "reports no CUDA device")) << s;
}

// ---- 3. a node this process may not open ----------------------------------------------------------------

TEST(NoDeviceReason, NodeWithoutPermission) {
  auto o = cuda_machine();
  o.nodes = {present("/dev/nvidiactl"), denied("/dev/nvidia0")};
  std::string s = no_device_reason(o);
  EXPECT_EQ(s.rfind("this process may not open /dev/nvidia0 for reading and writing: add the user to the group that owns it (often video)", 0), 0u) << s;
  auto h = hip_machine();
  h.nodes = {denied("/dev/kfd"), denied("/dev/dri/renderD128")};
  s = no_device_reason(h);
  EXPECT_TRUE(Contains(s, "may not open /dev/kfd, /dev/dri/renderD128 for reading and writing")) << s;
  EXPECT_TRUE(Contains(s, "owns them (usually render and video)")) << s;
}

TEST(NoDeviceReason, AnAbsentNodeIsReportedBeforeADeniedOne) {
  auto o = cuda_machine();
  o.nodes = {denied("/dev/nvidiactl"), absent("/dev/nvidia0")};
  const std::string s = no_device_reason(o);
  EXPECT_TRUE(Contains(s, "/dev/nvidia0 is absent")) << s;
  EXPECT_FALSE(Contains(s, "may not open")) << s;
}

// ---- 4. a driver older than the runtime -------------------------------------------------------------------

TEST(NoDeviceReason, OldDriverGivesBothVersions) {
  auto o = insufficient(cuda_machine());
  o.driver_version = 12040;
  const std::string s = no_device_reason(o);
  EXPECT_EQ(s.rfind("the NVIDIA driver is too old for this program: it supports CUDA up to 12.4 (cudaDriverGetVersion: 12040), "
                    "and the program's CUDA runtime is 13.0 (CUDART_VERSION: 13000): install a driver for CUDA 13.0 or newer", 0),
            0u)
      << s;
}

TEST(NoDeviceReason, OldHipDriver) {
  auto o = hip_machine();
  o.outcome = count_outcome::insufficient_driver;
  o.count_status = {35, "hipErrorInsufficientDriver", "driver version is insufficient"};
  o.driver_version = 5010;
  const std::string s = no_device_reason(o);
  EXPECT_EQ(s.rfind("the AMD driver is too old for this program: it supports HIP up to 5.1, and the program's HIP runtime is 5.2: "
                    "install a driver for HIP 5.2 or newer", 0),
            0u)
      << s;
}

TEST(NoDeviceReason, InsufficientDriverWithoutAnOlderVersionIsNotCalledOld) {
  auto o = insufficient(cuda_machine());
  for (int drv : {0, 13000, 13010}) {
    o.driver_version = drv;
    const std::string s = no_device_reason(o);
    EXPECT_FALSE(Contains(s, "too old")) << drv << ": " << s;
    EXPECT_EQ(s.rfind("cudaGetDeviceCount failed, with the NVIDIA driver library and device nodes in place", 0), 0u) << s;
  }
}

// ---- 5. the driver sees no device -------------------------------------------------------------------------

TEST(NoDeviceReason, VisibleDevicesVariableIsSuspectedFirst) {
  auto o = cuda_machine();
  o.visible_devices = {"CUDA_VISIBLE_DEVICES=\"\""};
  std::string s = no_device_reason(o);
  EXPECT_EQ(s.rfind("no NVIDIA GPU is visible with CUDA_VISIBLE_DEVICES=\"\": unset it, or name a GPU that exists", 0), 0u) << s;
  auto h = hip_machine();
  h.outcome = count_outcome::zero_devices;
  h.count_status = {};
  h.visible_devices = {"HIP_VISIBLE_DEVICES=\"7\"", "ROCR_VISIBLE_DEVICES=\"0\""};
  s = no_device_reason(h);
  EXPECT_EQ(s.rfind("no AMD GPU is visible with HIP_VISIBLE_DEVICES=\"7\" ROCR_VISIBLE_DEVICES=\"0\"", 0), 0u) << s;
  EXPECT_TRUE(Contains(s, "[hipGetDeviceCount: success, 0 devices]")) << s;
}

TEST(NoDeviceReason, DriverWithoutDevices) {
  auto o = cuda_machine();
  o.driver_version = 12080;
  std::string s = no_device_reason(o);
  EXPECT_EQ(s, "the NVIDIA driver (CUDA 12.8) is loaded, but it reports no CUDA device "
               "[cudaGetDeviceCount: cudaErrorNoDevice: no CUDA-capable device is detected]");
  o.outcome = count_outcome::zero_devices;
  o.count_status = {};
  o.driver_version = 0;
  s = no_device_reason(o);
  EXPECT_EQ(s, "the NVIDIA driver is loaded, but it reports no CUDA device [cudaGetDeviceCount: success, 0 devices]");
  s = no_device_reason(hip_machine());
  EXPECT_EQ(s.rfind("the AMD GPU driver is present (/dev/kfd), but HIP finds no GPU it supports", 0), 0u) << s;
}

// ---- 6. anything else --------------------------------------------------------------------------------------

TEST(NoDeviceReason, OtherErrorsQuoteTheRuntime) {
  auto o = cuda_machine();
  o.outcome = count_outcome::other_error;
  o.count_status = {999, "cudaErrorUnknown", "unknown error"};
  EXPECT_EQ(no_device_reason(o), "cudaGetDeviceCount failed, with the NVIDIA driver library and device nodes in place "
                                 "[cudaGetDeviceCount: cudaErrorUnknown: unknown error]");
  o.count_status = {7, "", ""};  // a runtime that names nothing
  EXPECT_TRUE(Contains(no_device_reason(o), "[cudaGetDeviceCount: error 7]")) << no_device_reason(o);
  o.count_status = {100, "hipErrorNoDevice", "hipErrorNoDevice"};  // ROCm 5.2: the text is the name
  EXPECT_TRUE(Contains(no_device_reason(o), "[cudaGetDeviceCount: hipErrorNoDevice]")) << no_device_reason(o);
}

TEST(NoDeviceReason, VersionsAreMajorDotMinor) {
  EXPECT_EQ(porter::detail::format_version(12040), "12.4");
  EXPECT_EQ(porter::detail::format_version(13000), "13.0");
  EXPECT_EQ(porter::detail::format_version(12080), "12.8");
  EXPECT_EQ(porter::detail::format_version(11020), "11.2");
}

// ---- on this machine -----------------------------------------------------------------------------------------

bool loads(const char* lib) {
  void* h = ::dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
  if (h) ::dlclose(h);
  return h != nullptr;
}

// numbered_nodes (core/src/device_nodes.cpp), on a folder the test makes: the family is the prefix
// followed by digits only (nvidia3, not nvidiactl or nvidia-uvm), any number counts, and an
// absent family reports the fallback path.
TEST(DeviceNodes, AFamilyIsThePrefixAndDigitsAndAnyNumberCounts) {
  char tmpl[] = "/tmp/porter-nodes-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  auto touch = [&](const char* name) {
    std::FILE* f = std::fopen((dir + "/" + name).c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  };
  touch("nvidiactl");
  touch("nvidia-uvm");
  touch("nvidia");
  device_node none = porter::detail::numbered_nodes(dir, "nvidia", "0");
  EXPECT_FALSE(none.present);
  EXPECT_FALSE(none.usable);
  EXPECT_EQ(none.path, dir + "/nvidia0");
  touch("nvidia3");
  device_node one = porter::detail::numbered_nodes(dir, "nvidia", "0");
  EXPECT_TRUE(one.present);
  EXPECT_EQ(one.path, dir + "/nvidia3");
  EXPECT_EQ(one.usable, ::access(one.path.c_str(), R_OK | W_OK) == 0);
  const device_node ctl = porter::detail::node_at(dir + "/nvidiactl");
  EXPECT_TRUE(ctl.present);
  EXPECT_FALSE(porter::detail::node_at(dir + "/nvidia7").present);
  for (const char* name : {"nvidiactl", "nvidia-uvm", "nvidia", "nvidia3"}) std::remove((dir + "/" + name).c_str());
  ::rmdir(dir.c_str());
}

TEST(NoDeviceReasonHere, TheRealQueryNamesWhatThisMachineLacks) {
  std::string why;
  if (auto caps = porter::query_device(-1, &why)) GTEST_SKIP() << "a GPU is present (" << caps->describe() << ")";
  std::printf("query_device says: %s\n", why.c_str());
  const bool wsl = ::access("/dev/dxg", F_OK) == 0;
  if (!PORTER_HIP && !loads("libcuda.so.1")) {
    EXPECT_EQ(why.rfind("no NVIDIA driver: libcuda.so.1 cannot be loaded", 0), 0u) << why;
  } else if (!PORTER_HIP && !wsl && ::access("/dev/nvidiactl", F_OK) != 0) {
    EXPECT_TRUE(Contains(why, "/dev/nvidiactl")) << why;
  } else if (PORTER_HIP && ::access("/dev/kfd", F_OK) != 0) {
    EXPECT_TRUE(Contains(why, "loads, but /dev/kfd")) << why;
  }
  EXPECT_TRUE(Contains(why, PORTER_HIP ? "[hipGetDeviceCount: " : "[cudaGetDeviceCount: ")) << why;
  // Asked again, the same sentence (the count is read once per process).
  std::string again;
  EXPECT_FALSE(porter::query_device(0, &again));
  EXPECT_EQ(again, why);
}

}  // namespace
