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

/// One source, one box per step: step i copies the box of `src` at `coord_of(i)` (a
/// porter::coord<rank>) into buffer 0 and calls `body(tile, i)` with its tile_view.
/// `src` must be the kernel's __grid_constant__ parameter (or a reference to it).
template <class Pipe, class Box, class CoordOf, class Body>
PORTER_DEVICE void for_each_tile(Pipe& pipe, const tiled_source<Box>& src, int count, CoordOf&& coord_of, Body&& body) {
  run_pipeline(
      pipe, count, [&](auto& slot, int i) { async_copy(slot, src, coord_of(i)); },
      [&](const auto& ready, int i) { body(ready.template tile<0>(), i); });
}

/// This CTA's tiles of `schedule`, one box each: tile t (a global tile index, long long) is the box
/// of `src` at `coord_of(t)`; `body(tile_view, t)` consumes it. One call per kernel covers the
/// blocked and the persistent schedule alike. Collective.
template <class Pipe, class Box, class CoordOf, class Body>
PORTER_DEVICE void for_each_tile(Pipe& pipe, const tiled_source<Box>& src, const tile_schedule& schedule, CoordOf&& coord_of,
                                 Body&& body) {
  run_pipeline(
      pipe, schedule.count(), [&](auto& slot, int i) { async_copy(slot, src, coord_of(schedule.tile(i))); },
      [&](const auto& ready, int i) { body(ready.template tile<0>(), schedule.tile(i)); });
}
#endif

}  // namespace porter
