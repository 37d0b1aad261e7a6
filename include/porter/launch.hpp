// porter/launch.hpp — the launch guard: refuse, on the host and before launch, a kernel that
// cannot run as asked, with a sentence naming the path, the device and the rule.
#pragma once
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "porter/device.hpp"
#include "porter/error.hpp"
#include "porter/path.hpp"
#include "porter/source.hpp"
#if PORTER_HIP
#  include <hip/hip_runtime.h>
#endif

namespace porter {

/// Throws porter::error(errc::path_unsupported) unless `path_name` (needing compute capability
/// `min_cc`, 0 for none) can run on `caps`, with the kernel's code compiled for virtual
/// architecture `kernel_ptx_cc` (cudaFuncAttributes::ptxVersion, e.g. 90; 0 when unknown).
/// Under HIP, tma and cp_async are refused whatever the device.
void check_path_on_device(const char* path_name, int min_cc, const device_caps& caps, int kernel_ptx_cc);

/// Throws porter::error(errc::shared_memory) when `bytes` of dynamic shared memory exceed the
/// device's per-block opt-in limit (cudaDevAttrMaxSharedMemoryPerBlockOptin). On an AMD device
/// (caps.hip) `bytes` is the workgroup's whole LDS need (static + dynamic) and the limit is its LDS
/// per workgroup (64 KiB on gfx90a and gfx942); the message names both (rule launch.lds_capacity).
void check_shared_memory(std::size_t bytes, const device_caps& caps);

/// Throws porter::error(errc::path_unsupported) when a forced path cannot read argument `index`
/// (a tiled source described by `d`, with support mask `mask`); the message includes explain().
void check_source_path(path_id p, unsigned mask, const source_desc& d, const device_caps& caps, int index);

#if defined(__CUDACC__) && !PORTER_HIP
namespace detail {
template <class T> struct is_tiled_source : std::false_type {};
template <class B> struct is_tiled_source<tiled_source<B>> : std::true_type {};
[[noreturn]] void throw_cuda(const char* what, int code, const char* text);
}  // namespace detail

/// Launch `kernel<<<grid, block, shared_bytes, stream>>>(args...)` after checking, on the host:
///  * the device exists and the kernel has code for it (cudaFuncGetAttributes);
///  * `Path` can run there: tma needs compute capability 9.0 and code compiled for sm_90+,
///    cp_async 8.0 and sm_80+ (automatic and staged run everywhere);
///  * every porter::tiled_source argument allows `Path` (for forced tma / cp_async);
///  * `shared_bytes` fits the device's opt-in limit (and raises the kernel's limit above 48 KiB).
/// Throws porter::error naming the path, the device and the rule; otherwise launches and throws on
/// a launch error (cudaGetLastError). Does not synchronise.
template <class Path, class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
            Args&&... args) {
  static_assert(is_path<Path>::value, "porter::launch<Path>: Path must be a porter::path tag.");
  static_assert(sizeof...(Params) == sizeof...(Args), "porter::launch: give one argument per kernel parameter.");
  const device_caps caps = require_device();
  cudaFuncAttributes attr{};
  if (cudaError_t e = cudaFuncGetAttributes(&attr, kernel); e != cudaSuccess)
    detail::throw_cuda("cudaFuncGetAttributes (does the build include code for this GPU? set PORTER_CUDA_ARCHITECTURES)",
                       int(e), cudaGetErrorString(e));
  check_path_on_device(Path::name, Path::min_compute_capability, caps, attr.ptxVersion);
  if constexpr (!std::is_same_v<Path, path::automatic>) {
    int index = 0;
    (([&](const auto& a) {
       using A = std::decay_t<decltype(a)>;
       if constexpr (detail::is_tiled_source<A>::value) check_source_path(Path::id, a.supported, a.desc(), caps, index);
       ++index;
     }(args)),
     ...);
  }
  check_shared_memory(shared_bytes, caps);
  if (shared_bytes > 48 * 1024) {
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes));
        e != cudaSuccess)
      detail::throw_cuda("cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", int(e), cudaGetErrorString(e));
  }
  kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) detail::throw_cuda("kernel launch", int(e), cudaGetErrorString(e));
}
#endif

#if PORTER_HIP
// ---- HIP (AMD) --------------------------------------------------------------------------------
namespace detail {
template <class T> struct is_tiled_source : std::false_type {};
template <class B> struct is_tiled_source<tiled_source<B>> : std::true_type {};
[[noreturn]] void throw_hip(const char* what, int code, const char* text);
}  // namespace detail

/// Launch `kernel<<<grid, block, shared_bytes, stream>>>(args...)` on an AMD GPU after checking,
/// on the host:
///  * `Path` is staged or automatic: tma and cp_async are NVIDIA instruction families and are
///    refused before anything else (rule launch.path_vendor; only reachable in a build with
///    PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH=1, otherwise the pipeline does not compile);
///  * the device exists and the kernel has a code object for it (hipFuncGetAttributes);
///  * the workgroup's LDS (the kernel's static LDS + `shared_bytes`) fits the device's LDS per
///    workgroup, 64 KiB on gfx90a (rule launch.lds_capacity, naming need and limit).
/// Throws porter::error; otherwise launches and throws on a launch error (hipGetLastError).
/// Does not synchronise. Same signature as the CUDA launch (hipStream_t for cudaStream_t).
template <class Path, class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, hipStream_t stream,
            Args&&... args) {
  static_assert(is_path<Path>::value, "porter::launch<Path>: Path must be a porter::path tag.");
  static_assert(sizeof...(Params) == sizeof...(Args), "porter::launch: give one argument per kernel parameter.");
  if constexpr (std::is_same_v<Path, path::tma> || std::is_same_v<Path, path::cp_async>) {
    (void)kernel; (void)grid; (void)block; (void)shared_bytes; (void)stream;
    throw error(errc::path_unsupported, "launch.path_vendor",
                std::string("path ") + Path::name +
                    " is an NVIDIA instruction family; this program was compiled for AMD GPUs with HIP, where "
                    "porter moves tiles with the staged path (use porter::path::staged or porter::path::automatic)");
  } else {
    const device_caps caps = require_device();
    hipFuncAttributes attr{};
    if (hipError_t e = hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(kernel)); e != hipSuccess)
      detail::throw_hip("hipFuncGetAttributes (does the build include a code object for this GPU? set PORTER_HIP_ARCHITECTURES)",
                        int(e), hipGetErrorString(e));
    check_path_on_device(Path::name, Path::min_compute_capability, caps, 0);
    check_shared_memory(shared_bytes + std::size_t(attr.sharedSizeBytes), caps);
    kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
    if (hipError_t e = hipGetLastError(); e != hipSuccess) detail::throw_hip("kernel launch", int(e), hipGetErrorString(e));
  }
}
#endif

}  // namespace porter
