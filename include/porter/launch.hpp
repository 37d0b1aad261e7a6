// porter/launch.hpp — the launch guard, and where `automatic` is resolved: on the host, before the
// launch, with a sentence naming the path, the device and the rule when a launch cannot run as asked.
//
// Two forms:
//   porter::launch<porter::path::tma>(&kernel<porter::path::tma>, grid, block, smem, stream, args...);
//   porter::launch<porter::path::automatic>(porter::kernel_family{[](auto p) { return &kernel<decltype(p)>; }},
//                                           grid, block, smem, stream, args...);
// The second chooses a concrete path for this launch (porter::choose_path: the device, the kernel
// binary, every porter::tiled_source argument, then the cost model) and launches that path's
// instantiation, so the kernel never carries two protocols.
//
// Host cost per call: the device query and the kernel's attributes are cached (first call per
// device / kernel: cudaGetDeviceProperties, cudaFuncGetAttributes; later calls: a lock and a map
// lookup); the dynamic shared-memory opt-in is set once per kernel and size. porter-bench reports
// the measured cost of a launch call.
#pragma once
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "porter/choose.hpp"
#include "porter/device.hpp"
#include "porter/error.hpp"
#include "porter/lowerings.hpp"
#include "porter/mechanisms.hpp"
#include "porter/path.hpp"
#include "porter/destination.hpp"
#include "porter/source.hpp"

namespace porter {

#if PORTER_HIP
using stream_t = hipStream_t;   ///< the runtime's stream type (HIP)
#elif PORTER_GPU_COMPILER
using stream_t = cudaStream_t;  ///< the runtime's stream type (CUDA)
#endif

/// Throws porter::error(errc::path_unsupported) unless concrete path `p` can run on `caps` with the
/// kernel's code compiled for virtual architecture `kernel_ptx_cc` (cudaFuncAttributes::ptxVersion,
/// e.g. 90; 0 when unknown). Rules: launch.path_vendor (an NVIDIA family on an AMD GPU, or in a HIP
/// build), launch.path_device (compute capability), launch.path_binary (code too old for the path).
void check_path_on_device(path_id p, const device_caps& caps, int kernel_ptx_cc);

/// Throws porter::error(errc::shared_memory) when `bytes` of dynamic shared memory exceed the
/// device's per-block opt-in limit (cudaDevAttrMaxSharedMemoryPerBlockOptin). On an AMD device
/// (caps.hip) `bytes` is the workgroup's whole LDS need (static + dynamic) and the limit is its LDS
/// per workgroup (64 KiB on gfx90a and gfx942); the message names both (rule launch.lds_capacity).
void check_shared_memory(std::size_t bytes, const device_caps& caps);

/// Throws porter::error(errc::invalid_argument, rule launch.block_size) when a CTA of `threads`
/// threads exceeds what the kernel instantiation for `path_name` allows (`max_threads`:
/// cudaFuncAttributes::maxThreadsPerBlock, limited by its registers); 0 skips the check.
void check_block_size(unsigned threads, int max_threads, const char* path_name);

/// Throws porter::error(errc::path_unsupported) when a forced path cannot read argument `index`
/// (a tiled source described by `d`, with support mask `mask`); the message includes explain()
/// from the source's own report (`report`, may be null: looked up).
void check_source_path(path_id p, unsigned mask, const source_desc& d, const device_caps& caps, int index,
                       const support_report* report = nullptr);

/// A kernel template, one instantiation per concrete path: `make(P{})` returns the __global__
/// function instantiated for path tag P. Built from a generic lambda:
///   porter::kernel_family{[](auto p) { return &my_kernel<decltype(p)>; }}
template <class Make>
struct kernel_family {
  Make make;
};
template <class Make> kernel_family(Make) -> kernel_family<Make>;

/// The coordinates kernel argument `argument` (a porter::tiled_source) is copied at.
struct source_copies {
  int argument = 0;       ///< index of the kernel argument, counting from 0
  copy_pattern pattern;   ///< porter::tile_grid(...) or porter::coordinate_list(...)
};

/// Options of porter::launch (the form that takes them first).
///
/// strict_paths: a forced path must move every byte with its own instruction. For each tiled
/// source given a pattern in `copies`, the host computes copy_mechanisms for the path the launch
/// runs (forced, or the one automatic chose) and throws porter::error(errc::path_unsupported, rule
/// launch.strict_paths) naming the first copy that would fall back to thread loads, before
/// anything is launched. The host cannot see the coordinates of sources without a pattern: compile
/// the kernel with PORTER_STRICT_PATHS=1 to make such fallbacks trap on the device.
///   porter::launch<porter::path::tma>(porter::launch_options{}.strict().copies_of(0, porter::tile_grid<2>(o, step, n)),
///                                     &k<porter::path::tma>, grid, block, smem, stream, src, ...);
struct launch_options {
  bool strict_paths = false;
  std::vector<source_copies> copies;
  /// Set strict_paths.
  launch_options& strict(bool on = true) {
    strict_paths = on;
    return *this;
  }
  /// Record the coordinates kernel argument `argument` is copied at.
  launch_options& copies_of(int argument, copy_pattern pattern) {
    copies.push_back(source_copies{argument, std::move(pattern)});
    return *this;
  }
};

namespace detail {
template <class T> struct is_tiled_source : std::false_type {};
template <class B> struct is_tiled_source<tiled_source<B>> : std::true_type {};
/// A tiled destination is checked like the source it is (porter/destination.hpp).
template <class B> struct is_tiled_source<tiled_destination<B>> : std::true_type {};

/// What porter::launch reads about a kernel, cached per function (core/src/launch_checks.cpp).
struct function_info {
  bool ok = false;          ///< the runtime knows the function (the binary has code for this device)
  int ptx_version = 0;      ///< cudaFuncAttributes::ptxVersion (0 under HIP)
  int max_threads = 0;      ///< threads per CTA the function allows
  std::size_t static_smem = 0;
  std::string error;        ///< the runtime's message when !ok
};
/// The function's attributes on the current device (cached).
const function_info& function_info_of(const void* kernel);
/// Throws errc::driver naming `what` when the runtime reports an error for `kernel`'s attributes.
[[noreturn]] void throw_no_code(const function_info& fi);
/// Raise the kernel's dynamic shared-memory limit to `bytes` when above 48 KiB (once per size).
void allow_dynamic_shared_memory(const void* kernel, std::size_t bytes);
/// Throws errc::driver when the last launch failed (cudaGetLastError / hipGetLastError).
void check_launched();
/// Throws errc::path_unsupported (rule launch.path_vendor) when `p` is an NVIDIA path: called by a
/// HIP build's launch before anything else.
void refuse_in_hip_build(path_id p);
/// Whether the device can run path `p` at all (rule launch.path_device / vendor), without throwing.
bool device_runs(path_id p, const device_caps& caps);

/// Call f(arg, index) for every argument, counting from 0.
template <class F, class... Args>
void for_each_arg(F&& f, const Args&... args) {
  int index = 0;
  ((f(args, index), ++index), ...);
}

/// Throws errc::invalid_argument (rule launch.copies_argument) when a pattern of `o` names an
/// argument that is not a tiled source of `rank` (rank 0: none at that index); see launch_options.
void check_copies_argument(const source_copies& c, int rank);

/// launch_options' host checks for a launch that runs as path `p` (see launch_options).
template <class... Args>
void check_launch_options(path_id p, const launch_options& o, const Args&... args) {
  for (const source_copies& c : o.copies) {
    int rank = 0;
    for_each_arg(
        [&](const auto& a, int index) {
          using A = std::decay_t<decltype(a)>;
          if constexpr (is_tiled_source<A>::value) {
            if (index == c.argument) rank = A::rank;
          }
        },
        args...);
    check_copies_argument(c, rank);
  }
  if (!o.strict_paths) return;
  for_each_arg(
      [&](const auto& a, int index) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (is_tiled_source<A>::value) {
          for (const source_copies& c : o.copies)
            if (c.argument == index && (a.report == nullptr || a.report->supports(p))) check_strict_paths(p, a.desc(), c.pattern, index);
        }
      },
      args...);
}
}  // namespace detail

#if PORTER_GPU_COMPILER
/// Launch `kernel<<<grid, block, shared_bytes, stream>>>(args...)` for concrete path `Path` after
/// checking, on the host:
///  * the device exists and the kernel has code for it (cached cudaFuncGetAttributes);
///  * `Path` can run there: tma needs compute capability 9.0 and code compiled for sm_90+,
///    cp_async 8.0 and sm_80+, both an NVIDIA GPU; staged runs everywhere;
///  * every porter::tiled_source argument allows `Path`;
///  * `shared_bytes` fits the device's opt-in limit (and raises the kernel's limit above 48 KiB).
/// Throws porter::error naming the path, the device and the rule; otherwise launches and throws on
/// a launch error. Does not synchronise.
template <class Path, class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, stream_t stream, Args&&... args) {
  static_assert(is_path<Path>::value, "porter::launch<Path>: Path must be a porter::path tag.");
  static_assert(!std::is_same_v<Path, path::automatic>,
                "porter::launch<path::automatic> chooses among a kernel's instantiations: pass "
                "porter::kernel_family{[](auto p) { return &my_kernel<decltype(p)>; }} instead of one function.");
  static_assert(sizeof...(Params) == sizeof...(Args), "porter::launch: give one argument per kernel parameter.");
  if constexpr (PORTER_HIP && Path::nvidia_only) {
    // Refused before anything else (no device needed to know): only reachable in a HIP build with
    // PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH=1; otherwise the pipeline does not compile.
    detail::refuse_in_hip_build(Path::id);
  }
  const device_caps caps = require_device();
  const void* f = reinterpret_cast<const void*>(kernel);
  const detail::function_info& fi = detail::function_info_of(f);
  if (!fi.ok) detail::throw_no_code(fi);
  check_path_on_device(Path::id, caps, fi.ptx_version);
  check_block_size(block.x * block.y * block.z, fi.max_threads, Path::name);
  detail::for_each_arg(
      [&](const auto& a, int index) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (detail::is_tiled_source<A>::value) check_source_path(Path::id, a.supported, a.desc(), caps, index, a.report);
      },
      args...);
  check_shared_memory(shared_bytes + (caps.hip ? fi.static_smem : 0), caps);
  detail::allow_dynamic_shared_memory(f, shared_bytes);
  kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
  detail::check_launched();
}

/// The path porter::launch<path::automatic> would run `family` with these arguments on the
/// current device, and why (explain for a launch). Throws errc::no_device without a GPU.
template <class Make, class... Args>
path_choice choose_path_for(const kernel_family<Make>& family, const Args&... args) {
  const device_caps caps = require_device();
  unsigned candidates = 0;
  lowerings::for_each_path(lowerings::all{}, [&](auto p) {
    using P = decltype(p);
    if (!detail::device_runs(P::id, caps)) return;
    const detail::function_info& fi = detail::function_info_of(reinterpret_cast<const void*>(family.make(p)));
    if (!fi.ok || (P::min_compute_capability > 0 && fi.ptx_version > 0 && fi.ptx_version < P::min_compute_capability)) return;
    candidates |= path_bit(P::id);
  });
  source_desc descs[sizeof...(Args) > 0 ? sizeof...(Args) : 1];
  const source_desc* ptrs[sizeof...(Args) > 0 ? sizeof...(Args) : 1];
  int n = 0;
  detail::for_each_arg(
      [&](const auto& a, int) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (detail::is_tiled_source<A>::value) {
          candidates &= a.supported;
          descs[n] = a.desc();
          ptrs[n] = &descs[n];
          ++n;
        }
      },
      args...);
  return choose_path(candidates, caps, ptrs, n);
}

/// Launch with launch_options (strict paths; see launch_options), then as the form without them.
template <class Path, class... Params, class... Args>
void launch(const launch_options& options, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, stream_t stream,
            Args&&... args) {
  static_assert(is_concrete_path<Path>::value,
                "porter::launch<Path>(options, kernel, ...): Path must be a concrete path tag; for automatic pass a porter::kernel_family.");
  detail::check_launch_options(Path::id, options, args...);
  launch<Path>(kernel, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
}

/// Launch the instantiation of `family` for the path `automatic` chooses (choose_path_for), with
/// the checks of the concrete form, after launch_options' checks for that path (strict paths).
/// Returns the choice.
template <class Path, class Make, class... Args>
path_choice launch(const launch_options& options, const kernel_family<Make>& family, dim3 grid, dim3 block, std::size_t shared_bytes,
                   stream_t stream, Args&&... args) {
  static_assert(is_path<Path>::value, "porter::launch<Path>: Path must be a porter::path tag.");
  path_choice c;
  if constexpr (std::is_same_v<Path, path::automatic>) {
    c = choose_path_for(family, args...);
  } else {
    c.path = Path::id;
    c.reason = std::string(Path::name) + ": forced";
  }
  detail::check_launch_options(c.path, options, args...);
  bool launched = false;
  lowerings::for_each_path(lowerings::all{}, [&](auto p) {
    using P = decltype(p);
    if (launched || P::id != c.path) return;
    launched = true;
    launch<P>(family.make(p), grid, block, shared_bytes, stream, std::forward<Args>(args)...);
  });
  if (!launched)
    throw error(errc::path_unsupported, "launch.path_vendor",
                std::string("path ") + path_id_name(c.path) + " has no lowering in this build (" +
                    (PORTER_HIP ? "HIP: AMD GPUs run staged" : "CUDA") + ")");
  return c;
}

/// Launch the instantiation of `family` for the path `automatic` chooses (choose_path_for), with
/// the checks of the concrete form. Returns the choice.
template <class Path, class Make, class... Args>
path_choice launch(const kernel_family<Make>& family, dim3 grid, dim3 block, std::size_t shared_bytes, stream_t stream,
                   Args&&... args) {
  return launch<Path>(launch_options{}, family, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
}

#endif  // PORTER_GPU_COMPILER

}  // namespace porter
