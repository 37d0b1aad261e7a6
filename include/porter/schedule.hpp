// porter/schedule.hpp — the high level: a pipeline's prologue, steady state and drain in one call.
#pragma once
#include "porter/async_copy.hpp"
#include "porter/pipeline.hpp"

namespace porter {

#if PORTER_GPU_COMPILER
/// Run `count` steps through `pipe`. Step i is filled by `issue(slot, i)` (which calls async_copy
/// on the slot, once or several times) and consumed by `body(ready, i)` (ready.tile<I>() views
/// the landed buffers). Keeps up to `stages` steps in flight: the first min(count, stages) are
/// issued up front, then each consumed step is followed by the next issue.
/// Collective; count may be 0 and may differ between CTAs, not between threads of one CTA.
/// The pipeline's phases carry over, so run_pipeline may be called again on the same pipeline.
template <class Pipe, class Issue, class Body>
PORTER_DEVICE void run_pipeline(Pipe& pipe, int count, Issue&& issue, Body&& body) {
  int issued = 0;
  for (; issued < count && issued < Pipe::stages; ++issued) {
    auto slot = pipe.producer_acquire();
    issue(slot, issued);
    pipe.producer_commit(slot);
  }
  for (int i = 0; i < count; ++i) {
    auto ready = pipe.consumer_wait();
    body(ready, i);
    pipe.consumer_release(ready);
    if (issued < count) {
      auto slot = pipe.producer_acquire();
      issue(slot, issued);
      pipe.producer_commit(slot);
      ++issued;
    }
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
#endif

}  // namespace porter
