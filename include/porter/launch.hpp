// porter/launch.hpp — the launch guard, and where `automatic` is resolved: on the host, before the
// launch, with a sentence naming the path, the device and the rule when a launch cannot run as asked.
//
// Two forms:
//   porter::launch<porter::path::tma>(&kernel<porter::path::tma>, grid, block, smem, stream, args...);
//   porter::launch<porter::path::automatic>(porter::kernel_family{[](auto p) { return &kernel<decltype(p)>; }},
//                                           grid, block, smem, stream, args...);
// The second chooses a concrete path for this launch (porter::choose_path: the device, the kernel
// binary, every porter::tiled_source argument, then the cost model) and launches that path's
// instantiation, so the kernel never carries two protocols. Both take porter::launch_options first
// when a launch needs more: strict paths, thread-block clusters, programmatic dependent launch.
//
// Sources are found in every argument: an argument that is a tiled source (or destination), a
// 128-byte aligned aggregate struct holding sources (its fields, recursively), or a class with a
// porter_sources hook (porter/detail/fields.hpp). Messages name the argument and the field path.
//
// How it launches: `kernel<<<grid, block, smem, stream>>>(args...)` when the options ask for no
// launch attribute; cudaLaunchKernelEx (cudaLaunchConfig_t with cudaLaunchAttributeClusterDimension
// and/or cudaLaunchAttributeProgrammaticStreamSerialization) when they do (CUDA Runtime API,
// "cudaLaunchKernelEx"; CUDA C++ Programming Guide, "Thread Block Clusters" and "Programmatic
// Dependent Launch and Synchronization"). Under HIP there are no such attributes: asking for one is
// refused (launch.cluster_vendor, launch.pdl_vendor).
//
// Host cost per call: the device query and the kernel's attributes are cached (first call per
// device / kernel: cudaGetDeviceProperties, cudaFuncGetAttributes; later calls: a lock and a map
// lookup each); the dynamic shared-memory opt-in is set once per kernel and size, the non-portable
// cluster opt-in once per kernel. The concrete form allocates nothing per call (the options'
// vector is the caller's, built once), nor does the kernel_family form forced to a concrete path
// (its choice, "<path>: forced", is one constant per path, built on first use); the automatic
// form builds its reason string. porter-bench
// reports the measured cost of a launch call against a raw <<<>>> and a raw cudaLaunchKernelEx
// ("Launch host cost").
#pragma once
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "porter/choose.hpp"
#include "porter/detail/fields.hpp"
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

/// Throws porter::error(errc::path_unsupported) unless a kernel that uses a porter::role_pipeline
/// on concrete path `p` can run on `caps` with its code compiled for `kernel_ptx_cc` (as above; 0:
/// unknown). Each role protocol needs its path tag's role_min_compute_capability
/// (= role_pipeline<...>::min_compute_capability): tma 9.0 and cp_async 8.0, what the paths need;
/// staged none (FULL/EMPTY mbarriers from sm_80, shared-memory phase counters on sm_75). Rules:
/// launch.role_pipeline_vendor (tma or cp_async on an AMD GPU; staged runs there, its stages on LDS
/// phase counters: backends/staged/amd/porter/staged/role_protocol.hpp), launch.role_pipeline_device
/// (compute capability below it), launch.role_pipeline_binary (code compiled below it, where the
/// role protocol compiles to a trap). porter::launch runs it when told the kernel uses a role
/// pipeline (launch_options::uses_role_pipeline): it cannot see that from the kernel.
void check_role_pipeline_on_device(path_id p, const device_caps& caps, int kernel_ptx_cc);

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
/// As above for a source at `where` (an argument, or a field path inside one: "kernel argument 1,
/// field 2.0").
void check_source_path(path_id p, unsigned mask, const source_desc& d, const device_caps& caps, const source_location& where,
                       const support_report* report = nullptr);
/// "kernel argument 1" / "kernel argument 1, field 2.0" (messages).
std::string describe(const source_location& where);

/// Thread-block cluster dimensions (or any three extents): x, y, z >= 1 for a launch. Converts from
/// dim3 in CUDA / HIP translation units; {2}, {2, 1, 1} and 2 also work (plain C++ has no dim3).
struct dims3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dims3() = default;
  constexpr dims3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
#if PORTER_GPU_COMPILER
  dims3(dim3 d) : x(d.x), y(d.y), z(d.z) {}
#endif
  /// x * y * z.
  constexpr unsigned long long count() const { return (unsigned long long)x * y * z; }
};

/// Largest cluster a launch may ask for without opting in to non-portable sizes (CUDA C++
/// Programming Guide, "Thread Block Clusters": 8 thread blocks is the portable maximum).
inline constexpr unsigned portable_cluster_size = 8;
/// Largest cluster porter launches at all: 16 thread blocks, the non-portable maximum of sm_90
/// (H100/H200) reached with cudaFuncAttributeNonPortableClusterSizeAllowed, which porter sets for
/// sizes above 8; the device's own limit is then read with cudaOccupancyMaxPotentialClusterSize.
inline constexpr unsigned max_cluster_size = 16;

/// Host rules of a launch with thread-block clusters of `cluster` CTAs over `grid` CTAs, for a
/// kernel whose code for the device was compiled for `kernel_ptx_cc` (0: unknown). A cluster of one
/// CTA (count() == 1) is no cluster and passes everywhere. Throws porter::error:
///  * launch.cluster_vendor (errc::path_unsupported): an AMD GPU or a HIP build: HIP has no clusters;
///  * launch.cluster_shape (errc::invalid_argument): a cluster dimension is 0;
///  * launch.cluster_size (errc::invalid_argument): more than max_cluster_size (16) CTAs;
///  * launch.cluster_device (errc::path_unsupported): compute capability below 9.0;
///  * launch.cluster_binary (errc::path_unsupported): the kernel's code is older than sm_90 (its
///    cluster helpers then compile to a cluster of one: porter::cluster_rank() would be 0);
///  * launch.cluster_grid (errc::invalid_argument): a grid dimension is not a multiple of the
///    cluster's (the runtime requires it; cudaErrorInvalidClusterSize otherwise).
/// Any concrete path may run in clusters on sm_90 (tma, cp_async, staged).
void check_cluster(dims3 grid, dims3 cluster, const device_caps& caps, int kernel_ptx_cc);

/// Host rules of a programmatic dependent launch (cudaLaunchAttributeProgrammaticStreamSerialization:
/// the kernel may start before the previous kernel in the stream has finished, and must call
/// porter::wait_prior_grid() before it reads what that kernel wrote). Throws
/// porter::error(errc::path_unsupported): launch.pdl_vendor (an AMD GPU or a HIP build),
/// launch.pdl_device (compute capability below 9.0), launch.pdl_binary (the kernel's code is older
/// than sm_90: its wait_prior_grid() compiles to nothing, which is only right without the
/// attribute). Refused rather than ignored: a kernel written for an early start is wrong if its
/// wait silently does nothing while the launch overlaps, and asking for an overlap that cannot
/// happen is a mistake worth a sentence.
void check_programmatic_dependent_launch(const device_caps& caps, int kernel_ptx_cc);

/// CTAs of `kernel` the current device holds at once when it is launched in thread-block clusters
/// of `cluster` CTAs, each of `threads` threads with `shared_bytes` bytes of dynamic shared memory:
/// cluster.count() x cudaOccupancyMaxActiveClusters (CUDA Runtime API; the CTAs of a cluster are
/// co-scheduled within one GPC, so SMs a GPC cannot fill with whole clusters hold none). Size a
/// persistent grid launched in clusters with it rather than with SMs x CTAs per SM: CTAs beyond it
/// do not start before a whole resident cluster has exited. A cluster of one CTA: SMs x
/// cudaOccupancyMaxActiveBlocksPerMultiprocessor. 0 when not even one cluster fits. Like
/// porter::launch, it first raises the kernel's dynamic shared-memory limit to `shared_bytes` when
/// that is above 48 KiB, and opts the kernel in to non-portable cluster sizes above 8. Throws porter::error:
/// launch.cluster_vendor (errc::path_unsupported) for a cluster of more than one CTA in a HIP
/// build; errc::driver when the runtime query fails (for example a cluster above the device's
/// largest); errc::no_device (device.available) without a usable GPU. The SM count is the cached
/// device query's (porter::require_device).
int resident_ctas(const void* kernel, dims3 cluster, unsigned threads, std::size_t shared_bytes);

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

/// Options of porter::launch (the form that takes them first). Build them once, outside a hot
/// loop: `copies` is a std::vector (porter::launch reads the options and allocates nothing).
///
/// cluster_dims (cluster(d)): launch in thread-block clusters of d CTAs (cudaLaunchKernelEx with
/// cudaLaunchAttributeClusterDimension; CUDA C++ Programming Guide, "Thread Block Clusters"). The
/// grid must be a multiple of d in every dimension, d.count() <= 16 (above 8 porter opts the kernel
/// in to non-portable sizes and checks the device's limit), sm_90 or newer and code for it; the
/// rules are check_cluster's. Every concrete path runs in clusters; in the kernel,
/// porter::cluster_rank(), cluster_size() and cluster_sync() (porter/cluster.hpp) see them.
///
/// dependent_launch (programmatic_dependent_launch()): the launch may start before the previous
/// kernel of the stream has finished (cudaLaunchAttributeProgrammaticStreamSerialization; the guide's
/// "Programmatic Dependent Launch and Synchronization"). The kernel must call
/// porter::wait_prior_grid() before reading what the previous kernel wrote; that kernel may call
/// porter::launch_dependents() to let this one start early. sm_90 only (check_programmatic_dependent_launch).
///
/// role_pipeline_kernel (uses_role_pipeline()): the kernel builds a porter::role_pipeline. The launch
/// then also checks check_role_pipeline_on_device for the path it runs (forced, or the one
/// automatic chose): a staged role pipeline needs compute capability 8.0 and code for it, where the
/// CTA-collective staged pipeline runs everywhere. porter::launch cannot find this out itself: it
/// sees the kernel as a function pointer `void (*)(Params...)` and its arguments, and a role
/// pipeline is built inside the kernel's body over its shared memory, in neither; nor does
/// cudaFuncGetAttributes say (registers, shared memory, ptxVersion, maxThreadsPerBlock). Without
/// the option such a kernel traps on an sm_75 device instead of being refused.
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
  dims3 cluster_dims{};           ///< CTAs per cluster; {1, 1, 1}: no cluster
  bool dependent_launch = false;  ///< programmatic dependent launch
  bool role_pipeline_kernel = false;  ///< the kernel uses a porter::role_pipeline
  /// Launch in clusters of `d` CTAs (see above).
  launch_options& cluster(dims3 d) {
    cluster_dims = d;
    return *this;
  }
  /// Allow the launch to overlap the previous kernel of its stream (see above).
  launch_options& programmatic_dependent_launch(bool on = true) {
    dependent_launch = on;
    return *this;
  }
  /// Declare that the kernel uses a porter::role_pipeline (see above): the launch refuses devices
  /// and binaries its role protocol cannot run on.
  launch_options& uses_role_pipeline(bool on = true) {
    role_pipeline_kernel = on;
    return *this;
  }
  /// True when the launch needs cudaLaunchKernelEx (a cluster of more than one CTA, or PDL).
  bool has_launch_attributes() const { return cluster_dims.count() != 1 || dependent_launch; }
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
/// The options of the forms that take none.
inline const launch_options& no_options() {
  static const launch_options o;
  return o;
}

/// The choice a kernel_family launch forced to concrete path `P` returns: path P::id, reason
/// "<P::name>: forced". One constant per path, built on first use (thread-safe static
/// initialisation), so such a launch builds no string per call.
template <class P>
const path_choice& forced_choice() {
  static const path_choice c{P::id, std::string(P::name) + ": forced"};
  return c;
}

/// What porter::launch of a kernel_family returns for path tag `Path`: the choice by value for
/// path::automatic (built for this launch), a reference to forced_choice<Path>() for a concrete path.
template <class Path>
using family_launch_result = std::conditional_t<std::is_same_v<Path, path::automatic>, path_choice, const path_choice&>;

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
/// Throws errc::driver naming cudaLaunchKernelEx when `status` (a cudaError_t) is not cudaSuccess.
void check_launch_status(int status);
/// Before a cluster launch of `cluster_ctas` CTAs above the portable 8: opt `kernel` in to
/// non-portable cluster sizes (once per kernel) and refuse (launch.cluster_size) when the device
/// cannot co-schedule that many CTAs of `threads` threads and `shared_bytes` of dynamic shared
/// memory (cudaOccupancyMaxPotentialClusterSize, cached per kernel, threads and bytes).
void allow_cluster_size(const void* kernel, unsigned cluster_ctas, unsigned threads, std::size_t shared_bytes);
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

/// The host checks of every tiled source `args` hold (arguments, fields of struct arguments) for a
/// launch that runs as path `p` (check_source_path; the source's description is built only when
/// it is refused).
template <class... Args>
void check_sources(path_id p, const device_caps& caps, const Args&... args) {
  for_each_arg(
      [&](const auto& a, int index) {
        for_each_source(a, index, [&](const auto& s, const source_location& where) {
          if (!(s.supported & path_bit(p))) check_source_path(p, s.supported, s.desc(), caps, where, s.report);
        });
      },
      args...);
}

/// The role pipeline's host check for a launch that runs as path `p`, when the options declare one
/// (launch_options::uses_role_pipeline; check_role_pipeline_on_device).
inline void check_role_pipeline(path_id p, const launch_options& o, const device_caps& caps, int kernel_ptx_cc) {
  if (o.role_pipeline_kernel) check_role_pipeline_on_device(p, caps, kernel_ptx_cc);
}

/// The launch attributes' host checks (check_cluster, check_programmatic_dependent_launch).
inline void check_launch_attributes(const launch_options& o, dims3 grid, const device_caps& caps, int kernel_ptx_cc) {
  if (o.cluster_dims.count() != 1) check_cluster(grid, o.cluster_dims, caps, kernel_ptx_cc);
  if (o.dependent_launch) check_programmatic_dependent_launch(caps, kernel_ptx_cc);
}

/// The paths every tiled source of `args` allows (candidates &= each one's mask), and their
/// descriptions in `descs` (n of them; more than `cap` are counted, not stored).
template <class... Args>
unsigned sources_allow(unsigned candidates, source_desc* descs, int cap, int& n, const Args&... args) {
  for_each_arg(
      [&](const auto& a, int index) {
        for_each_source(a, index, [&](const auto& s, const source_location&) {
          candidates &= s.supported;
          if (n < cap) descs[n] = s.desc();
          ++n;
        });
      },
      args...);
  return candidates;
}

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
namespace detail {
#if !PORTER_HIP
/// cudaLaunchKernelExC with the kernel's parameters converted from `args` (as the runtime's
/// cudaLaunchKernelEx template does; also for kernels without parameters). Allocates nothing.
template <class... Params, class... Args>
cudaError_t launch_ex(const cudaLaunchConfig_t& cfg, void (*kernel)(Params...), Args&&... args) {
  return [&](Params... p) {
    void* ptrs[sizeof...(Params) + 1] = {static_cast<void*>(&p)...};
    return cudaLaunchKernelExC(&cfg, reinterpret_cast<const void*>(kernel), ptrs);
  }(std::forward<Args>(args)...);
}
#endif
}  // namespace detail

/// Launch `kernel` for concrete path `Path` with `options` (strict paths, clusters, programmatic
/// dependent launch; see launch_options) after checking, on the host:
///  * the device exists and the kernel has code for it (cached cudaFuncGetAttributes);
///  * `Path` can run there: tma needs compute capability 9.0 and code compiled for sm_90+,
///    cp_async 8.0 and sm_80+, both an NVIDIA GPU; staged runs everywhere;
///  * when options.uses_role_pipeline() says the kernel uses a porter::role_pipeline, its role
///    protocol can run there (check_role_pipeline_on_device: staged too needs 8.0 and sm_80+ code);
///  * every porter::tiled_source the arguments hold allows `Path`: arguments that are sources, and
///    sources inside struct arguments (porter/detail/fields.hpp); the message names the argument
///    and the field path (rule launch.source_path);
///  * launch_options' rules: strict paths (launch.strict_paths), clusters (check_cluster),
///    programmatic dependent launch (check_programmatic_dependent_launch);
///  * `shared_bytes` fits the device's opt-in limit (and raises the kernel's limit above 48 KiB).
/// Then launches with `kernel<<<grid, block, shared_bytes, stream>>>(args...)`, or through
/// cudaLaunchKernelEx when the options carry launch attributes (options.has_launch_attributes()).
/// Throws porter::error naming the path, the device and the rule; otherwise launches and throws on
/// a launch error (errc::driver). Does not synchronise. Allocates nothing.
template <class Path, class... Params, class... Args>
void launch(const launch_options& options, void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, stream_t stream,
            Args&&... args) {
  static_assert(is_concrete_path<Path>::value,
                "porter::launch<Path>(options, kernel, ...): Path must be a concrete path tag; for automatic pass a porter::kernel_family.");
  static_assert(sizeof...(Params) == sizeof...(Args), "porter::launch: give one argument per kernel parameter.");
  if constexpr (PORTER_HIP && Path::nvidia_only) {
    // Refused before anything else (no device needed to know): only reachable in a HIP build with
    // PORTER_HIP_REFUSE_NVIDIA_PATHS_AT_LAUNCH=1; otherwise the pipeline does not compile.
    detail::refuse_in_hip_build(Path::id);
  }
  detail::check_launch_options(Path::id, options, args...);
  const device_caps& caps = detail::require_current_device();
  const void* f = reinterpret_cast<const void*>(kernel);
  const detail::function_info& fi = detail::function_info_of(f);
  if (!fi.ok) detail::throw_no_code(fi);
  check_path_on_device(Path::id, caps, fi.ptx_version);
  detail::check_role_pipeline(Path::id, options, caps, fi.ptx_version);
  check_block_size(block.x * block.y * block.z, fi.max_threads, Path::name);
  detail::check_sources(Path::id, caps, args...);
  detail::check_launch_attributes(options, grid, caps, fi.ptx_version);
  check_shared_memory(shared_bytes + (caps.hip ? fi.static_smem : 0), caps);
  detail::allow_dynamic_shared_memory(f, shared_bytes);
#if !PORTER_HIP
  if (options.has_launch_attributes()) {
    const unsigned cluster_ctas = unsigned(options.cluster_dims.count());
    if (cluster_ctas > portable_cluster_size) detail::allow_cluster_size(f, cluster_ctas, block.x * block.y * block.z, shared_bytes);
    cudaLaunchAttribute attrs[2] = {};
    unsigned n = 0;
    if (cluster_ctas != 1) {
      attrs[n].id = cudaLaunchAttributeClusterDimension;
      attrs[n].val.clusterDim.x = options.cluster_dims.x;
      attrs[n].val.clusterDim.y = options.cluster_dims.y;
      attrs[n].val.clusterDim.z = options.cluster_dims.z;
      ++n;
    }
    if (options.dependent_launch) {
      attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attrs[n].val.programmaticStreamSerializationAllowed = 1;
      ++n;
    }
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = shared_bytes;
    cfg.stream = stream;
    cfg.attrs = attrs;
    cfg.numAttrs = n;
    detail::check_launch_status(int(detail::launch_ex(cfg, kernel, std::forward<Args>(args)...)));
    return;
  }
#endif
  kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
  detail::check_launched();
}

/// Launch `kernel<<<grid, block, shared_bytes, stream>>>(args...)` for concrete path `Path`: the
/// form with options (above) with none.
template <class Path, class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, stream_t stream, Args&&... args) {
  static_assert(is_path<Path>::value, "porter::launch<Path>: Path must be a porter::path tag.");
  static_assert(!std::is_same_v<Path, path::automatic>,
                "porter::launch<path::automatic> chooses among a kernel's instantiations: pass "
                "porter::kernel_family{[](auto p) { return &my_kernel<decltype(p)>; }} instead of one function.");
  if constexpr (is_concrete_path<Path>::value)
    launch<Path>(detail::no_options(), kernel, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
}

/// The path porter::launch<path::automatic> would run `family` with these arguments on the
/// current device, and why (explain for a launch): the paths the device and the family's binaries
/// run, narrowed by every tiled source the arguments hold (inside struct arguments too), then the
/// cost model over those sources. Throws errc::no_device without a GPU.
template <class Make, class... Args>
path_choice choose_path_for(const kernel_family<Make>& family, const Args&... args) {
  const device_caps& caps = detail::require_current_device();
  unsigned candidates = 0;
  lowerings::for_each_path(lowerings::all{}, [&](auto p) {
    using P = decltype(p);
    if (!detail::device_runs(P::id, caps)) return;
    const detail::function_info& fi = detail::function_info_of(reinterpret_cast<const void*>(family.make(p)));
    if (!fi.ok || (P::min_compute_capability > 0 && fi.ptx_version > 0 && fi.ptx_version < P::min_compute_capability)) return;
    candidates |= path_bit(P::id);
  });
  constexpr int cap = 16;  // sources described on the stack; more (rare) go to a vector
  source_desc descs[cap];
  int n = 0;
  candidates = detail::sources_allow(candidates, descs, cap, n, args...);
  std::vector<source_desc> more;
  const source_desc* stack_ptrs[cap];
  std::vector<const source_desc*> heap_ptrs;
  const source_desc* const* ptrs = stack_ptrs;
  if (n > cap) {
    more.resize(std::size_t(n));
    int m = 0;
    detail::sources_allow(~0u, more.data(), n, m, args...);
    heap_ptrs.resize(std::size_t(n));
    for (int i = 0; i < n; ++i) heap_ptrs[std::size_t(i)] = &more[std::size_t(i)];
    ptrs = heap_ptrs.data();
  } else {
    for (int i = 0; i < n; ++i) stack_ptrs[i] = &descs[i];
  }
  return choose_path(candidates, caps, ptrs, n);
}

namespace detail {
/// Launch the instantiation of `family` for concrete path `p` of this build's registry (the
/// concrete form's checks and launch). Throws errc::path_unsupported (rule launch.path_vendor)
/// when the registry has no lowering for `p`.
template <class Make, class... Args>
void launch_family_as(path_id p, const launch_options& options, const kernel_family<Make>& family, dim3 grid, dim3 block,
                      std::size_t shared_bytes, stream_t stream, Args&&... args) {
  bool launched = false;
  lowerings::for_each_path(lowerings::all{}, [&](auto q) {
    using P = decltype(q);
    if (launched || P::id != p) return;
    launched = true;
    launch<P>(options, family.make(q), grid, block, shared_bytes, stream, std::forward<Args>(args)...);
  });
  if (!launched)
    throw error(errc::path_unsupported, "launch.path_vendor",
                std::string("path ") + path_id_name(p) + " has no lowering in this build (" +
                    (PORTER_HIP ? "HIP: AMD GPUs run staged" : "CUDA") + ")");
}
}  // namespace detail

/// Launch the instantiation of `family` for the path `automatic` chooses (choose_path_for), or for
/// `Path` when it is concrete, with the checks and the launch of the concrete form (options
/// included: strict paths for the chosen path, clusters, dependent launch). Returns the choice:
/// for path::automatic by value, with the cost model's sentence; for a concrete path a reference to
/// that path's constant choice (detail::forced_choice: reason "<path>: forced", built on first
/// use), so the forced form builds no string per call. Throws as the concrete form does.
template <class Path, class Make, class... Args>
detail::family_launch_result<Path> launch(const launch_options& options, const kernel_family<Make>& family, dim3 grid, dim3 block,
                                          std::size_t shared_bytes, stream_t stream, Args&&... args) {
  static_assert(is_path<Path>::value, "porter::launch<Path>: Path must be a porter::path tag.");
  if constexpr (std::is_same_v<Path, path::automatic>) {
    path_choice c = choose_path_for(family, args...);
    detail::launch_family_as(c.path, options, family, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
    return c;
  } else {
    detail::launch_family_as(Path::id, options, family, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
    return detail::forced_choice<Path>();
  }
}

/// Launch the instantiation of `family` for the path `automatic` chooses (choose_path_for), or for
/// `Path` when it is concrete, with the checks of the concrete form. Returns the choice (as the
/// form with options).
template <class Path, class Make, class... Args>
detail::family_launch_result<Path> launch(const kernel_family<Make>& family, dim3 grid, dim3 block, std::size_t shared_bytes,
                                          stream_t stream, Args&&... args) {
  return launch<Path>(detail::no_options(), family, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
}

#endif  // PORTER_GPU_COMPILER

}  // namespace porter
