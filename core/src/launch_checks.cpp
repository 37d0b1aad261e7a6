// Host-side launch guard rules and the launch caches (see porter/launch.hpp).
#include "porter/config.hpp"
#if PORTER_HIP
#  include <hip/hip_runtime_api.h>
#else
#  include <cuda_runtime.h>
#endif

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "porter/error.hpp"
#include "porter/launch.hpp"
#include "rules/rules.hpp"

namespace porter {

namespace {
std::string dims_text(dims3 d) { return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z); }
/// "8.0" for a compute capability written 80 (major x 10 + minor), and the device's own.
std::string cc_text(int cc) { return std::to_string(cc / 10) + "." + std::to_string(cc % 10); }
std::string cc_text(const device_caps& caps) { return std::to_string(caps.cc_major) + "." + std::to_string(caps.cc_minor); }
}  // namespace

void check_path_on_device(path_id p, const device_caps& caps, int kernel_ptx_cc) {
  const rules::lowering_rules& l = rules::rules_of(p);
  const std::string name = l.name;
  const int min_cc = l.min_compute_capability;
  if (l.nvidia_only && caps.hip)
    throw error(errc::path_unsupported, "launch.path_vendor",
                "path " + name + " is an NVIDIA instruction family; device " + std::to_string(caps.device) + " '" + caps.describe() +
                    "' is an AMD GPU, where porter moves tiles with the staged path (use porter::path::staged or porter::path::automatic)");
  if (min_cc > 0 && caps.compute_capability() < min_cc)
    throw error(errc::path_unsupported, "launch.path_device",
                "path " + name + " needs compute capability " + cc_text(min_cc) + " (" + l.instructions + "); device " +
                    std::to_string(caps.device) + " '" + caps.name + "' has " + cc_text(caps));
  if (min_cc > 0 && kernel_ptx_cc > 0 && kernel_ptx_cc < min_cc)
    throw error(errc::path_unsupported, "launch.path_binary",
                "path " + name + " needs code compiled for sm_" + std::to_string(min_cc) + " or newer; the kernel's code for device '" +
                    caps.name + "' was compiled for compute_" + std::to_string(kernel_ptx_cc) + " (add " +
                    std::to_string(caps.compute_capability()) + " to the target's CUDA_ARCHITECTURES)");
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

void check_block_size(unsigned threads, int max_threads, const char* path_name) {
  if (max_threads > 0 && threads > unsigned(max_threads))
    throw error(errc::invalid_argument, "launch.block_size",
                "the launch asks for " + std::to_string(threads) + " threads per CTA; the kernel's " + path_name +
                    " instantiation allows at most " + std::to_string(max_threads) +
                    " (cudaFuncAttributes::maxThreadsPerBlock, limited by its registers)");
}

void check_source_path(path_id p, unsigned mask, const source_desc& d, const device_caps& caps, int index,
                       const support_report* report) {
  source_location where;
  where.argument = index;
  check_source_path(p, mask, d, caps, where, report);
}

std::string describe(const source_location& where) {
  std::string s = "kernel argument " + std::to_string(where.argument);
  if (where.depth == 0) return s;
  s += ", field ";
  for (int i = 0; i < where.depth && i < source_location::max_depth; ++i) s += (i ? "." : "") + std::to_string(where.field[i]);
  if (where.depth > source_location::max_depth) s += ".(" + std::to_string(where.depth - source_location::max_depth) + " more)";
  return s;
}

void check_source_path(path_id p, unsigned mask, const source_desc& d, const device_caps& caps, const source_location& where,
                       const support_report* report) {
  if (mask & path_bit(p)) return;
  throw error(errc::path_unsupported, "launch.source_path",
              std::string("path ") + path_id_name(p) + " cannot read " + describe(where) + " (a tiled source):\n" + explain(d, &caps, report));
}

void check_role_pipeline_on_device(path_id p, const device_caps& caps, int kernel_ptx_cc) {
  const rules::lowering_rules& l = rules::rules_of(p);
  const int min_cc = l.role_min_compute_capability;
  // The sentences are built only when a rule fails.
  const auto asked = [&] { return std::string("a kernel with a porter::role_pipeline on path ") + l.name; };
  const auto why = [&] {
    return min_cc > l.min_compute_capability ? std::string("its stages complete on FULL/EMPTY mbarriers")
                                             : std::string("the path's ") + l.instructions + ", its stages on FULL/EMPTY mbarriers";
  };
  if (caps.hip) {
    // AMD: the staged lowering's AMD flavour completes a role-split stage on LDS phase counters
    // (backends/staged/amd/porter/staged/role_protocol.hpp) on every gfx9 target; the NVIDIA paths
    // have no AMD lowering at all (launch.path_vendor refuses them first).
    if (p == path_id::staged) return;
    throw error(errc::path_unsupported, "launch.role_pipeline_vendor",
                asked() + ": its FULL/EMPTY mbarriers and copies are NVIDIA instructions (device '" + caps.describe() +
                    "'); on AMD a role pipeline runs on path staged");
  }
  if (caps.compute_capability() < min_cc)
    throw error(errc::path_unsupported, "launch.role_pipeline_device",
                asked() + " needs compute capability " + cc_text(min_cc) + " (" + why() + "); device " + std::to_string(caps.device) + " '" +
                    caps.name + "' has " + cc_text(caps) +
                    ", where the kernel would trap: use path staged there (its role pipeline runs on every GPU) or porter::pipeline");
  if (kernel_ptx_cc > 0 && kernel_ptx_cc < min_cc)
    throw error(errc::path_unsupported, "launch.role_pipeline_binary",
                asked() + " needs code compiled for sm_" + std::to_string(min_cc) + " or newer; the kernel's code for device '" +
                    caps.name + "' was compiled for compute_" + std::to_string(kernel_ptx_cc) +
                    ", where the role protocol compiles to a trap (add " + std::to_string(caps.compute_capability()) +
                    " to the target's CUDA_ARCHITECTURES)");
}

void check_cluster(dims3 grid, dims3 cluster, const device_caps& caps, int kernel_ptx_cc) {
  if (cluster.count() == 1) return;
  // The sentence is built only when a rule fails: a launch that passes allocates nothing here.
  const auto asked = [&] { return "a launch in thread-block clusters of " + dims_text(cluster) + " CTAs"; };
  if (caps.hip)
    throw error(errc::path_unsupported, "launch.cluster_vendor",
                asked() + ": HIP and AMD GPUs have no thread-block clusters (device '" + caps.describe() +
                    "'); launch without launch_options::cluster");
  if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0)
    throw error(errc::invalid_argument, "launch.cluster_shape", asked() + ": every cluster dimension must be at least 1");
  if (cluster.count() > max_cluster_size)
    throw error(errc::invalid_argument, "launch.cluster_size",
                asked() + " asks for " + std::to_string(cluster.count()) + " CTAs per cluster; at most " +
                    std::to_string(portable_cluster_size) + " are portable and " + std::to_string(max_cluster_size) +
                    " the most any GPU allows (sm_90 with cudaFuncAttributeNonPortableClusterSizeAllowed)");
  if (caps.compute_capability() < 90)
    throw error(errc::path_unsupported, "launch.cluster_device",
                asked() + " needs compute capability 9.0 (thread-block clusters); device " + std::to_string(caps.device) + " '" + caps.name +
                    "' has " + cc_text(caps));
  if (kernel_ptx_cc > 0 && kernel_ptx_cc < 90)
    throw error(errc::path_unsupported, "launch.cluster_binary",
                asked() + " needs the kernel's code compiled for sm_90 or newer; its code for device '" + caps.name +
                    "' was compiled for compute_" + std::to_string(kernel_ptx_cc) +
                    " (porter's cluster helpers compile to a cluster of one there; add " + std::to_string(caps.compute_capability()) +
                    " to the target's CUDA_ARCHITECTURES)");
  if (grid.x % cluster.x != 0 || grid.y % cluster.y != 0 || grid.z % cluster.z != 0)
    throw error(errc::invalid_argument, "launch.cluster_grid",
                asked() + " over a grid of " + dims_text(grid) + " CTAs: every grid dimension must be a multiple of the cluster's (" +
                    (grid.x % cluster.x != 0 ? "x: " + std::to_string(grid.x) + " is not a multiple of " + std::to_string(cluster.x)
                     : grid.y % cluster.y != 0 ? "y: " + std::to_string(grid.y) + " is not a multiple of " + std::to_string(cluster.y)
                                               : "z: " + std::to_string(grid.z) + " is not a multiple of " + std::to_string(cluster.z)) +
                    ")");
}

void check_programmatic_dependent_launch(const device_caps& caps, int kernel_ptx_cc) {
  const char* const asked_text = "a programmatic dependent launch (launch_options::programmatic_dependent_launch)";
  const auto asked = [&] { return std::string(asked_text); };
  if (caps.hip)
    throw error(errc::path_unsupported, "launch.pdl_vendor",
                asked() + ": HIP has no programmatic dependent launch (device '" + caps.describe() + "'); launch without it");
  if (caps.compute_capability() < 90)
    throw error(errc::path_unsupported, "launch.pdl_device",
                asked() + " needs compute capability 9.0 (griddepcontrol); device " + std::to_string(caps.device) + " '" + caps.name +
                    "' has " + cc_text(caps) + "; launch without it (stream order then serialises the kernels)");
  if (kernel_ptx_cc > 0 && kernel_ptx_cc < 90)
    throw error(errc::path_unsupported, "launch.pdl_binary",
                asked() + " needs the kernel's code compiled for sm_90 or newer; its code for device '" + caps.name +
                    "' was compiled for compute_" + std::to_string(kernel_ptx_cc) +
                    ", where porter::wait_prior_grid() compiles to nothing and the kernel would read its predecessor's "
                    "output too early (add " + std::to_string(caps.compute_capability()) + " to the target's CUDA_ARCHITECTURES)");
}

namespace detail {

void check_copies_argument(const source_copies& c, int rank) {
  if (rank == 0)
    throw error(errc::invalid_argument, "launch.copies_argument",
                "launch_options names the copies of kernel argument " + std::to_string(c.argument) + ", which is not a porter::tiled_source");
  if (rank != c.pattern.rank)
    throw error(errc::invalid_argument, "launch.copies_argument",
                "launch_options gives kernel argument " + std::to_string(c.argument) + " (a tiled source of rank " + std::to_string(rank) +
                    ") a copy pattern of rank " + std::to_string(c.pattern.rank));
}

void refuse_in_hip_build(path_id p) {
  const rules::lowering_rules& l = rules::rules_of(p);
  if (!l.nvidia_only) return;
  throw error(errc::path_unsupported, "launch.path_vendor",
              std::string("path ") + l.name + " is an NVIDIA instruction family; this program was compiled for AMD GPUs with HIP, "
                                               "where porter moves tiles with the staged path (use porter::path::staged or porter::path::automatic)");
}

bool device_runs(path_id p, const device_caps& caps) { return rules::runs_here(rules::rules_of(p), &caps); }

namespace {
std::mutex cache_mu;
}  // namespace

const function_info& function_info_of(const void* kernel) {
  static std::map<std::pair<int, const void*>, function_info> cache;
  int dev = 0;
#if PORTER_HIP
  (void)hipGetDevice(&dev);
#else
  cudaGetDevice(&dev);
#endif
  std::lock_guard<std::mutex> lock(cache_mu);
  auto key = std::make_pair(dev, kernel);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  function_info fi;
#if PORTER_HIP
  hipFuncAttributes a{};
  if (hipError_t e = hipFuncGetAttributes(&a, kernel); e != hipSuccess) {
    fi.error = std::string("hipFuncGetAttributes failed: ") + hipGetErrorString(e) +
               " (does the build include a code object for this GPU? set the target's HIP architectures)";
    (void)hipGetLastError();
  } else {
    fi.ok = true;
    fi.max_threads = a.maxThreadsPerBlock;
    fi.static_smem = a.sharedSizeBytes;
  }
#else
  cudaFuncAttributes a{};
  if (cudaError_t e = cudaFuncGetAttributes(&a, kernel); e != cudaSuccess) {
    fi.error = std::string("cudaFuncGetAttributes failed: ") + cudaGetErrorString(e) +
               " (does the build include code for this GPU? set the target's CUDA_ARCHITECTURES)";
    cudaGetLastError();
  } else {
    fi.ok = true;
    fi.ptx_version = a.ptxVersion;
    fi.max_threads = a.maxThreadsPerBlock;
    fi.static_smem = a.sharedSizeBytes;
  }
#endif
  return cache.emplace(key, std::move(fi)).first->second;
}

[[noreturn]] void throw_no_code(const function_info& fi) { throw error(errc::driver, PORTER_HIP ? "hip.runtime" : "cuda.runtime", fi.error); }

void allow_dynamic_shared_memory(const void* kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;
  // The attribute is set per device: key the cache on (current device, kernel).
  int device = 0;
#if PORTER_HIP
  (void)hipGetDevice(&device);
#else
  (void)cudaGetDevice(&device);
#endif
  static std::map<std::pair<int, const void*>, std::size_t> raised;  // the largest limit set per device and kernel
  std::lock_guard<std::mutex> lock(cache_mu);
  const std::pair<int, const void*> key{device, kernel};
  auto it = raised.find(key);
  if (it != raised.end() && it->second >= bytes) return;
#if PORTER_HIP
  if (hipError_t e = hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize, int(bytes)); e != hipSuccess)
    throw error(errc::driver, "hip.runtime", std::string("hipFuncSetAttribute(MaxDynamicSharedMemorySize) failed: ") + hipGetErrorString(e));
#else
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)); e != cudaSuccess)
    throw error(errc::driver, "cuda.runtime",
                std::string("cudaFuncSetAttribute(MaxDynamicSharedMemorySize) failed: ") + cudaGetErrorString(e));
#endif
  raised[key] = bytes;
}

void check_launch_status(int status) {
#if PORTER_HIP
  (void)status;
#else
  const cudaError_t e = cudaError_t(status);
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();  // the launch error is not sticky: clear it so later calls do not see it
  throw error(errc::driver, "cuda.runtime",
              std::string("cudaLaunchKernelEx failed: ") + cudaGetErrorString(e) + " (error " + std::to_string(int(e)) + ")");
#endif
}

void allow_cluster_size(const void* kernel, unsigned cluster_ctas, unsigned threads, std::size_t shared_bytes) {
#if PORTER_HIP
  (void)kernel, (void)cluster_ctas, (void)threads, (void)shared_bytes;
#else
  // The opt-in and the limit are per device: every cache key includes the current device.
  int device = 0;
  (void)cudaGetDevice(&device);
  struct key_t {
    int device;
    const void* k;
    unsigned threads;
    std::size_t bytes;
    bool operator<(const key_t& o) const {
      if (device != o.device) return device < o.device;
      return k != o.k ? std::less<const void*>()(k, o.k) : threads != o.threads ? threads < o.threads : bytes < o.bytes;
    }
  };
  static std::set<std::pair<int, const void*>> opted_in;
  static std::map<key_t, int> max_size;
  std::lock_guard<std::mutex> lock(cache_mu);
  if (opted_in.count({device, kernel}) == 0) {
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1); e != cudaSuccess) {
      (void)cudaGetLastError();
      throw error(errc::driver, "cuda.runtime",
                  std::string("cudaFuncSetAttribute(NonPortableClusterSizeAllowed) failed: ") + cudaGetErrorString(e));
    }
    opted_in.insert({device, kernel});
  }
  const key_t key{device, kernel, threads, shared_bytes};
  auto it = max_size.find(key);
  if (it == max_size.end()) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(cluster_ctas);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = shared_bytes;
    int n = 0;
    if (cudaError_t e = cudaOccupancyMaxPotentialClusterSize(&n, kernel, &cfg); e != cudaSuccess) {
      (void)cudaGetLastError();
      throw error(errc::driver, "cuda.runtime", std::string("cudaOccupancyMaxPotentialClusterSize failed: ") + cudaGetErrorString(e));
    }
    it = max_size.emplace(key, n).first;
  }
  if (unsigned(it->second) < cluster_ctas)
    throw error(errc::invalid_argument, "launch.cluster_size",
                "a launch in thread-block clusters of " + std::to_string(cluster_ctas) + " CTAs (" + std::to_string(threads) + " threads, " +
                    std::to_string(shared_bytes) + " B of dynamic shared memory each): this device and kernel allow at most " +
                    std::to_string(it->second) + " CTAs per cluster (cudaOccupancyMaxPotentialClusterSize)");
#endif
}

void check_launched() {
#if PORTER_HIP
  if (hipError_t e = hipGetLastError(); e != hipSuccess)
    throw error(errc::driver, "hip.runtime", std::string("kernel launch failed: ") + hipGetErrorString(e) + " (error " + std::to_string(int(e)) + ")");
#else
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    throw error(errc::driver, "cuda.runtime", std::string("kernel launch failed: ") + cudaGetErrorString(e) + " (error " + std::to_string(int(e)) + ")");
#endif
}

}  // namespace detail

int resident_ctas(const void* kernel, dims3 cluster, unsigned threads, std::size_t shared_bytes) {
#if PORTER_HIP
  if (cluster.count() > 1)
    throw error(errc::path_unsupported, "launch.cluster_vendor", "HIP has no thread-block clusters: resident_ctas needs a cluster of one CTA");
  int per_sm = 0;
  if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(threads), shared_bytes) != hipSuccess) {
    (void)hipGetLastError();
    throw error(errc::driver, "hip.runtime", "hipOccupancyMaxActiveBlocksPerMultiprocessor failed");
  }
  return per_sm * detail::require_current_device().sm_count;
#else
  // Raise the kernel's dynamic shared-memory limit first, as porter::launch does: the occupancy
  // queries below answer for the limit the kernel has.
  if (shared_bytes > 48 * 1024) detail::allow_dynamic_shared_memory(kernel, shared_bytes);
  if (cluster.count() <= 1) {
    int per_sm = 0;
    if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(threads), shared_bytes); e != cudaSuccess) {
      (void)cudaGetLastError();
      throw error(errc::driver, "cuda.runtime", std::string("cudaOccupancyMaxActiveBlocksPerMultiprocessor failed: ") + cudaGetErrorString(e));
    }
    return per_sm * detail::require_current_device().sm_count;  // the cached device query, as porter::launch's
  }
  if (cluster.count() > portable_cluster_size) detail::allow_cluster_size(kernel, unsigned(cluster.count()), threads, shared_bytes);
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1] = {};
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster.x;
  attr[0].val.clusterDim.y = cluster.y;
  attr[0].val.clusterDim.z = cluster.z;
  cfg.gridDim = dim3(cluster.x, cluster.y, cluster.z);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = shared_bytes;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int clusters = 0;
  if (cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg); e != cudaSuccess) {
    (void)cudaGetLastError();
    throw error(errc::driver, "cuda.runtime", std::string("cudaOccupancyMaxActiveClusters failed: ") + cudaGetErrorString(e));
  }
  return clusters * int(cluster.count());
#endif
}

}  // namespace porter
