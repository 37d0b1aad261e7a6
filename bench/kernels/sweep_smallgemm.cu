// bench/kernels/sweep_smallgemm.cu — smallgemm porter kernels at stages 1..8 except the default,
// every path (small kernels: one translation unit for all three paths).
#include "sweep_common.cuh"

namespace pb {
namespace {
struct add_sweep {
  registry& r;
  template <class Path>
  void operator()() const {
    registry& reg = r;
    for_sweep_stages<default_stages_smallgemm>([&reg](auto s) { for_each_schedule([&](sched_mode m) { add_smallgemm<Path, decltype(s)::value>(reg, m); }); });
  }
};
}  // namespace
void register_sweep_smallgemm(registry& r) { for_each_path(add_sweep{r}); }
}  // namespace pb
