// porter/schedule.hpp — the high level: a pipeline's prologue, steady state and drain in one call,
// and the grid schedules that say which tiles each CTA runs through it.
//
// run_pipeline keeps S-1 steps in flight while it consumes one (S = the pipeline's stages): step
// i+S-1 is issued right after step i has landed, into the stage released at the end of step i-1, so
// the CTA barrier of the wait (cp_async, staged) also covers that stage's reuse and a step costs one
// barrier. With S = 1 each step is issued, waited for and consumed in turn.
//
// Schedules (porter::tile_schedule, built on the host by porter::plan_schedule):
//   blocked     CTA b runs tiles [b*k, b*k + k) (k = tiles_per_cta; k = 1 is one tile per CTA, the
//               way cub::DeviceTransform runs: residency, not a long loop, keeps bytes in flight);
//   persistent  CTA b runs tiles b, b + gridDim.x, b + 2*gridDim.x, ... (a grid of SMs x occupancy).
#pragma once
#include <type_traits>

#include "porter/async_copy.hpp"
#include "porter/box.hpp"
#include "porter/pipeline.hpp"
#include "porter/schedule_types.hpp"

namespace porter {

#if PORTER_GPU_COMPILER
/// Run `count` steps through `pipe`. Step i is filled by `issue(slot, i)` (which calls async_copy
/// on the slot, once or several times) and consumed by `body(ready, i)` (ready.tile<I>() views
/// the landed buffers; in a generic lambda write `ready.template tile<0>()`). Keeps S-1 steps in
/// flight while one is consumed (see the file comment).
/// Collective; count may be 0 and may differ between CTAs, not between threads of one CTA.
/// The pipeline's phases carry over, so run_pipeline may be called again on the same pipeline.
template <class Pipe, class Issue, class Body>
PORTER_DEVICE void run_pipeline(Pipe& pipe, int count, Issue&& issue, Body&& body) {
  static_assert(!is_role_pipeline<Pipe>::value,
                "porter::run_pipeline / for_each_tile: a porter::role_pipeline is driven per role (the producers acquire and "
                "commit, the consumers wait and release); these helpers make every thread do both.");
  constexpr int ahead = Pipe::stages - 1;
  int issued = 0;
  if constexpr (ahead > 0) {
    for (; issued < count && issued < ahead; ++issued) {
      auto slot = pipe.producer_acquire();
      issue(slot, issued);
      pipe.producer_commit(slot);
    }
  }
  for (int i = 0; i < count; ++i) {
    if constexpr (ahead == 0) {
      auto slot = pipe.producer_acquire();
      issue(slot, i);
      pipe.producer_commit(slot);
    }
    auto ready = pipe.consumer_wait();
    if constexpr (ahead > 0) {
      if (issued < count) {
        auto slot = pipe.producer_acquire();
        issue(slot, issued);
        pipe.producer_commit(slot);
        ++issued;
      }
    }
    body(ready, i);
    pipe.consumer_release(ready);
  }
}

namespace detail {
/// Call a for_each_tile body for a landed tile: `body(tile, index, at)` when the body takes the
/// box coordinate it loaded (a porter::coord<rank>, by value or const reference), else
/// `body(tile, index)`. `at_of()` recomputes the coordinate only for bodies that take it.
template <class Box, class Index, class Body, class AtOf>
PORTER_DEVICE PORTER_FORCEINLINE void call_tile_body(Body& body, tile_view<Box> tile, Index index, AtOf&& at_of) {
  if constexpr (std::is_invocable_v<Body&, tile_view<Box>, Index, const coord<Box::rank>&>) {
    body(tile, index, at_of());
  } else {
    static_assert(std::is_invocable_v<Body&, tile_view<Box>, Index>,
                  "porter::for_each_tile: the body must be callable as body(tile_view, index) or body(tile_view, index, coord).");
    body(tile, index);
  }
}
}  // namespace detail

/// One source, one box per step: step i copies the box of `src` at `coord_of(i)` (a
/// porter::coord<rank>) into buffer 0 and calls `body(tile, i)` with its tile_view, or
/// `body(tile, i, at)` with the coordinate `at` of the box that landed (the same coord_of(i) the
/// copy used) when the body takes three arguments. For such bodies coord_of is called a second
/// time, at consume time, so it must return the same coordinate for the same index (a pure
/// function of i, as every schedule's is). `src` must be the kernel's __grid_constant__ parameter
/// (or a reference to it).
template <class Pipe, class Box, class CoordOf, class Body>
PORTER_DEVICE void for_each_tile(Pipe& pipe, const tiled_source<Box>& src, int count, CoordOf&& coord_of, Body&& body) {
  for_each_tile(pipe, src, count, static_cast<CoordOf&&>(coord_of), static_cast<Body&&>(body), l2_hint_t<cache_hint::none>{});
}
/// As above, every copy with L2 eviction hint H (porter::evict_first for a stream read once;
/// porter/cache_hint.hpp, porter::async_copy).
template <class Pipe, class Box, class CoordOf, class Body, cache_hint H>
PORTER_DEVICE void for_each_tile(Pipe& pipe, const tiled_source<Box>& src, int count, CoordOf&& coord_of, Body&& body, l2_hint_t<H> hint) {
  run_pipeline(
      pipe, count, [&](auto& slot, int i) { async_copy(slot, src, coord_of(i), hint); },
      [&](const auto& ready, int i) {
        detail::call_tile_body<Box>(body, ready.template tile<0>(), i, [&] { return coord<Box::rank>(coord_of(i)); });
      });
}

/// This CTA's tiles of `schedule`, one box each: tile t (a global tile index, long long) is the box
/// of `src` at `coord_of(t)`; `body(tile_view, t)` consumes it, or `body(tile_view, t, at)` with
/// the coordinate of the box that landed (coord_of(t), recomputed: see above). One call per kernel
/// covers the blocked and the persistent schedule alike. Collective.
template <class Pipe, class Box, class CoordOf, class Body>
PORTER_DEVICE void for_each_tile(Pipe& pipe, const tiled_source<Box>& src, const tile_schedule& schedule, CoordOf&& coord_of,
                                 Body&& body) {
  for_each_tile(pipe, src, schedule, static_cast<CoordOf&&>(coord_of), static_cast<Body&&>(body), l2_hint_t<cache_hint::none>{});
}
/// As above, every copy with L2 eviction hint H (porter/cache_hint.hpp, porter::async_copy).
template <class Pipe, class Box, class CoordOf, class Body, cache_hint H>
PORTER_DEVICE void for_each_tile(Pipe& pipe, const tiled_source<Box>& src, const tile_schedule& schedule, CoordOf&& coord_of,
                                 Body&& body, l2_hint_t<H> hint) {
  run_pipeline(
      pipe, schedule.count(), [&](auto& slot, int i) { async_copy(slot, src, coord_of(schedule.tile(i)), hint); },
      [&](const auto& ready, int i) {
        const long long t = schedule.tile(i);
        detail::call_tile_body<Box>(body, ready.template tile<0>(), t, [&] { return coord<Box::rank>(coord_of(t)); });
      });
}
#endif

}  // namespace porter
