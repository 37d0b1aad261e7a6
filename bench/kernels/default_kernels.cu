// bench/kernels/default_kernels.cu — porter kernels at the default stage counts, every path.
// Compiled for every target in PORTER_CUDA_ARCHITECTURES.
#include "porter_register.cuh"

namespace pb {

namespace {
struct add_defaults {
  registry& r;
  template <class Path>
  void operator()() const {
    add_stream<Path, default_stages_stream>(r);
    add_stencil<Path, default_stages_stencil, 1>(r);
    add_stencil<Path, default_stages_stencil, 2>(r);
    add_sgemm<Path, default_stages_sgemm>(r);
    add_smallgemm<Path, default_stages_smallgemm>(r);
  }
};
}  // namespace

void register_default_kernels(registry& r) { for_each_path(add_defaults{r}); }

}  // namespace pb
