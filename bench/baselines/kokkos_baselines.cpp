// bench/baselines/kokkos_baselines.cpp — Kokkos stream and stencil2d (compiled by Kokkos' own
// compiler setup; the arithmetic is the porter kernels': bench/kernels/compute.cuh, star weights).
//
// Written as a Kokkos user would, and tuned the way its documentation suggests: unmanaged Views
// over porter-bench's buffers (no copies), an execution-space instance on porter-bench's stream
// (so CUDA events time exactly the kernel), the contiguous index on threadIdx.x, team scratch for
// the tile with halo.
#include <Kokkos_Core.hpp>

#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

#include "kokkos_baselines.hpp"

namespace pb::kokkos {
namespace {
using mem = Kokkos::CudaSpace;
using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using vec_c = Kokkos::View<const float*, Kokkos::LayoutRight, mem, unmanaged>;
using vec = Kokkos::View<float*, Kokkos::LayoutRight, mem, unmanaged>;
using grid_c = Kokkos::View<const float**, Kokkos::LayoutRight, mem, unmanaged>;
using grid = Kokkos::View<float**, Kokkos::LayoutRight, mem, unmanaged>;
bool g_init = false;

template <int R> struct w;
template <> struct w<1> {};  // radius 1 has the one weight 0.25 (see star_point)
template <> struct w<2> { static constexpr float w0 = 0.2f, w1 = 0.15f, w2 = 0.05f; };

/// The stencil formula of bench/kernels/compute.cuh (same operation order).
template <int R, class At>
KOKKOS_INLINE_FUNCTION float star_point(const At& at, int i, int j) {
  if constexpr (R == 1) {
    return 0.25f * ((at(i - 1, j) + at(i + 1, j)) + (at(i, j - 1) + at(i, j + 1)));
  } else {
    return fmaf(w<R>::w2, (at(i - 2, j) + at(i + 2, j)) + (at(i, j - 2) + at(i, j + 2)),
                fmaf(w<R>::w1, (at(i - 1, j) + at(i + 1, j)) + (at(i, j - 1) + at(i, j + 1)), w<R>::w0 * at(i, j)));
  }
}

template <int R>
launcher mdrange(const stencil_problem& p, cudaStream_t s) {
  Kokkos::Cuda exec(s);
  grid_c in(p.in, p.h, p.w);
  grid out(p.out, p.h, p.w);
  const int h = p.h, wd = p.w;
  // Index 0 is the column (threadIdx.x: coalesced), index 1 the row; tiles of 128 x 4 points.
  Kokkos::MDRangePolicy<Kokkos::Cuda, Kokkos::Rank<2>> policy(exec, {0, 0}, {wd, h}, {128, 4});
  return [=](cudaStream_t) {
    Kokkos::parallel_for(
        "pb_kokkos_stencil_mdrange", policy, KOKKOS_LAMBDA(const int j, const int i) {
          auto at = [&](int r, int c) { return (r < 0 || r >= h || c < 0 || c >= wd) ? 0.0f : in(r, c); };
          out(i, j) = star_point<R>(at, i, j);
        });
  };
}

template <int R>
launcher team(const stencil_problem& p, cudaStream_t s) {
  constexpr int th = 32, tw = 128, sh = th + 2 * R, sw = tw + 2 * R;
  using scratch = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::Cuda::scratch_memory_space, unmanaged>;
  using policy_t = Kokkos::TeamPolicy<Kokkos::Cuda>;
  Kokkos::Cuda exec(s);
  grid_c in(p.in, p.h, p.w);
  grid out(p.out, p.h, p.w);
  const int h = p.h, wd = p.w;
  const int tiles_x = (wd + tw - 1) / tw, tiles = tiles_x * ((h + th - 1) / th);
  policy_t policy = policy_t(exec, tiles, 256).set_scratch_size(0, Kokkos::PerTeam(scratch::shmem_size(sh, sw)));
  return [=](cudaStream_t) {
    Kokkos::parallel_for(
        "pb_kokkos_stencil_team", policy, KOKKOS_LAMBDA(const policy_t::member_type& m) {
          const int t = m.league_rank();
          const int r0 = (t / tiles_x) * th, c0 = (t % tiles_x) * tw;
          scratch tile(m.team_scratch(0), sh, sw);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, sh * sw), [&](int e) {
            const int r = e / sw, c = e - r * sw;
            const int gr = r0 - R + r, gc = c0 - R + c;
            tile(r, c) = (gr < 0 || gr >= h || gc < 0 || gc >= wd) ? 0.0f : in(gr, gc);
          });
          m.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, th * tw), [&](int e) {
            const int r = e / tw, c = e - r * tw;
            const int gr = r0 + r, gc = c0 + c;
            if (gr < h && gc < wd) {
              auto at = [&](int i, int j) { return tile(i - r0 + R, j - c0 + R); };
              out(gr, gc) = star_point<R>(at, gr, gc);
            }
          });
        });
  };
}

}  // namespace

bool built() { return true; }

std::string status() {
  return "Kokkos " + std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
         std::to_string(KOKKOS_VERSION % 100) + ", CUDA backend";
}

void initialize(int device) {
  if (g_init) return;
  Kokkos::InitializationSettings settings;
  settings.set_device_id(device);
  settings.set_disable_warnings(true);
  Kokkos::initialize(settings);
  g_init = true;
}

void finalize() {
  if (g_init && !Kokkos::is_finalized()) Kokkos::finalize();
  g_init = false;
}

launcher stream(const stream_problem& p, cudaStream_t s) {
  // One element per index, 32-bit index (2^28 elements fit): what the Kokkos tutorials write.
  if (p.n > std::numeric_limits<int>::max()) throw std::invalid_argument("Kokkos stream: n must fit a 32-bit index");
  Kokkos::Cuda exec(s);
  vec_c x(p.x, p.n);
  vec y(p.y, p.n);
  const float a = p.a, b = p.b;
  Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int>> policy(exec, 0, int(p.n));
  return [=](cudaStream_t) {
    Kokkos::parallel_for("pb_kokkos_stream", policy, KOKKOS_LAMBDA(const int i) { y(i) = a * x(i) + b; });
  };
}

launcher stream_vec4(const stream_problem& p, cudaStream_t s) {
  // Four elements per index through float4 Views (16-byte loads and stores, as porter's kernels
  // use); requires n % 4 == 0 and 16-byte aligned buffers (cudaMalloc gives 256).
  if (p.n % 4 != 0) throw std::invalid_argument("Kokkos stream_vec4: n must be a multiple of 4");
  if (p.n / 4 > std::numeric_limits<int>::max()) throw std::invalid_argument("Kokkos stream_vec4: n / 4 must fit a 32-bit index");
  Kokkos::Cuda exec(s);
  using v4c = Kokkos::View<const float4*, Kokkos::LayoutRight, mem, unmanaged>;
  using v4 = Kokkos::View<float4*, Kokkos::LayoutRight, mem, unmanaged>;
  v4c x(reinterpret_cast<const float4*>(p.x), p.n / 4);
  v4 y(reinterpret_cast<float4*>(p.y), p.n / 4);
  const float a = p.a, b = p.b;
  Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int>> policy(exec, 0, int(p.n / 4));
  return [=](cudaStream_t) {
    Kokkos::parallel_for("pb_kokkos_stream_vec4", policy, KOKKOS_LAMBDA(const int i) {
      const float4 v = x(i);
      y(i) = make_float4(a * v.x + b, a * v.y + b, a * v.z + b, a * v.w + b);
    });
  };
}

launcher stencil_mdrange(const stencil_problem& p, int radius, cudaStream_t s) {
  if (radius == 1) return mdrange<1>(p, s);
  if (radius == 2) return mdrange<2>(p, s);
  throw std::invalid_argument("Kokkos stencil: radius must be 1 or 2");
}

launcher stencil_team(const stencil_problem& p, int radius, cudaStream_t s) {
  if (radius == 1) return team<1>(p, s);
  if (radius == 2) return team<2>(p, s);
  throw std::invalid_argument("Kokkos stencil: radius must be 1 or 2");
}

}  // namespace pb::kokkos
