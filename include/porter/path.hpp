// porter/path.hpp — the data paths (how bytes move) and how each one completes.
//
// A path is a compile-time tag given to porter::pipeline and porter::launch. Each concrete path
// names the instruction family it lowers to, the oldest compute capability that has it, and its
// completion mechanism (CCCL's cuda::memcpy_async reports the same thing as its completion kind).
//
//   path        lowers to                                          completes through      needs
//   tma         cp.async.bulk (1D), cp.async.bulk.tensor (2D-5D)   mbarrier transaction  sm_90
//   cp_async    cp.async.{cg,ca}.shared.global, zero-fill operand  cp.async group + mbarrier  sm_80
//   staged      vector ld.global + st.shared                       CTA barrier           any GPU
//   automatic   the best of the above the target and source allow  (per target)          any GPU
#pragma once
#include <type_traits>

#include "porter/config.hpp"

namespace porter {

/// Runtime name of a concrete path (host reports, explain(), the launch guard).
enum class path_id : int { tma = 0, cp_async = 1, staged = 2 };

/// How the copies of a path signal that bytes have landed in shared memory.
enum class completion {
  mbarrier_tx,      ///< the copy engine counts transaction bytes on the stage's mbarrier (PTX 9.7.13.15.x)
  mbarrier_arrive,  ///< each thread waits for its own cp.async group (cp.async.wait_group), then arrives on the stage's mbarrier
  cta_barrier,      ///< plain stores, then a CTA-wide barrier (bar.sync / s_barrier)
};

namespace path {
/// Hopper tensor memory accelerator: one elected thread issues bulk copies that complete on an
/// mbarrier with expected transaction bytes. Needs compute capability 9.0.
struct tma {
  static constexpr path_id id = path_id::tma;
  static constexpr const char* name = "tma";
  static constexpr porter::completion completion = porter::completion::mbarrier_tx;
  static constexpr int min_compute_capability = 90;
};
/// Ampere asynchronous copies: every thread issues 16-, 8- or 4-byte cp.async chunks with a
/// source-size operand that zero-fills out-of-bounds bytes. Needs compute capability 8.0.
struct cp_async {
  static constexpr path_id id = path_id::cp_async;
  static constexpr const char* name = "cp_async";
  static constexpr porter::completion completion = porter::completion::mbarrier_arrive;
  static constexpr int min_compute_capability = 80;
};
/// Plain staged loads: vectorized predicated global loads to registers, shared-memory stores, a
/// CTA barrier. Runs on every CUDA GPU porter builds for (sm_75+) and on AMD GPUs through HIP.
struct staged {
  static constexpr path_id id = path_id::staged;
  static constexpr const char* name = "staged";
  static constexpr porter::completion completion = porter::completion::cta_barrier;
  static constexpr int min_compute_capability = 0;
};
/// The best path that the compile target and each source allow: tma, else cp_async, else staged.
/// Resolved at compile time per target for the pipeline's completion mechanism (resolve_t), and per
/// copy from the source's supported paths (computed on the host by make_tiled_source).
struct automatic {
  static constexpr const char* name = "automatic";
  static constexpr int min_compute_capability = 0;
};
}  // namespace path

template <class P> struct is_path : std::false_type {};
template <> struct is_path<path::tma> : std::true_type {};
template <> struct is_path<path::cp_async> : std::true_type {};
template <> struct is_path<path::staged> : std::true_type {};
template <> struct is_path<path::automatic> : std::true_type {};

/// The printable name of a path tag: path_name<path::tma> == "tma".
template <class P> inline constexpr const char* path_name = P::name;

/// A concrete path resolved for the current compilation pass. For automatic: tma on sm_90+,
/// cp_async on sm_80+, staged on older NVIDIA targets and on AMD. In the host pass automatic
/// resolves to staged (no device code is emitted there).
template <class P> struct resolve { using type = P; };
template <> struct resolve<path::automatic> {
  using type = std::conditional_t<arch::has_tma, path::tma,
               std::conditional_t<arch::has_cp_async, path::cp_async, path::staged>>;
};
template <class P> using resolve_t = typename resolve<P>::type;

/// Printable name of a completion mechanism.
constexpr const char* completion_name(completion c) {
  return c == completion::mbarrier_tx       ? "mbarrier transaction bytes"
         : c == completion::mbarrier_arrive ? "cp.async groups, then mbarrier arrive"
                                            : "CTA barrier";
}

/// Printable name of a runtime path id.
constexpr const char* path_id_name(path_id p) {
  return p == path_id::tma ? "tma" : p == path_id::cp_async ? "cp_async" : "staged";
}

/// Bit for a path in a support mask (tiled_source::supported).
constexpr unsigned path_bit(path_id p) { return 1u << static_cast<int>(p); }

}  // namespace porter
