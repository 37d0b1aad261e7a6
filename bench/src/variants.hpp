// bench/src/variants.hpp — what a kernel translation unit hands to the porter-bench driver.
//
// Every timed GPU implementation of a workload is a `variant`: a description (implementation,
// path, stages, threads, shared memory, the kernel's address for occupancy and attributes) and
// `bind`, which prepares the arguments for one problem (tiled sources, tensor maps) and returns the
// launch. Kernel TUs fill the registries below; the driver (plain C++) never sees a kernel body.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace pb {

/// How a variant moves its tiles (for the report).
struct kernel_desc {
  std::string impl;         ///< "porter", "manual" (hand-written pipeline of `path`) or
                            ///< "manual-cuda-pipeline" (cuda::pipeline + cuda::memcpy_async)
  std::string path;         ///< porter::path_name<P>, or the instruction family a hand-written pipeline uses
  int stages = 0;           ///< pipeline stages
  int threads = 0;          ///< threads per CTA
  std::size_t smem = 0;     ///< dynamic shared memory per CTA, bytes
  std::size_t stage_bytes = 0;  ///< bytes one stage brings in (the ring's stage size)
  std::size_t fixed_smem = 0;   ///< dynamic shared memory besides the stages (barrier header, slack)
  int min_cc = 0;           ///< compute capability the path needs (90, 80, 0)
  int only_cc = 0;          ///< nonzero: the one compute capability the code runs on (sm_90a code: 90)
  bool async_copies = true; ///< false for the staged path (synchronous loads, CTA barrier)
  const void* func = nullptr;  ///< the __global__ function (occupancy, attributes)
  std::string kernel;       ///< function name as ncu shows it, e.g. "pb_stream"
  int default_stages = 0;   ///< this kernel's main-table stage count when it has its own (0: the workload's)
};

/// CTAs of `d` per SM on this device (0: does not fit); sets the >48 KiB shared-memory attribute
/// (cudaOccupancyMaxActiveBlocksPerMultiprocessor with d.threads and d.smem). In workloads.cpp.
int ctas_per_sm(const kernel_desc& d);

/// A prepared launch: enqueue one run on the stream.
using launcher = std::function<void(cudaStream_t)>;

struct stream_problem {
  const float* x;
  float* y;
  long long n;
  float a, b;
};
struct stencil_problem {
  const float* in;
  float* out;
  int h, w;
};
struct sgemm_problem {
  const float* at;  ///< A transposed: K x M, row-major
  const float* b;   ///< K x N, row-major
  float* c;         ///< M x N, row-major
  int m, n, k;
};
/// smallgemm: C = A * B with every matrix row-major (A is M x K, B is K x N, C is M x N).
struct smallgemm_problem {
  const float* a;  ///< M x K, row-major
  const float* b;  ///< K x N, row-major
  float* c;        ///< M x N, row-major
  int m, n, k;
};

/// bf16gemm: C = A * B^T ("TN"): A is M x K and B is N x K, both bf16 row-major (K contiguous);
/// C is M x N fp32 row-major.
struct bf16gemm_problem {
  const __nv_bfloat16* a;  ///< M x K, row-major
  const __nv_bfloat16* b;  ///< N x K, row-major
  float* c;                ///< M x N, row-major
  int m, n, k;
};

/// copy2d: y = x over an h x w row-major grid; transpose: y (w x h) = x (h x w)^T.
struct grid2d_problem {
  const float* x;
  float* y;
  int h, w;
};

/// ports (bench/ports/): one problem per before/after pair. `a` (and `b` where the pair has a second
/// input) are inputs, `out` the output; `n` counts the floats of a 1D input, `rows` x `cols` is a
/// 2D grid, and the matmul is C (rows x cols) = A (rows x depth) B (depth x cols). A pair whose
/// inputs A and B are bf16 (port_pair::ab_bytes == 2) gets them in `a16` and `b16` (`a`, `b` null);
/// `c` is a third fp32 input where the pair has one (the bf16 GEMM's C, rows x cols).
struct port_problem {
  const float* a = nullptr;
  const float* b = nullptr;
  const void* a16 = nullptr;  ///< bf16 (__nv_bfloat16) A, when port_pair::ab_bytes == 2
  const void* b16 = nullptr;  ///< bf16 B, likewise
  const float* c = nullptr;
  float* out = nullptr;
  long long n = 0;
  int rows = 0, cols = 0, depth = 0;
};

template <class Problem>
struct variant {
  kernel_desc d;
  /// Build the launch for `p` on a grid of `grid` CTAs. Throws porter::error when the path cannot
  /// read the problem's sources.
  std::function<launcher(const Problem& p, int grid)> bind;
  /// For path "automatic": the concrete path porter::launch chooses for `p` and why (else unset).
  std::function<std::string(const Problem& p)> resolved;
};

/// One measured port: the "before" (impl "before", or "original" for the public kernel) and its
/// porter port on every path and `automatic` (impl "porter"), on one problem.
struct port_pair {
  std::string name;         ///< e.g. "asm-cp-async" (the scanner's idiom) or "public: ..."
  std::string computes;     ///< what the kernels compute, in words
  std::string size;         ///< for the report
  port_problem shape;       ///< the problem's sizes (pointers unset)
  long long a_elems = 0, b_elems = 0, out_elems = 0;  ///< elements per buffer (out: floats)
  long long c_elems = 0;    ///< floats of the third input `c` (0: none)
  int ab_bytes = 4;         ///< bytes per element of a and b: 4 (fp32) or 2 (bf16, rounded from fp32)
  double bytes = 0, flops = 0;  ///< counted per run
  std::string unit;         ///< "GB/s" or "TFLOP/s"
  std::string note;         ///< e.g. why the public original is not in this build
  std::vector<variant<port_problem>> variants;
};

/// boxsize: the kernels of one box size (bench/kernels/shapes.hpp boxsize_shape), every path and
/// automatic; a 1D set runs on a stream_problem, a 2D set on a grid2d_problem (y = 1.5 x - 0.25).
struct boxsize_set {
  int rank = 1;
  std::size_t box_bytes = 0;  ///< bytes of one box (one TMA copy)
  std::string shape;          ///< e.g. "1D 4096 fp32 (16 KiB)"
  std::vector<variant<stream_problem>> v1;
  std::vector<variant<grid2d_problem>> v2;
};
/// The constants of the 2D boxsize kernels' y = a * x + b (grid2d_problem carries none).
constexpr float boxsize_a = 1.5f, boxsize_b = -0.25f;

struct registry {
  std::vector<variant<stream_problem>> stream;
  std::vector<variant<stencil_problem>> stencil[3];  // [radius]; 1 and 2 used
  std::vector<variant<sgemm_problem>> sgemm;
  std::vector<variant<smallgemm_problem>> smallgemm;
  std::vector<variant<bf16gemm_problem>> bf16gemm;
  std::vector<variant<grid2d_problem>> copy2d;
  std::vector<variant<grid2d_problem>> transpose;
  std::vector<port_pair> ports;
  std::vector<boxsize_set> boxsize;  ///< ordered by rank, then box bytes
  /// The set of `rank` and `bytes`, created (with `shape`) at the first call.
  boxsize_set& boxsize_of(int rank, std::size_t bytes, const std::string& shape) {
    for (auto& b : boxsize)
      if (b.rank == rank && b.box_bytes == bytes) return b;
    boxsize.push_back({});
    boxsize.back().rank = rank;
    boxsize.back().box_bytes = bytes;
    boxsize.back().shape = shape;
    return boxsize.back();
  }
  /// The pair named `name`, created empty at the first call.
  port_pair& port(const std::string& name) {
    for (auto& p : ports)
      if (p.name == name) return p;
    ports.push_back({});
    ports.back().name = name;
    return ports.back();
  }
};

// Filled by the kernel translation units (each compiled for its own list of targets).
void register_default_kernels(registry& r);  ///< porter kernels at the default stage counts (all targets)
void register_boxsize_kernels(registry& r);  ///< the boxsize sweep: every box size, every path and automatic
void register_sweep_kernels(registry& r);    ///< porter kernels at the other stage counts 1..8
void register_bf16gemm_kernels(registry& r); ///< the bf16 tensor-core GEMM at its default stages, every path and automatic (all targets)
void register_bf16gemm_wgmma_kernels(registry& r);  ///< the bf16 GEMM with wgmma and producer/consumer roles, every path (sm_90a only)
void register_bf16gemm_roles_kernels(registry& r);  ///< the mma.sync bf16 GEMM with producer/consumer roles and setmaxnreg, every path (sm_90a only)
void register_manual_kernels(registry& r);   ///< hand-written cp.async pipelines, stages 1..8
void register_manual_tma_kernels(registry& r);  ///< hand-written TMA pipelines, stages 1..8
void register_cuda_pipeline_kernels(registry& r);  ///< smallgemm with cuda::pipeline, stages 1..8
/// bench/ports/: the "before" kernels of each idiom, their porter ports (every path and automatic),
/// the public kernel's port, and the public original when this build has it (else a note).
void register_port_befores(registry& r);
void register_port_afters(registry& r);
void register_public_original(registry& r);
namespace ports {
/// The bf16 tensor-core sample's original, when PORTER_PORTS_ORIGINAL_BF16GEMM names it (else a note).
void register_public_bf16gemm_original(registry& r);
}  // namespace ports
/// Targets the sweep kernels were compiled for (e.g. "90"), for messages.
const char* sweep_architectures();

/// The memory latency porter::plan_schedule is given (ns; 0 until measured: the planner's default).
/// porter-bench measures it with a pointer chase before the first porter variant is bound.
double planner_latency_ns();
void set_planner_latency_ns(double ns);

}  // namespace pb
