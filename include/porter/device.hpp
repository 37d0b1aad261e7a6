// porter/device.hpp — what the GPU in hand can do, read from the runtime (host only).
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace porter {

/// Capabilities of one GPU, read through cudaGetDeviceProperties / cudaDeviceGetAttribute
/// (CUDA Runtime API, "Device Management"; core/src/device_reader_cuda.cpp), or their HIP
/// equivalents (core/src/device_reader_hip.cpp: hipGetDeviceProperties; AMD devices report
/// hip = true, and never TMA or cp.async).
struct device_caps {
  int device = 0;                       ///< runtime device ordinal
  std::string name;                     ///< e.g. "NVIDIA H200"
  std::string arch;                     ///< compile-target name: "sm_90"; HIP: gcnArchName without features, "gfx90a"
  int cc_major = 0, cc_minor = 0;       ///< compute capability (HIP: gfx major/minor as reported)
  bool hip = false;                     ///< an AMD GPU driven through HIP
  int sm_count = 0;                     ///< streaming multiprocessors (AMD: compute units)
  int max_threads_per_sm = 0;
  int warp_size = 32;                   ///< 32 on NVIDIA, 64 on CDNA
  std::size_t smem_per_block_optin = 0; ///< bytes one CTA may use after cudaFuncSetAttribute (opt-in)
  std::size_t smem_per_sm = 0;          ///< bytes of shared memory per SM
  std::size_t l2_bytes = 0;             ///< L2 cache size in bytes
  int sm_clock_khz = 0;                 ///< peak SM clock, kHz (0 where the runtime does not say)
  int mem_clock_khz = 0;                ///< peak memory clock, kHz (0 where the runtime does not say)
  int mem_bus_width_bits = 0;           ///< memory bus width, bits

  /// Compute capability as one number: 90 for 9.0.
  int compute_capability() const { return cc_major * 10 + cc_minor; }
  /// The TMA engine (cp.async.bulk, cp.async.bulk.tensor): NVIDIA compute capability 9.0+.
  bool has_tma() const { return !hip && compute_capability() >= 90; }
  /// cp.async and hardware mbarriers: NVIDIA compute capability 8.0+.
  bool has_cp_async() const { return !hip && compute_capability() >= 80; }
  /// Datasheet DRAM bandwidth from clock and bus width (bytes/s); 0 when either is unknown.
  /// A lead only: porter-bench measures the real ceiling.
  double peak_dram_bytes_per_second() const {
    return 2.0 * double(mem_clock_khz) * 1e3 * double(mem_bus_width_bits) / 8.0;
  }
  /// "NVIDIA H200 (sm_90, 132 SMs)", "AMD Instinct MI250X (gfx90a, 110 CUs)".
  std::string describe() const {
    const std::string target = !arch.empty() ? arch : (hip ? "gfx" : "sm_") + std::to_string(compute_capability());
    return name + " (" + target + ", " + std::to_string(sm_count) + (hip ? " CUs" : " SMs") + ")";
  }
};

/// Capabilities of `device` (a runtime ordinal; any negative value: the calling thread's current
/// device). Returns nullopt when there is no usable GPU, the ordinal does not exist, or the runtime
/// fails; `why` (if given) then receives one sentence naming what is missing, followed by the
/// runtime's own report in brackets. Without a GPU it names the first missing piece of the stack:
///   "no NVIDIA driver: libcuda.so.1 cannot be loaded (...)" (dlopen failed),
///   "libcuda.so.1 loads, but /dev/nvidiactl is absent: the nvidia kernel driver is not loaded, ...",
///   "this process may not open /dev/nvidia0 for reading and writing: ...",
///   "the NVIDIA driver is too old for this program: it supports CUDA up to 12.4 (...), and the
///    program's CUDA runtime is 13.0 (...)",
///   "no NVIDIA GPU is visible with CUDA_VISIBLE_DEVICES=\"\": ...", or the driver's "no CUDA device";
/// under HIP the same for libamdhip64, /dev/kfd and /dev/dri/renderD<N>. Each ends like
/// "[cudaGetDeviceCount: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA
/// runtime version]". The device count is read once per process and each device's capabilities on
/// first use; thread-safe. Implemented in core/src/device.cpp (the messages, the cache) over a
/// per-vendor reader (core/src/device_reader_cuda.cpp, device_reader_hip.cpp).
std::optional<device_caps> query_device(int device = -1, std::string* why = nullptr);

/// As query_device, but throws porter::error(errc::no_device, rule "device.available") whose
/// message is "no usable GPU: " followed by query_device's sentence.
device_caps require_device(int device = -1);

namespace detail {
/// require_device() for the current device, as a reference to the cached capabilities (valid for
/// the process): porter::launch's per-call query, which copies no strings. Throws as require_device.
const device_caps& require_current_device();
}  // namespace detail

}  // namespace porter
