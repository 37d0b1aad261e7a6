// Host-side launch guard rules (see porter/launch.hpp).
#include <string>

#include "porter/error.hpp"
#include "porter/launch.hpp"

namespace porter {

void check_path_on_device(const char* path_name, int min_cc, const device_caps& caps, int kernel_ptx_cc) {
  const std::string p = path_name;
  if (caps.hip && (p == "tma" || p == "cp_async"))
    throw error(errc::path_unsupported, "launch.path_vendor",
                "path " + p + " is an NVIDIA instruction family; device " + std::to_string(caps.device) + " '" +
                    caps.describe() + "' is an AMD GPU (use staged or automatic)");
  if (min_cc > 0 && caps.compute_capability() < min_cc)
    throw error(errc::path_unsupported, "launch.path_device",
                "path " + p + " needs compute capability " + std::to_string(min_cc / 10) + "." +
                    std::to_string(min_cc % 10) + (p == "tma" ? " (TMA)" : " (cp.async)") + "; device " +
                    std::to_string(caps.device) + " '" + caps.name + "' has " + std::to_string(caps.cc_major) + "." +
                    std::to_string(caps.cc_minor));
  if (min_cc > 0 && kernel_ptx_cc > 0 && kernel_ptx_cc < min_cc)
    throw error(errc::path_unsupported, "launch.path_binary",
                "path " + p + " needs code compiled for sm_" + std::to_string(min_cc) + " or newer; the kernel's code for device '" +
                    caps.name + "' was compiled for compute_" + std::to_string(kernel_ptx_cc) +
                    " (add " + std::to_string(caps.compute_capability()) + " to PORTER_CUDA_ARCHITECTURES)");
}

void check_shared_memory(std::size_t bytes, const device_caps& caps) {
  if (caps.hip && bytes > caps.smem_per_block_optin)
    throw error(errc::shared_memory, "launch.lds_capacity",
                "the launch needs " + std::to_string(bytes) + " B of LDS per workgroup; device '" + caps.describe() +
                    "' gives a workgroup at most " + std::to_string(caps.smem_per_block_optin) + " B (" +
                    std::to_string(caps.smem_per_block_optin / 1024) +
                    " KiB): use fewer stages or smaller boxes (pipeline<...>::shared_bytes is the need)");
  if (bytes > caps.smem_per_block_optin)
    throw error(errc::shared_memory, "launch.shared_memory_optin",
                "the launch asks for " + std::to_string(bytes) + " B of dynamic shared memory; device '" + caps.name +
                    "' allows at most " + std::to_string(caps.smem_per_block_optin) +
                    " B per block (opt-in limit): use fewer stages or smaller boxes");
}

void check_source_path(path_id p, unsigned mask, const source_desc& d, const device_caps& caps, int index) {
  if (mask & path_bit(p)) return;
  throw error(errc::path_unsupported, "launch.source_path",
              std::string("path ") + path_id_name(p) + " cannot read kernel argument " + std::to_string(index) +
                  " (a tiled source):\n" + explain(d, &caps));
}

namespace detail {
[[noreturn]] void throw_cuda(const char* what, int code, const char* text) {
  throw error(errc::driver, "cuda.runtime", std::string(what) + " failed: " + text + " (error " + std::to_string(code) + ")");
}
[[noreturn]] void throw_hip(const char* what, int code, const char* text) {
  throw error(errc::driver, "hip.runtime", std::string(what) + " failed: " + text + " (error " + std::to_string(code) + ")");
}
}  // namespace detail

}  // namespace porter
