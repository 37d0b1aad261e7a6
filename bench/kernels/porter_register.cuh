// bench/kernels/porter_register.cuh — turn porter kernel instantiations into registry variants.
#pragma once
#include <porter/porter.hpp>

#include <utility>

#include "../src/variants.hpp"
#include "porter_kernels.cuh"

namespace pb {

template <class Path, class Pipe>
kernel_desc porter_desc(int threads, const void* func, const char* kernel) {
  kernel_desc d;
  d.impl = "porter";
  d.path = porter::path_name<Path>;
  d.stages = Pipe::stages;
  d.threads = threads;
  d.smem = Pipe::shared_bytes;
  d.stage_bytes = Pipe::ring::stage_bytes;
  d.fixed_smem = Pipe::shared_bytes - std::size_t(Pipe::stages) * Pipe::ring::stage_bytes;
  d.min_cc = Path::min_compute_capability;
  d.async_copies = Path::completion != porter::completion::cta_barrier;
  d.func = func;
  d.kernel = kernel;
  return d;
}

template <class Path, int S>
void add_stream(registry& r) {
  using Pipe = porter::pipeline<Path, S, stream_shape::box>;
  auto* k = &pb_stream<Path, S>;
  r.stream.push_back({porter_desc<Path, Pipe>(stream_shape::threads, reinterpret_cast<const void*>(k), "pb_stream"),
                      [k](const stream_problem& p, int grid) -> launcher {
                        const std::int64_t ext[1] = {p.n};
                        auto src = porter::make_tiled_source<stream_shape::box>(p.x, ext);
                        return [=](cudaStream_t s) {
                          porter::launch<Path>(k, dim3(grid), dim3(stream_shape::threads), Pipe::shared_bytes, s, src, p.y,
                                               p.n, p.a, p.b);
                        };
                      }});
}

template <class Path, int S, int R>
void add_stencil(registry& r) {
  using B = stencil_shape::box<R>;
  using Pipe = porter::pipeline<Path, S, B>;
  auto* k = &pb_stencil<Path, S, R>;
  r.stencil[R].push_back({porter_desc<Path, Pipe>(stencil_shape::threads, reinterpret_cast<const void*>(k), "pb_stencil"),
                          [k](const stencil_problem& p, int grid) -> launcher {
                            const std::int64_t ext[2] = {p.h, p.w};
                            auto src = porter::make_tiled_source<B>(p.in, ext);
                            return [=](cudaStream_t s) {
                              porter::launch<Path>(k, dim3(grid), dim3(stencil_shape::threads), Pipe::shared_bytes, s, src,
                                                   p.out, p.h, p.w);
                            };
                          }});
}

template <class Path, int S>
void add_sgemm(registry& r) {
  using namespace sgemm_shape;
  using Pipe = porter::pipeline<Path, S, a_box, b_box>;
  auto* k = &pb_sgemm<Path, S>;
  r.sgemm.push_back({porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_sgemm"),
                     [k](const sgemm_problem& p, int grid) -> launcher {
                       const std::int64_t ea[2] = {p.k, p.m}, eb[2] = {p.k, p.n};
                       auto sa = porter::make_tiled_source<a_box>(p.at, ea);
                       auto sb = porter::make_tiled_source<b_box>(p.b, eb);
                       return [=](cudaStream_t s) {
                         porter::launch<Path>(k, dim3(grid), dim3(threads), Pipe::shared_bytes, s, sa, sb, p.c, p.m, p.n, p.k);
                       };
                     }});
}

template <class Path, int S>
void add_smallgemm(registry& r) {
  using namespace smallgemm_shape;
  using Pipe = porter::pipeline<Path, S, a_box, b_box>;
  auto* k = &pb_smallgemm<Path, S>;
  r.smallgemm.push_back({porter_desc<Path, Pipe>(threads, reinterpret_cast<const void*>(k), "pb_smallgemm"),
                         [k](const smallgemm_problem& p, int grid) -> launcher {
                           const std::int64_t ea[2] = {p.m, p.k}, eb[2] = {p.k, p.n};
                           auto sa = porter::make_tiled_source<a_box>(p.a, ea);
                           auto sb = porter::make_tiled_source<b_box>(p.b, eb);
                           return [=](cudaStream_t s) {
                             porter::launch<Path>(k, dim3(grid), dim3(threads), Pipe::shared_bytes, s, sa, sb, p.c, p.m, p.n,
                                                  p.k);
                           };
                         }});
}

/// Call f.template operator()<Path>() for each concrete path.
template <class F>
void for_each_path(F&& f) {
  f.template operator()<porter::path::tma>();
  f.template operator()<porter::path::cp_async>();
  f.template operator()<porter::path::staged>();
}

}  // namespace pb
