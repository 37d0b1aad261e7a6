// tests/device/runners.cuh — bind the test kernels, per <Path, Stages, Boxes...>, to the case loops
// of harness.cpp. Kept thin on purpose: everything that does not depend on the template arguments
// (data, layouts, references, comparisons, messages) is compiled once, by the host compiler.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "harness.hpp"
#include "kernels.cuh"

namespace porter_test {

namespace detail {

template <class K>
int kernel_max_threads(K kernel) {
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
    cudaGetLastError();
    return 128;
  }
  return attr.maxThreadsPerBlock;
}

/// Launch the instantiation `make(P{})` of a test kernel for Path; under path::automatic, the
/// instantiation porter::launch chooses on the host (kernel_family).
template <class Path, class Make, class... Args>
void launch_as(Make make, dim3 grid, dim3 block, std::size_t smem, Args&&... args) {
  if constexpr (std::is_same_v<Path, porter::path::automatic>)
    porter::launch<Path>(porter::kernel_family{make}, grid, block, smem, nullptr, std::forward<Args>(args)...);
  else
    porter::launch<Path>(make(Path{}), grid, block, smem, nullptr, std::forward<Args>(args)...);
}
/// Threads per CTA the kernel allows: for path::automatic the least over every instantiation the
/// launch may choose (porter::launch refuses a block larger than the chosen one allows).
template <class Path, class Make>
int max_threads_of(Make make) {
  if constexpr (std::is_same_v<Path, porter::path::automatic>) {
    int m = 1 << 30;
    porter::lowerings::for_each_path(porter::lowerings::all{}, [&](auto p) {
      const int t = kernel_max_threads(make(p));
      m = t < m ? t : m;
    });
    return m;
  } else {
    return kernel_max_threads(make(Path{}));
  }
}

template <class Box>
source_spec spec() {
  source_spec s;
  s.rank = Box::rank;
  s.es = int(sizeof(typename Box::element_type));
  for (int d = 0; d < Box::rank; ++d) s.box[d] = Box::dim(d);
  s.bytes = Box::bytes;
  s.swizzle = porter::swizzle_span(Box::swizzle_mode);
  return s;
}

template <class Box>
porter::tiled_source<Box> build_source(const geometry& g, const void* ptr) {
  std::int64_t ext[Box::rank];
  std::int64_t str[Box::rank > 1 ? Box::rank - 1 : 1] = {};
  for (int d = 0; d < Box::rank; ++d) ext[d] = g.extent[d];
  for (int d = 0; d + 1 < Box::rank; ++d) str[d] = g.stride[d];
  return porter::make_tiled_source<Box>(static_cast<const typename Box::element_type*>(ptr), ext, str, Box{});
}

/// The built sources of a tile_kernel (one per box), shared by its std::function members.
template <class... Boxes>
struct source_set {
  std::tuple<porter::tiled_source<Boxes>...> src;
  template <std::size_t... I>
  void build(int i, const geometry& g, const void* ptr, std::index_sequence<I...>) {
    ((int(I) == i ? (void)(std::get<I>(src) = build_source<Boxes>(g, ptr)) : (void)0), ...);
  }
  template <std::size_t... I>
  unsigned supported(int i, std::index_sequence<I...>) const {
    unsigned m = 0;
    ((int(I) == i ? (void)(m = std::get<I>(src).supported) : (void)0), ...);
    return m;
  }
  template <std::size_t... I>
  std::string explain(int i, std::index_sequence<I...>) const {
    std::string s;
    ((int(I) == i ? (void)(s = porter::explain(std::get<I>(src))) : (void)0), ...);
    return s;
  }
};

template <class Path, int S, class... Boxes>
tile_kernel common(std::shared_ptr<source_set<Boxes...>> set) {
  tile_kernel k;
  k.path_name = Path::name;
  k.forced = !std::is_same_v<Path, porter::path::automatic>;
  if constexpr (!std::is_same_v<Path, porter::path::automatic>) k.path = Path::id;
  k.stages = S;
  using ring = porter::stage_ring<S, Boxes...>;
  k.shared_bytes = ring::bytes;  // the same for every path
  k.sources = {spec<Boxes>()...};
  for (std::size_t i = 0; i < k.sources.size(); ++i) k.sources[i].buffer_bytes = ring::buffer_bytes[i];
  using seq = std::index_sequence_for<Boxes...>;
  k.build = [set](int i, const geometry& g, const void* ptr) { set->build(i, g, ptr, seq{}); };
  k.supported = [set](int i) { return set->supported(i, seq{}); };
  k.explain = [set](int i) { return set->explain(i, seq{}); };
  return k;
}

}  // namespace detail

/// box_kernel<Path, S, Box, Shift, CtaThreads>: the low-level protocol, one source, the pipeline
/// built Shift bytes past the dynamic shared memory base; CtaThreads > 0: with
/// porter::cta_threads<CtaThreads>, every case launched with exactly that many threads. H: the
/// L2 hint of every copy.
template <class Path, int S, class Box, int Shift = 0, unsigned CtaThreads = 0, porter::cache_hint H = porter::cache_hint::none>
tile_kernel box_kernel_under_test() {
  auto set = std::make_shared<detail::source_set<Box>>();
  tile_kernel k = detail::common<Path, S, Box>(set);
  auto make = [](auto p) { return &box_kernel<decltype(p), S, Box, Shift, CtaThreads, H>; };
  k.max_threads = detail::max_threads_of<Path>(make);
  k.fixed_threads = CtaThreads;
  k.schedule = "protocol";
  k.smem_shift = Shift;
  k.shared_bytes += Shift;
  const std::size_t smem = k.shared_bytes;
  k.launch = [set, make, smem](dim3 grid, dim3 block, const std::vector<const int*>& at, const int2* work, unsigned char* out,
                               int ahead, int prefill) {
    detail::launch_as<Path>(make, grid, block, smem, std::get<0>(set->src), reinterpret_cast<const porter::coord<Box::rank>*>(at[0]),
                            work, out, ahead, prefill);
  };
  return k;
}

/// role_box_kernel<Path, Roles, S, Box>: a porter::role_pipeline, one source, CTAs of exactly
/// Roles::threads threads. H: the L2 hint of every copy.
template <class Path, class Roles, int S, class Box, porter::cache_hint H = porter::cache_hint::none>
tile_kernel role_kernel_under_test() {
  auto set = std::make_shared<detail::source_set<Box>>();
  tile_kernel k = detail::common<Path, S, Box>(set);
  auto make = [](auto p) { return &role_box_kernel<decltype(p), Roles, S, Box, H>; };
  k.max_threads = detail::max_threads_of<Path>(make);
  k.fixed_threads = Roles::threads;
  k.schedule = "protocol";
  const std::size_t smem = k.shared_bytes;
  k.launch = [set, make, smem](dim3 grid, dim3 block, const std::vector<const int*>& at, const int2* work, unsigned char* out,
                               int ahead, int prefill) {
    detail::launch_as<Path>(make, grid, block, smem, std::get<0>(set->src), reinterpret_cast<const porter::coord<Box::rank>*>(at[0]),
                            work, out, ahead, prefill);
  };
  return k;
}

/// for_each_tile_kernel<Path, S, Box>: the high-level schedule, one source. WithCoord: the body
/// takes the box coordinate and checks it (for_each_tile_coord_kernel).
template <class Path, int S, class Box, bool WithCoord = false>
tile_kernel for_each_tile_kernel_under_test() {
  auto set = std::make_shared<detail::source_set<Box>>();
  tile_kernel k = detail::common<Path, S, Box>(set);
  auto make = [](auto p) {
    if constexpr (WithCoord) return &for_each_tile_coord_kernel<decltype(p), S, Box>;
    else return &for_each_tile_kernel<decltype(p), S, Box>;
  };
  k.max_threads = detail::max_threads_of<Path>(make);
  k.schedule = "for_each_tile";
  k.raw_layout = false;  // the body stores through tile_view (dense order)
  const std::size_t smem = k.shared_bytes;
  k.launch = [set, make, smem](dim3 grid, dim3 block, const std::vector<const int*>& at, const int2* work, unsigned char* out, int,
                               int) {
    detail::launch_as<Path>(make, grid, block, smem, std::get<0>(set->src), reinterpret_cast<const porter::coord<Box::rank>*>(at[0]),
                            work, out);
  };
  return k;
}

/// schedule_kernel<Path, S, Box>: for_each_tile over a tile_schedule of every slot the case's work
/// list names. `tiles_per_cta` > 0: blocked; 0: persistent over `persistent_grid` CTAs.
/// WithCoord: the body takes the box coordinate and checks it (schedule_coord_kernel).
template <class Path, int S, class Box, bool WithCoord = false>
tile_kernel schedule_kernel_under_test(int tiles_per_cta, int persistent_grid) {
  auto set = std::make_shared<detail::source_set<Box>>();
  tile_kernel k = detail::common<Path, S, Box>(set);
  auto make = [](auto p) {
    if constexpr (WithCoord) return &schedule_coord_kernel<decltype(p), S, Box>;
    else return &schedule_kernel<decltype(p), S, Box>;
  };
  k.max_threads = detail::max_threads_of<Path>(make);
  k.schedule = "for_each_tile";
  k.raw_layout = false;  // the body stores through tile_view (dense order)
  const std::size_t smem = k.shared_bytes;
  k.launch = [set, make, smem, tiles_per_cta, persistent_grid](dim3 grid, dim3 block, const std::vector<const int*>& at,
                                                               const int2* work, unsigned char* out, int, int) {
    // The work list is contiguous (entry i: first slot, trips): its end is the number of tiles.
    int2 last{0, 0};
    if (cudaMemcpy(&last, work + (grid.x - 1), sizeof(int2), cudaMemcpyDeviceToHost) != cudaSuccess)
      throw std::runtime_error("schedule test: reading the work list failed");
    const long long tiles = static_cast<long long>(last.x) + last.y;
    const porter::tile_schedule sc =
        tiles_per_cta > 0 ? porter::blocked_schedule(tiles, tiles_per_cta) : porter::persistent_schedule(tiles, persistent_grid);
    detail::launch_as<Path>(make, dim3(unsigned(sc.grid_ctas())), block, smem, std::get<0>(set->src),
                            reinterpret_cast<const porter::coord<Box::rank>*>(at[0]), sc, out);
  };
  return k;
}

/// pair_kernel<Path, S, A, B>: two sources per stage.
template <class Path, int S, class A, class B>
tile_kernel pair_kernel_under_test() {
  auto set = std::make_shared<detail::source_set<A, B>>();
  tile_kernel k = detail::common<Path, S, A, B>(set);
  auto make = [](auto p) { return &pair_kernel<decltype(p), S, A, B>; };
  k.max_threads = detail::max_threads_of<Path>(make);
  k.schedule = "protocol";
  const std::size_t smem = k.shared_bytes;
  k.launch = [set, make, smem](dim3 grid, dim3 block, const std::vector<const int*>& at, const int2* work, unsigned char* out,
                               int ahead, int prefill) {
    detail::launch_as<Path>(make, grid, block, smem, std::get<0>(set->src), std::get<1>(set->src),
                            reinterpret_cast<const porter::coord<A::rank>*>(at[0]), reinterpret_cast<const porter::coord<B::rank>*>(at[1]),
                            work, out, ahead, prefill);
  };
  return k;
}

/// two_rings_kernel<Path, SA, SB, A, B>: two rings and a scratch tile in one porter::shared_layout.
template <class Path, int SA, int SB, class A, class B>
tile_kernel two_rings_kernel_under_test() {
  auto set = std::make_shared<detail::source_set<A, B>>();
  tile_kernel k = detail::common<Path, SA, A, B>(set);
  using L = porter::shared_layout<porter::pipeline<porter::path::staged, SA, A>, porter::pipeline<porter::path::staged, SB, B>,
                                  porter::scratch<A>>;
  k.shared_bytes = L::bytes;  // one slack for the whole layout
  k.sources[1].buffer_bytes = porter::stage_ring<SB, B>::buffer_bytes[0];
  auto make = [](auto p) { return &two_rings_kernel<decltype(p), SA, SB, A, B>; };
  k.max_threads = detail::max_threads_of<Path>(make);
  k.schedule = "two rings";  // no prefill: the consumer stores the boxes only
  const std::size_t smem = k.shared_bytes;
  k.launch = [set, make, smem](dim3 grid, dim3 block, const std::vector<const int*>& at, const int2* work, unsigned char* out,
                               int ahead, int prefill) {
    detail::launch_as<Path>(make, grid, block, smem, std::get<0>(set->src), std::get<1>(set->src),
                            reinterpret_cast<const porter::coord<A::rank>*>(at[0]), reinterpret_cast<const porter::coord<B::rank>*>(at[1]),
                            work, out, ahead, prefill);
  };
  return k;
}

/// bytes_kernel<Path, S>: byte ranges into a bytes_box stage. H: the L2 hint of every copy.
template <class Path, int S, porter::cache_hint H = porter::cache_hint::none>
bytes_kernel bytes_kernel_under_test() {
  bytes_kernel k;
  auto make = [](auto p) { return &bytes_copy_kernel<decltype(p), S, H>; };
  k.path_name = Path::name;
  k.stages = S;
  k.shared_bytes = porter::stage_ring<S, bytes_box>::bytes;
  k.max_threads = detail::max_threads_of<Path>(make);
  k.buffer_bytes = bytes_box::bytes;
  const std::size_t smem = k.shared_bytes;
  k.launch = [make, smem](dim3 grid, dim3 block, const unsigned char* base, const int* offs, const int* cnts, const int2* work,
                          unsigned char* out, int ahead, int prefill) {
    detail::launch_as<Path>(make, grid, block, smem, base, offs, cnts, work, out, ahead, prefill);
  };
  return k;
}

/// Shorthands used by the tests.
template <class Path, int S, class Box, int Shift = 0, unsigned CtaThreads = 0, porter::cache_hint H = porter::cache_hint::none>
void box_cases(test_tally& tt, const std::string& list, const case_options& opt) {
  run_tile_cases(tt, list, opt, box_kernel_under_test<Path, S, Box, Shift, CtaThreads, H>());
}
template <class Path, int S, class Box>
void for_each_tile_cases(test_tally& tt, const std::string& list, const case_options& opt) {
  run_tile_cases(tt, list, opt, for_each_tile_kernel_under_test<Path, S, Box>());
}
template <class Path, int S, porter::cache_hint H = porter::cache_hint::none>
void bytes_cases(test_tally& tt, const std::string& list, int ncases) {
  run_bytes_cases(tt, list, ncases, bytes_kernel_under_test<Path, S, H>());
}

/// Type names for typed test suites: Suite/tma.test, Suite/cp_async.test, ...
struct path_names {
  template <class P>
  static std::string GetName(int) {
    return porter::path_name<P>;
  }
};
using all_paths = ::testing::Types<porter::path::tma, porter::path::cp_async, porter::path::staged, porter::path::automatic>;
/// The concrete paths (kernels that are not launched through porter::kernel_family).
using concrete_paths = ::testing::Types<porter::path::tma, porter::path::cp_async, porter::path::staged>;

}  // namespace porter_test
