// bench/kernels/sweep_stream.cu — stream porter kernels at stages 1..8 except the default, every path.
#include "sweep_common.cuh"

namespace pb {
namespace {
struct add_sweep {
  registry& r;
  template <class Path>
  void operator()() const {
    registry& reg = r;
    for_sweep_stages<default_stages_stream>([&reg](auto s) { for_each_schedule([&](sched_mode m) { add_stream<Path, decltype(s)::value>(reg, m); }); });
  }
};
}  // namespace
void register_sweep_stream(registry& r) { for_each_path(add_sweep{r}); }
}  // namespace pb
