// bench/kernels/boxsize_kernels.cu — the boxsize sweep (shapes.hpp boxsize_shape): pb_boxsize at every
// box size, on every path and on automatic, 4 stages, the planner's schedule. Compiled for every
// target in PORTER_CUDA_ARCHITECTURES.
#include <string>

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

template <class Box>
long long tiles_1d(const stream_problem& p) { return p.n / (long long)Box::elements; }
template <class Box>
long long tiles_2d(const grid2d_problem& p) { return (long long)(p.h / Box::dim(0)) * (p.w / Box::inner); }

template <class Box>
auto source_1d(const stream_problem& p) {
  const std::int64_t ext[1] = {p.n};
  return porter::make_tiled_source<Box>(p.x, ext);
}
template <class Box>
auto source_2d(const grid2d_problem& p) {
  const std::int64_t ext[2] = {p.h, p.w};
  return porter::make_tiled_source<Box>(p.x, ext);
}

template <class Path, class Box>
void add_path(registry& r) {
  using Pipe = porter::pipeline<Path, stages, Box>;
  auto* k = &pb_boxsize<Path, stages, Box>;
  const kernel_desc d = porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_boxsize", sched_mode::planned);
  boxsize_set& set = r.boxsize_of(Box::rank, Box::bytes, shape_of<Box>());
  if constexpr (Box::rank == 1) {
    set.v1.push_back({d, [k](const stream_problem& p, int grid) -> launcher {
                        auto src = source_1d<Box>(p);
                        const porter::tile_schedule sc = schedule_for(sched_mode::planned, tiles_1d<Box>(p), grid, Pipe::ring::stage_bytes, stages, 1);
                        return [=](cudaStream_t s) {
                          porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(threads), Pipe::shared_bytes, s, src, p.y, 0, p.a, p.b, sc);
                        };
                      }});
  } else {
    set.v2.push_back({d, [k](const grid2d_problem& p, int grid) -> launcher {
                        auto src = source_2d<Box>(p);
                        const porter::tile_schedule sc = schedule_for(sched_mode::planned, tiles_2d<Box>(p), grid, Pipe::ring::stage_bytes, stages, 1);
                        return [=](cudaStream_t s) {
                          porter::launch<Path>(k, dim3(sc.grid_ctas()), dim3(threads), Pipe::shared_bytes, s, src, p.y, p.w, boxsize_a,
                                               boxsize_b, sc);
                        };
                      }});
  }
}

template <class Box>
void add_automatic_box(registry& r) {
  using namespace porter;
  using stage = path::staged;  // the instantiation every build has (attributes for prepare())
  using Pipe = pipeline<stage, stages, Box>;
  auto fam = kernel_family{[](auto q) { return &pb_boxsize<decltype(q), stages, Box>; }};
  const kernel_desc d =
      porter_desc<path::automatic, Pipe>(threads, reinterpret_cast<const void*>(fam.make(stage{})), "pb_boxsize", sched_mode::planned);
  boxsize_set& set = r.boxsize_of(Box::rank, Box::bytes, shape_of<Box>());
  if constexpr (Box::rank == 1) {
    set.v1.push_back(automatic_variant<stream_problem>(
        d, fam, [](const stream_problem& p, tile_schedule sc) { return std::make_tuple(source_1d<Box>(p), p.y, 0, p.a, p.b, sc); },
        [](const stream_problem& p) { return tiles_1d<Box>(p); }, [](const stream_problem&) { return 1; }));
  } else {
    set.v2.push_back(automatic_variant<grid2d_problem>(
        d, fam,
        [](const grid2d_problem& p, tile_schedule sc) { return std::make_tuple(source_2d<Box>(p), p.y, p.w, boxsize_a, boxsize_b, sc); },
        [](const grid2d_problem& p) { return tiles_2d<Box>(p); }, [](const grid2d_problem&) { return 1; }));
  }
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
