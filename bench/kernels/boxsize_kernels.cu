// bench/kernels/boxsize_kernels.cu — the boxsize sweep (shapes.hpp boxsize_shape): pb_boxsize at every
// box size, on every path and on automatic, 4 stages, the planner's schedule. Part of
// porter_bench_sweep_kernels: compiled for PORTER_BENCH_SWEEP_ARCHITECTURES.
#include <string>
#include <tuple>
#include <vector>

#include "porter_register.cuh"

namespace pb {
namespace {

using namespace boxsize_shape;

std::string bytes_label(std::size_t b) { return b >= 1024 ? std::to_string(b / 1024) + " KiB" : std::to_string(b) + " B"; }

template <class Box>
std::string shape_of() {
  if constexpr (Box::rank == 1) return "1D " + std::to_string(Box::elements) + " fp32 (" + bytes_label(Box::bytes) + ")";
  else return "2D " + std::to_string(Box::dim(0)) + "x" + std::to_string(Box::dim(1)) + " fp32 (" + bytes_label(Box::bytes) + ")";
}

/// What a Box of each rank runs on: the problem type, the registry list, the tile count and the
/// kernel's arguments after the schedule (one definition per rank, for the forced paths and
/// automatic alike). 1D: a stream_problem of n floats; 2D: a grid2d_problem, y = boxsize_a x + boxsize_b.
template <class Box, int R = Box::rank>
struct box_problem;
template <class Box>
struct box_problem<Box, 1> {
  using type = stream_problem;
  static std::vector<variant<type>>& list(boxsize_set& s) { return s.v1; }
  static long long tiles(const type& p) { return p.n / (long long)Box::elements; }
  static auto args(const type& p, porter::tile_schedule sc) {
    const std::int64_t ext[1] = {p.n};
    return std::make_tuple(porter::make_tiled_source<Box>(p.x, ext), p.y, 0, p.a, p.b, sc);
  }
};
template <class Box>
struct box_problem<Box, 2> {
  using type = grid2d_problem;
  static std::vector<variant<type>>& list(boxsize_set& s) { return s.v2; }
  static long long tiles(const type& p) { return (long long)(p.h / Box::dim(0)) * (p.w / Box::inner); }
  static auto args(const type& p, porter::tile_schedule sc) {
    const std::int64_t ext[2] = {p.h, p.w};
    return std::make_tuple(porter::make_tiled_source<Box>(p.x, ext), p.y, p.w, boxsize_a, boxsize_b, sc);
  }
};

template <class Path, class Box>
void add_path(registry& r) {
  using Pipe = porter::pipeline<Path, stages, Box>;
  using P = box_problem<Box>;
  auto* k = &pb_boxsize<Path, stages, Box>;
  const kernel_desc d = porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_boxsize", sched_mode::planned);
  P::list(r.boxsize_of(Box::rank, Box::bytes, shape_of<Box>())).push_back({d, [k](const typename P::type& p, int grid) -> launcher {
    const porter::tile_schedule sc = schedule_for(sched_mode::planned, P::tiles(p), grid, Pipe::ring::stage_bytes, stages, 1);
    const auto args = P::args(p, sc);
    return [=](cudaStream_t s) {
      std::apply([&](const auto&... a) { porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(threads), Pipe::shared_bytes, s, a...); }, args);
    };
  }});
}

template <class Box>
void add_automatic_box(registry& r) {
  using namespace porter;
  using stage = path::staged;  // the instantiation every build has (attributes for prepare())
  using Pipe = pipeline<stage, stages, Box>;
  using P = box_problem<Box>;
  auto fam = kernel_family{[](auto q) { return &pb_boxsize<decltype(q), stages, Box>; }};
  const kernel_desc d =
      porter_desc<path::automatic, Pipe>(threads, reinterpret_cast<const void*>(fam.make(stage{})), "pb_boxsize", sched_mode::planned);
  P::list(r.boxsize_of(Box::rank, Box::bytes, shape_of<Box>()))
      .push_back(automatic_variant<typename P::type>(d, fam, &P::args, &P::tiles, [](const typename P::type&) { return 1; }));
}

template <class Box>
struct add_paths {
  registry& r;
  template <class Path>
  void operator()() const { add_path<Path, Box>(r); }
};

template <class Box>
void add_box(registry& r) {
  for_each_path(add_paths<Box>{r});
  add_automatic_box<Box>(r);
}

}  // namespace

void register_boxsize_kernels(registry& r) {
  // 1D: 512 B .. 32 KiB (cp.async.bulk); 2D: 16 rows of 8 .. 256 floats, 512 B .. 16 KiB (cp.async.bulk.tensor).
  add_box<box1d<128>>(r);
  add_box<box1d<256>>(r);
  add_box<box1d<512>>(r);
  add_box<box1d<1024>>(r);
  add_box<box1d<2048>>(r);
  add_box<box1d<4096>>(r);
  add_box<box1d<8192>>(r);
  add_box<box2d<8>>(r);
  add_box<box2d<16>>(r);
  add_box<box2d<32>>(r);
  add_box<box2d<64>>(r);
  add_box<box2d<128>>(r);
  add_box<box2d<256>>(r);
}

}  // namespace pb
