// bench/kernels/sweep_stencil_r1.cu — stencil2d (radius 1) porter kernels at stages 1..8 except the
// default, every path.
#include "sweep_common.cuh"

namespace pb {
namespace {
struct add_sweep {
  registry& r;
  template <class Path>
  void operator()() const {
    registry& reg = r;
    for_sweep_stages<default_stages_stencil>([&reg](auto s) { for_each_schedule([&](sched_mode m) { add_stencil<Path, decltype(s)::value, 1>(reg, m); }); });
  }
};
}  // namespace
void register_sweep_stencil_r1(registry& r) { for_each_path(add_sweep{r}); }
}  // namespace pb
